// The Blink (Solana Actions) tests' world: one app for the file on the fake validator, a clock the tests
// move (back to now before each test), funded vaults with a blocked transfer, and what every Action
// answer must carry.
import assert from 'node:assert/strict';
import { beforeEach } from 'node:test';
import { eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import type { TestWallet } from '../../dev/support/wallet.js';
import type { Database } from '../../src/storage/database.js';
import { blinks, overrides } from '../../src/storage/schema/index.js';
import {
  BLINKS_BASE_URL,
  type SeededOverride,
  type SeededOverrideOptions,
  seedOverride,
} from './seeded-overrides.js';
import { type TestApps, useTestApps } from './test-apps.js';

export const DEVNET_ID = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';

/** The request the Action tests act on: vault "Ops budget", 42½ minutes left, the blocked attempt stored. */
export const OPS_BUDGET_REQUEST: SeededOverrideOptions = {
  name: 'Ops budget',
  expiresInMs: 42 * 60_000 + 30_000,
  withBlockedTransaction: true,
};

export interface TestClock {
  nowMs: number;
  now(): Date;
}

export interface BlinkApps {
  readonly apps: TestApps;
  readonly clock: TestClock;
  /** A funded vault with a blocked transfer, pending since a minute before the clock's now. */
  seed(options?: SeededOverrideOptions): Promise<SeededOverride>;
  /** A POST to the file app. */
  post(url: string, payload: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** A POST carrying `wallet`'s auth headers, its message bound to this very request (Blinks host). */
  postSigned(
    url: string,
    payload: unknown,
    wallet: TestWallet,
    options?: { timestampMs?: number },
  ): Promise<LightMyRequestResponse>;
}

/** The Domain line of messages signed for the Blink tests' app. */
const BLINKS_DOMAIN = new URL(BLINKS_BASE_URL).host;

/**
 * Registers the file's hooks: the database, the fake validator and one app (PUBLIC_BASE_URL the Blinks host,
 * rate limits off, `env` added) for the file; `seed` adds its options under each seed's.
 */
export function useBlinkApps(
  options: { env?: Record<string, string>; seed?: SeededOverrideOptions } = {},
): BlinkApps {
  const clock: TestClock = { nowMs: Date.now(), now: () => new Date(clock.nowMs) };
  const apps = useTestApps({
    chain: true,
    fileApp: true,
    clock,
    env: { PUBLIC_BASE_URL: BLINKS_BASE_URL, RATE_LIMIT_ENABLED: 'false', ...options.env },
  });
  beforeEach(() => {
    clock.nowMs = Date.now();
  });
  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    apps.app.inject({ method: 'POST', url, payload: payload as object, headers });
  return {
    apps,
    clock,
    seed: (more = {}) =>
      seedOverride(
        { fake: apps.chain, db: apps.db, nowMs: clock.nowMs, publicBaseUrl: BLINKS_BASE_URL },
        { ...options.seed, ...more },
      ),
    post,
    postSigned: (url, payload, wallet, { timestampMs } = {}) => {
      const request = { method: 'POST', path: url, body: payload, domain: BLINKS_DOMAIN };
      return post(
        url,
        payload,
        wallet.authHeaders({ request, ...(timestampMs === undefined ? {} : { timestampMs }) }),
      );
    },
  };
}

export function assertActionHeaders(res: LightMyRequestResponse, label = `${res.statusCode}`): void {
  const h = res.headers;
  assert.equal(h['access-control-allow-origin'], '*', label);
  assert.equal(h['access-control-allow-methods'], 'GET,POST,PUT,OPTIONS', label);
  assert.equal(
    h['access-control-allow-headers'],
    'Content-Type, Authorization, Content-Encoding, Accept-Encoding, X-Accept-Action-Version, X-Accept-Blockchain-Ids, X-Wallet-Address, X-Signature, X-Message',
    label,
  );
  assert.equal(h['access-control-expose-headers'], 'X-Action-Version, X-Blockchain-Ids', label);
  assert.equal(h['x-action-version'], '2.4', label);
  assert.equal(h['x-blockchain-ids'], DEVNET_ID, label);
}

/** The Action error envelope: status, code, `message` as a wallet shows it, and the Action headers. */
export function assertActionError(
  res: LightMyRequestResponse,
  status: number,
  code: string,
): Record<string, unknown> {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json();
  assert.equal(body.code, code);
  assert.equal(typeof body.error, 'string');
  // A wallet shows only `message`: for invalid input it names the first wrong field.
  assert.equal(body.message, body.error);
  const first = (body.details as { issues?: { path: string; message: string }[] }).issues?.[0];
  if (code === 'VALIDATION_ERROR' && first !== undefined) {
    const field = first.path.replace(/^(body|query|params)\./, '');
    assert.equal(body.error, `${field}: ${first.message}`);
  }
  assert.equal(typeof body.details, 'object');
  assertActionHeaders(res, `${status} ${code}`);
  return body;
}

export async function findOverride(db: Database, id: string) {
  const [row] = await db.select().from(overrides).where(eq(overrides.id, id));
  return row!;
}

export async function findBlinkOrNull(db: Database, overrideId: string) {
  const [row] = await db.select().from(blinks).where(eq(blinks.overrideId, overrideId));
  return row ?? null;
}

export async function findBlink(db: Database, overrideId: string) {
  const row = await findBlinkOrNull(db, overrideId);
  assert.ok(row, 'the override has a Blink record');
  return row;
}
