// The upgrade test's data set, written through a running service's API and the fake validator, and
// every resource of it read back through the API, to compare across versions.
import assert from 'node:assert/strict';
import type { Address } from '@solana/kit';
import { fetchSigned, type TestWallet } from '../../dev/support/wallet.js';
import type { WebhookReceiver } from '../../dev/support/webhook-receiver.js';
import type { FakeValidator } from '../../dev/validator/index.js';
import { randomAddress } from '../../dev/validator/scenarios.js';
import { waitFor } from '../support/wait.js';

const SOL = 1_000_000_000n;
const INGESTED_MS = 120_000;

export interface DataSet {
  readonly owner: TestWallet;
  readonly vaults: readonly Address[];
  /** Subscriptions by receiver path: /ok answers 200, /failing 500 until the upgrade. */
  readonly webhooks: Readonly<Record<'ok' | 'failing', string>>;
  /** The pending Blink's path (a blocked transfer nobody decided). */
  readonly blink: string;
  /** The analytics' days, fixed (the default range ends now, which moves). */
  readonly analyticsRange: string;
}

/** A JSON request signed by the owner's wallet; fails unless the status is one of `expect`. */
export async function call(
  baseUrl: string,
  owner: TestWallet,
  path: string,
  init: { method?: string; body?: unknown; expect?: readonly number[] } = {},
): Promise<unknown> {
  const { method = 'GET', body, expect = [200] } = init;
  const response = await fetchSigned(baseUrl, path, owner, { method, body });
  const text = await response.text();
  assert.ok(expect.includes(response.status), `${method} ${path}: ${response.status} ${text}`);
  return text === '' ? null : JSON.parse(text);
}

const rows = async (baseUrl: string, owner: TestWallet, path: string, field: string) =>
  ((await call(baseUrl, owner, path)) as Record<string, Record<string, unknown>[]>)[field]!;

/**
 * Vaults with transfers, blocked transfers (one override approved and executed on chain, one pending
 * with its Blink, one without an override), alert settings, a renamed vault, API keys (one revoked), and
 * two subscriptions: one whose deliveries succeed and one whose deliveries fail. Returns once the
 * service has ingested every transaction and every delivery has ended.
 */
export async function writeDataSet(
  baseUrl: string,
  fake: FakeValidator,
  owner: TestWallet,
  receiver: WebhookReceiver,
): Promise<DataSet> {
  await fake.airdrop(owner.address as Address, 1000n * SOL);
  const keys = await Promise.all(
    ['upgrade-reader', 'revoked'].map(
      async (name) =>
        (await call(baseUrl, owner, '/api/api-keys', { method: 'POST', body: { name }, expect: [201] })) as {
          id: string;
        },
    ),
  );
  await call(baseUrl, owner, `/api/api-keys/${keys[1]!.id}`, { method: 'DELETE', expect: [200, 204] });
  const events = ['transaction.executed', 'transaction.blocked', 'override.created', 'override.approved'];
  const webhooks = {} as Record<'ok' | 'failing', string>;
  for (const name of ['ok', 'failing'] as const) {
    const body = {
      url: `${receiver.url}/${name}`,
      events: name === 'ok' ? [...events, 'override.executed'] : events,
    };
    webhooks[name] = (
      (await call(baseUrl, owner, '/api/webhooks', { method: 'POST', body, expect: [201] })) as {
        id: string;
      }
    ).id;
  }

  const authority = owner.address as Address;
  const ops = await fake.createVault({ authority, dailyLimit: 5n * SOL, name: 'Upgrade ops' });
  const research = await fake.createVault({ authority, dailyLimit: 2n * SOL, name: 'Upgrade research' });
  await fake.deposit(ops.vault, 100n * SOL);
  await fake.deposit(research.vault, SOL / 2n);
  const vaults = [ops.vault, research.vault];
  for (const vault of vaults) {
    await waitFor(() => call(baseUrl, owner, `/api/vaults/${vault}`).then(() => true), {
      timeoutMs: INGESTED_MS,
      intervalMs: 250,
      message: `vault ${vault} ingested`,
    });
  }
  await call(baseUrl, owner, `/api/vaults/${ops.vault}/alerts`, {
    method: 'PUT',
    body: {
      budgetThresholds: [50, 90],
      velocity: { windowSeconds: 60, maxTransfers: 20 },
      expiryWarningMinutes: 30,
    },
  });
  await call(baseUrl, owner, `/api/vaults/${research.vault}`, {
    method: 'PATCH',
    body: { name: 'Research (renamed)' },
    expect: [200, 202],
  });

  const signatures: string[] = [];
  for (const amount of [SOL / 10n, SOL / 4n, SOL / 2n]) {
    signatures.push((await fake.execute(ops.vault, { amount })).signature);
  }
  signatures.push((await fake.execute(research.vault, { amount: SOL / 5n })).signature);
  // An override approved and executed on chain, then a blocked transfer left pending (its Blink), and
  // one the program blocked without an override.
  const destination = randomAddress();
  const decided = await fake.block(ops.vault, {
    destination,
    amount: 6n * SOL,
    reason: 'exceeded_daily_limit',
  });
  const made = await fake.createOverride(ops.vault, {
    destination,
    amount: 6n * SOL,
    nonce: decided.overrideNonce!,
  });
  const approved = await fake.approveOverride(ops.vault, made.nonce);
  const executed = await fake.executeApprovedOverride(ops.vault, made.nonce);
  const pending = await fake.block(ops.vault, { amount: 7n * SOL, reason: 'exceeded_daily_limit' });
  const unfunded = await fake.block(research.vault, { amount: 3n * SOL, reason: 'insufficient_funds' });
  signatures.push(decided.signature, made.signature, approved.signature, executed.signature);
  signatures.push(pending.signature, unfunded.signature);
  const blink = `/api/actions/${ops.vault}/${pending.overrideNonce}`;
  await waitFor(() => call(baseUrl, owner, blink).then(() => true), {
    timeoutMs: INGESTED_MS,
    intervalMs: 250,
    message: 'the pending Blink',
  });
  await waitFor(
    async () => {
      const listed = await Promise.all(
        vaults.map((vault) =>
          rows(baseUrl, owner, `/api/transactions?vault=${vault}&limit=100`, 'transactions'),
        ),
      );
      return listed.flat().length >= 7;
    },
    { timeoutMs: INGESTED_MS, intervalMs: 250, message: 'the transfers ingested' },
  );
  // Every delivery ended: the failing subscription's exhaust the short retry schedule.
  await waitFor(
    async () => {
      const all = await Promise.all(
        Object.values(webhooks).map((id) =>
          rows(baseUrl, owner, `/api/webhooks/${id}/deliveries?limit=100`, 'deliveries'),
        ),
      );
      const [ok, failing] = all;
      return (
        ok!.length > 0 &&
        failing!.length > 0 &&
        ok!.every((d) => d.status === 'succeeded') &&
        failing!.every((d) => d.status === 'failed')
      );
    },
    { timeoutMs: INGESTED_MS, intervalMs: 250, message: 'every delivery ended' },
  );
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  return { owner, vaults, webhooks, blink, analyticsRange: `startDate=${day(-1)}&endDate=${day(1)}` };
}

/** Every resource of the data set as the API answers it, by path. */
export async function readResources(baseUrl: string, data: DataSet): Promise<Map<string, unknown>> {
  const { owner } = data;
  const read = new Map<string, unknown>();
  const get = async (path: string) => {
    const body = await call(baseUrl, owner, path);
    read.set(path, body);
    return body as Record<string, Record<string, unknown>[]>;
  };
  await get('/api/api-keys');
  const vaultList = await get(`/api/vaults?owner=${owner.address}&limit=100`);
  assert.equal(vaultList.vaults!.length, data.vaults.length);
  for (const vault of data.vaults) {
    // Not /budget: it answers the chain's live account (its slot moves), not stored rows.
    for (const tail of ['', '/alerts']) await get(`/api/vaults/${vault}${tail}`);
    await get(`/api/analytics?vault=${vault}&${data.analyticsRange}`);
    const { transactions } = await get(`/api/transactions?vault=${vault}&limit=100`);
    for (const { id } of transactions!) await get(`/api/transactions/${id}`);
  }
  const { overrides } = await get(`/api/overrides?owner=${owner.address}&limit=100`);
  for (const { vault, nonce } of overrides!) await get(`/api/overrides/${vault}/${nonce}`);
  await get(data.blink);
  const { webhooks } = await get('/api/webhooks?limit=100');
  assert.equal(webhooks!.length, 2);
  for (const id of Object.values(data.webhooks)) {
    await get(`/api/webhooks/${id}`);
    await get(`/api/webhooks/${id}/deliveries?limit=100`);
  }
  return read;
}

/**
 * Every field the old version answered is there with the same value in the new one's answer; fields
 * only the new one has are left aside (and listed). Arrays match element by element.
 */
export function assertKept(before: Map<string, unknown>, after: Map<string, unknown>): string[] {
  const added: string[] = [];
  const walk = (old: unknown, now: unknown, at: string) => {
    if (old !== null && typeof old === 'object' && now !== null && typeof now === 'object') {
      if (Array.isArray(old)) {
        assert.ok(Array.isArray(now), `${at}: no longer a list`);
        assert.equal(
          now.length,
          old.length,
          `${at}: ${old.length} items before the upgrade, ${now.length} after`,
        );
        for (const [i, item] of old.entries()) walk(item, now[i], `${at}[${i}]`);
        return;
      }
      const oldFields = old as Record<string, unknown>;
      const newFields = now as Record<string, unknown>;
      for (const key of Object.keys(newFields)) if (!(key in oldFields)) added.push(`${at}.${key}`);
      for (const [key, value] of Object.entries(oldFields)) {
        assert.ok(key in newFields, `${at}.${key}: gone after the upgrade`);
        walk(value, newFields[key], `${at}.${key}`);
      }
      return;
    }
    assert.deepEqual(
      now,
      old,
      `${at}: ${JSON.stringify(old)} before the upgrade, ${JSON.stringify(now)} after`,
    );
  };
  assert.deepEqual([...after.keys()], [...before.keys()], 'the same resources');
  for (const [path, body] of before) walk(body, after.get(path), path);
  return added;
}
