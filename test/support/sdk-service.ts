// @vaultkeeper/client's counterpart: the service on a real socket on 127.0.0.1 (its ingestor on the fake
// validator, a fresh one per test), the requests the socket saw, and an optional stand-in answer.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach } from 'node:test';
import type { Address } from '@solana/kit';
import { type ClientOptions, createVaultkeeperClient, VaultkeeperError } from '@vaultkeeper/client';
import type { TestWallet } from '../../dev/support/wallet.js';
import { buildApp } from '../../src/app.js';
import { type IngestionHarness, SOL, useIngestionHarness } from './ingestion-harness.js';
import { waitForSignatures } from './wait.js';

export type Intercept = (req: IncomingMessage, res: ServerResponse, index: number) => boolean;

export interface SdkService {
  readonly h: IngestionHarness;
  /** The service's URL (set by serve). */
  readonly baseUrl: string;
  /** Requests the socket saw, in order. */
  readonly seen: IncomingMessage[];
  /** Answers in the service's stead when it returns true; reset after each test. */
  intercept: Intercept | null;
  /** The service on 127.0.0.1, PUBLIC_BASE_URL naming its port; rate limits off unless env turns them on. */
  serve(env?: Record<string, string>): Promise<void>;
  clientFor(
    signer?: ClientOptions['signer'],
    options?: Partial<ClientOptions>,
  ): ReturnType<typeof createVaultkeeperClient>;
  /** Three vaults of one owner; the first funded, with 3 executed and 2 blocked transfers ingested. */
  seed(owner: TestWallet): Promise<{
    vault: Address;
    vaults: Address[];
    executed: Awaited<ReturnType<IngestionHarness['fake']['execute']>>[];
    blocked: Awaited<ReturnType<IngestionHarness['fake']['block']>>[];
  }>;
}

/** Registers the calling test file's hooks (the ingestion harness's; the socket and the app close after each test). */
export function useSdkService(): SdkService {
  const h = useIngestionHarness();
  const service: SdkService = {
    h,
    baseUrl: '',
    seen: [],
    intercept: null,
    async serve(env = {}) {
      const origin = await h.world.openOrigin();
      (service as { baseUrl: string }).baseUrl = origin.url;
      await h.startLive({
        PUBLIC_BASE_URL: service.baseUrl,
        RATE_LIMIT_ENABLED: 'false',
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        ...env,
      });
      const app = await buildApp(h.deps);
      await app.ready();
      origin.serve({ app, deps: h.deps }, (req, res) => {
        const index = service.seen.push(req) - 1;
        return Boolean(service.intercept?.(req, res, index));
      });
    },
    clientFor: (signer, options = {}) =>
      createVaultkeeperClient({ baseUrl: service.baseUrl, signer, ...options }),
    async seed(owner) {
      const created = [];
      for (const name of ['Agent budget', 'Second', 'Third']) {
        created.push(
          await h.fake.createVault({ authority: owner.address as Address, dailyLimit: 10n * SOL, name }),
        );
      }
      const vault = created[0]!.vault;
      await h.fake.deposit(vault, 100n * SOL);
      // The owner pays for what they sign (approve is simulated before it is handed out).
      await h.fake.airdrop(owner.address as Address, SOL);
      const executed = [];
      for (let i = 1n; i <= 3n; i += 1n) executed.push(await h.fake.execute(vault, { amount: i * SOL }));
      const blocked = [];
      for (const amount of [20n * SOL, 30n * SOL]) {
        blocked.push(await h.fake.block(vault, { amount, reason: 'exceeded_daily_limit' }));
      }
      await waitForSignatures(
        h.storage.storage,
        [...executed, ...blocked].map((r) => r.signature),
      );
      return { vault, vaults: created.map((c) => c.vault), executed, blocked };
    },
  };
  afterEach(() => {
    service.seen.length = 0;
    service.intercept = null;
  });
  return service;
}

/** The VaultkeeperError the call fails with (the test fails if it succeeds or throws anything else). */
export async function failure(promise: Promise<unknown>): Promise<VaultkeeperError> {
  const error = await promise.then(
    () => assert.fail('the call succeeded'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof VaultkeeperError, String(error));
  return error;
}

export async function collect<T>(iterator: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterator) items.push(item);
  return items;
}
