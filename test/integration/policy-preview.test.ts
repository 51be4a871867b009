// POST /api/vaults/:address/policy-preview: the vault's attempts of the period replayed under a proposed
// policy, against a replay computed by hand; validation; the 100-change cap.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createVaultkeeperClient, VaultkeeperError } from '@vaultkeeper/client';
import type { VaultRow } from '../../src/storage/schema/index.js';
import { createOverride, createTransaction, createVault, randomAddress } from '../support/factories.js';
import { useTestApps } from '../support/test-apps.js';

const SOL = 1_000_000_000n;
const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-27T12:00:00.000Z');
const T0 = NOW - 10 * 24 * HOUR;
const A = randomAddress();
const B = randomAddress();
const C = randomAddress();

let vault: VaultRow;
const signatures: Record<string, string> = {};

const preview = (address: string, payload: unknown) =>
  world.app.inject({
    method: 'POST',
    url: `/api/vaults/${address}/policy-preview`,
    payload: payload as object,
  });

const world = useTestApps({
  clock: { now: () => new Date(NOW) },
  fileApp: {
    setUp: async (_app, apps) => {
      const db = apps.db;
      vault = await createVault(db, { dailyLimit: 10n * SOL });
      const at = (hours: number) => new Date(T0 + hours * HOUR);
      const add = async (
        name: string,
        hours: number,
        destination: string,
        sol: bigint,
        status: 'executed' | 'blocked',
        blockReason: string | null = null,
      ) => {
        const row = await createTransaction(db, {
          vault,
          timestamp: at(hours),
          destination,
          amount: sol * SOL,
          status,
          blockReason,
        });
        signatures[name] = row.signature!;
      };
      // Long before the period: never replayed.
      await add('old', -24 * 40, A, 9n, 'executed');
      // The period (hand-computed below): a 10 SOL limit, no whitelist.
      await add('a', 0, A, 4n, 'executed');
      await add('b', 1, B, 5n, 'executed');
      await add('c', 2, A, 3n, 'blocked', 'exceeded_daily_limit');
      const override = await createOverride(db, {
        vault,
        destination: A,
        amount: 3n * SOL,
        status: 'executed',
      });
      const executedOverride = await createTransaction(db, {
        vault,
        override,
        timestamp: at(3),
        destination: A,
        amount: 3n * SOL,
        status: 'executed',
      });
      signatures.override = executedOverride.signature!;
      await add('d', 24, B, 6n, 'executed');
      await add('e', 26, C, 1n, 'blocked', 'insufficient_funds');
      // A pending transfer (approved, not yet executed) is no attempt; another vault's rows are not this one's.
      await createTransaction(db, {
        vault,
        timestamp: at(27),
        destination: A,
        amount: 50n * SOL,
        status: 'pending',
      });
      const other = await createVault(db, { dailyLimit: 10n * SOL });
      await createTransaction(db, { vault: other, timestamp: at(5), destination: A, amount: 9n * SOL });
    },
  },
  emptyEachTest: false,
});

describe('policy preview', () => {
  test('the policy as it is: nothing would change', async () => {
    const response = await preview(vault.address, { dailyLimit: '10000000000' });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.vault, vault.address);
    assert.deepEqual(body.period, {
      start: new Date(NOW - 30 * 24 * HOUR).toISOString(),
      end: new Date(NOW).toISOString(),
    });
    assert.deepEqual(body.current, { dailyLimit: '10000000000', whitelist: [] });
    assert.deepEqual(body.changes, []);
    assert.equal(body.summary.attempts, 6);
    assert.equal(body.summary.executedUnderProposal, 4);
    assert.equal(body.truncated, false);
    assert.equal(response.headers['cache-control'], 'no-store');
  });

  test('a lower limit: the second transfer is newly blocked, the blocked one newly allowed', async () => {
    const body = (await preview(vault.address, { dailyLimit: Number(8n * SOL) })).json();
    assert.deepEqual(body.proposed, { dailyLimit: '8000000000', whitelist: [] });
    assert.deepEqual(
      body.changes.map((c: Record<string, unknown>) => [
        c.signature,
        c.was,
        c.wasReason,
        c.would,
        c.wouldReason,
      ]),
      [
        [signatures.b, 'executed', null, 'blocked', 'exceeded_daily_limit'],
        [signatures.c, 'blocked', 'exceeded_daily_limit', 'executed', null],
      ],
    );
    assert.deepEqual(body.changes[0], {
      signature: signatures.b,
      timestamp: new Date(T0 + HOUR).toISOString(),
      destination: B,
      amount: '5000000000',
      was: 'executed',
      wasReason: null,
      would: 'blocked',
      wouldReason: 'exceeded_daily_limit',
    });
    assert.deepEqual(body.summary, {
      attempts: 6,
      newlyBlocked: 1,
      newlyAllowed: 1,
      newlyBlockedVolume: '5000000000',
      newlyAllowedVolume: '3000000000',
      blockedUnderProposal: 2,
      executedUnderProposal: 4,
    });
  });

  test('a tighter whitelist: other destinations are newly blocked; the override still executes', async () => {
    const body = (await preview(vault.address, { whitelist: [A] })).json();
    assert.deepEqual(body.proposed, { dailyLimit: '10000000000', whitelist: [A] });
    assert.deepEqual(
      body.changes.map((c: Record<string, unknown>) => [c.signature, c.would, c.wouldReason]),
      [
        [signatures.b, 'blocked', 'not_whitelisted'],
        [signatures.c, 'executed', null],
        [signatures.d, 'blocked', 'not_whitelisted'],
      ],
    );
    assert.equal(body.summary.newlyBlockedVolume, '11000000000');
  });

  test('since 90 days back, computed a moment ago, starts the period exactly 90 days back', async () => {
    const response = await preview(vault.address, {
      whitelist: [],
      since: new Date(NOW - 90 * 24 * HOUR - 5_000).toISOString(),
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().period.start, new Date(NOW - 90 * 24 * HOUR).toISOString());
    assert.equal(response.json().summary.attempts, 7, 'the row 40 days back is in the period');
  });

  test('since narrows the period', async () => {
    const body = (
      await preview(vault.address, { whitelist: [A], since: new Date(T0 + 20 * HOUR).toISOString() })
    ).json();
    assert.equal(body.summary.attempts, 2);
    assert.deepEqual(
      body.changes.map((c: Record<string, unknown>) => c.signature),
      [signatures.d],
    );
  });

  test('bad input is a 400 naming the field; an unknown vault is a 404', async () => {
    const cases: [unknown, string][] = [
      [{}, 'dailyLimit'],
      [{ since: new Date(T0).toISOString() }, 'dailyLimit'],
      [{ dailyLimit: 0 }, 'dailyLimit'],
      [{ dailyLimit: '18446744073709551616' }, 'dailyLimit'],
      [{ whitelist: ['not-an-address'] }, 'whitelist'],
      [{ whitelist: [A, A] }, 'whitelist'],
      [{ whitelist: Array.from({ length: 21 }, randomAddress) }, 'whitelist'],
      [{ whitelist: [], since: new Date(NOW - 91 * 24 * HOUR).toISOString() }, 'since'],
      [{ whitelist: [], since: new Date(NOW + HOUR).toISOString() }, 'since'],
      [{ whitelist: [], since: 'yesterday' }, 'since'],
      [{ whitelist: [], surprise: 1 }, 'surprise'],
    ];
    for (const [payload, field] of cases) {
      const response = await preview(vault.address, payload);
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      const body = response.json();
      assert.equal(body.code, 'VALIDATION_ERROR');
      assert.match(body.error, new RegExp(field), JSON.stringify(payload));
    }
    const unknown = await preview(randomAddress(), { whitelist: [] });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().code, 'VAULT_NOT_FOUND');
  });

  test('the client package: vaults.policyPreview', async () => {
    const baseUrl = await world.app.listen({ port: 0, host: '127.0.0.1' });
    const client = createVaultkeeperClient({ baseUrl });
    const body = await client.vaults.policyPreview(vault.address, { dailyLimit: 8_000_000_000 });
    assert.equal(body.summary.newlyBlocked, 1);
    assert.equal(body.changes[0]?.signature, signatures.b);
    const error = await client.vaults.policyPreview(vault.address, {}).catch((e: unknown) => e);
    assert.ok(error instanceof VaultkeeperError);
    assert.equal(error.code, 'VALIDATION_ERROR');
  });

  test('at most 100 changes are listed, oldest first, and the summary counts them all', async () => {
    const db = world.storage.db;
    const busy = await createVault(db, { dailyLimit: 1_000n * SOL });
    for (let i = 0; i < 130; i += 1) {
      await createTransaction(db, {
        vault: busy,
        timestamp: new Date(T0 + i * 60_000),
        destination: B,
        amount: SOL,
      });
    }
    const body = (await preview(busy.address, { whitelist: [A] })).json();
    assert.equal(body.changes.length, 100);
    assert.equal(body.truncated, true);
    assert.equal(body.summary.newlyBlocked, 130);
    assert.equal(body.changes[0].timestamp, new Date(T0).toISOString());
    assert.equal(body.changes[99].timestamp, new Date(T0 + 99 * 60_000).toISOString());
  });
});
