import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { toJson } from '../../src/chain/program-events.js';
import { rebuildDailyMetrics } from '../../src/domain/analytics/daily-metrics-rebuild.js';
import { chainEvents, type VaultRow } from '../../src/storage/schema/index.js';
import {
  ExpectedDays,
  expectedDestinations,
  readStoredDays,
  readStoredDestinations,
} from '../support/analytics-oracle.js';
import { createOverride, createVault, randomAddress, randomSignature } from '../support/factories.js';
import { useTestApps } from '../support/test-apps.js';

const apps = useTestApps();

describe('daily metrics rebuild from the event log', () => {
  interface Event {
    vault: VaultRow | string;
    name: string;
    data: Record<string, unknown>;
    at: string;
    failed?: boolean;
    instruction?: string;
  }
  async function storeEvents(events: Event[]): Promise<void> {
    let slot = 1;
    for (const event of events) {
      const vaultAddress = typeof event.vault === 'string' ? event.vault : event.vault.address;
      await apps.db.insert(chainEvents).values({
        signature: randomSignature(),
        eventIndex: 0,
        slot: slot++,
        blockTime: new Date(event.at),
        name: event.name,
        instruction: event.instruction ?? null,
        vaultAddress,
        data: toJson({ vault: vaultAddress, ...event.data }),
        transactionFailed: event.failed ?? false,
      });
    }
  }

  test('recomputes the range from chain events: transfers, blocks, override lifecycle, failed transactions', async () => {
    const [a, b] = [await createVault(apps.db), await createVault(apps.db)];
    const [d1, d2] = [randomAddress(), randomAddress()];
    const executed = (
      vault: VaultRow,
      amount: bigint,
      destination: string,
      at: string,
      extra: Partial<Event> = {},
    ) => ({
      vault,
      name: 'TransactionExecuted',
      at,
      data: { amount, destination, feeCollected: amount / 10n, newBalance: 0n, spentToday: amount },
      ...extra,
    });
    await storeEvents([
      executed(a, 100n, d1, '2026-12-01T00:00:00.000Z'),
      executed(a, 200n, d2, '2026-12-01T23:59:59.999Z'),
      executed(b, 50n, d1, '2026-12-02T10:00:00.000Z'),
      executed(a, 999n, d1, '2026-12-02T10:00:00.000Z', { failed: true }), // a failed transfer moved nothing
      executed(b, 70n, d2, '2026-12-03T09:00:00.000Z', { instruction: 'ExecuteApprovedOverride' }),
      {
        vault: a,
        name: 'TransactionBlocked',
        at: '2026-12-02T08:00:00.000Z',
        failed: true,
        data: { reason: 'exceeded_daily_limit', amount: 500n, destination: d1, overrideNonce: 4n },
      },
      {
        vault: a,
        name: 'TransactionBlocked',
        at: '2026-12-02T09:00:00.000Z',
        failed: true,
        data: { reason: 'not_whitelisted', amount: 30n, destination: d2, overrideNonce: null },
      },
      // The owner's create_override of the same nonce is the same override: requested once.
      {
        vault: a,
        name: 'OverrideCreated',
        at: '2026-12-03T08:00:00.000Z',
        data: { nonce: 4n, amount: 500n, destination: d1, expiresAt: 0n },
      },
      {
        vault: b,
        name: 'OverrideCreated',
        at: '2026-12-03T08:30:00.000Z',
        data: { nonce: 9n, amount: 70n, destination: d2, expiresAt: 0n },
      },
      {
        vault: a,
        name: 'OverrideApproved',
        at: '2026-12-03T08:01:00.000Z',
        data: { nonce: 4n, timestamp: 0n },
      },
      {
        vault: randomAddress(),
        name: 'TransactionExecuted',
        at: '2026-12-01T12:00:00.000Z',
        data: { amount: 1n, destination: d1, feeCollected: 0n, newBalance: 0n, spentToday: 1n },
      },
      executed(a, 1_000n, d1, '2026-12-10T12:00:00.000Z'), // outside the rebuilt range
    ]);
    await createOverride(apps.db, {
      vault: b,
      nonce: 9n,
      status: 'rejected',
      createdAt: new Date('2026-12-03T08:30:00.000Z'),
      rejectedAt: new Date('2026-12-03T20:00:00.000Z'),
    });
    // A stale row inside the range is replaced; one outside it is left alone.
    await apps.db.execute(sql`insert into daily_metrics (vault_key, day, executed_count) values
      (${a.id}, '2026-12-03', 42), (${a.id}, '2026-12-20', 7)`);

    await rebuildDailyMetrics(apps.db, { from: '2026-12-01', to: '2026-12-03' });

    const expected = new ExpectedDays();
    const on = (iso: string) => new Date(iso);
    for (const [vault, amount, at] of [
      [a, 100n, '2026-12-01'],
      [a, 200n, '2026-12-01'],
      [b, 50n, '2026-12-02'],
      [b, 70n, '2026-12-03'],
    ] as const) {
      expected.add(vault.id, on(at), 'executed_count');
      expected.add(vault.id, on(at), 'executed_volume', amount);
      expected.add(vault.id, on(at), 'fees', amount / 10n);
    }
    expected.add(b.id, on('2026-12-03'), 'overrides_executed');
    for (const amount of [500n, 30n]) {
      expected.add(a.id, on('2026-12-02'), 'blocked_count');
      expected.add(a.id, on('2026-12-02'), 'blocked_volume', amount);
    }
    expected.add(a.id, on('2026-12-02'), 'overrides_requested');
    expected.add(b.id, on('2026-12-03'), 'overrides_requested');
    expected.add(a.id, on('2026-12-03'), 'overrides_approved');
    expected.add(b.id, on('2026-12-03'), 'overrides_rejected');
    const stored = await readStoredDays(apps.storage);
    assert.equal(stored[`${a.id}|2026-12-20`]?.executed_count, '7');
    delete stored[`${a.id}|2026-12-20`];
    assert.deepEqual(stored, expected.toObject());
    const transfers = [
      { vaultId: a.id, destination: d1, amount: 100n, at: on('2026-12-01') },
      { vaultId: a.id, destination: d2, amount: 200n, at: on('2026-12-01') },
      { vaultId: b.id, destination: d1, amount: 50n, at: on('2026-12-02') },
      { vaultId: b.id, destination: d2, amount: 70n, at: on('2026-12-03') },
    ];
    assert.deepEqual(
      await readStoredDestinations(apps.storage, 'daily'),
      expectedDestinations(transfers, 'day'),
    );
    assert.deepEqual(
      await readStoredDestinations(apps.storage, 'blocks'),
      expectedDestinations(transfers, 'blocks'),
    );
  });

  test('rejects a range whose days are malformed or inverted', async () => {
    const invalid = (path: string) => (error: unknown) => {
      const { code, details } = error as { code: string; details: { issues: { path: string }[] } };
      return code === 'VALIDATION_ERROR' && details.issues[0]?.path === path;
    };
    await assert.rejects(
      rebuildDailyMetrics(apps.db, { from: '2026-12-05', to: '2026-12-01' }),
      invalid('from'),
    );
    await assert.rejects(
      rebuildDailyMetrics(apps.db, { from: '2026-12-32', to: '2026-12-01' }),
      invalid('from'),
    );
    await assert.rejects(rebuildDailyMetrics(apps.db, { from: '2026-12-01', to: '2026-1-2' }), invalid('to'));
  });
});
