import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createMemoryCache } from '../../src/cache/index.js';
import { runDailyMetricsRollup } from '../../src/domain/analytics/daily-metrics-rollup.js';
import { MAX_BLOCK_LEVEL } from '../../src/domain/analytics/day-blocks.js';
import {
  markDailyMetricsDirty,
  markDailyMetricsDirtyRange,
} from '../../src/domain/analytics/metrics-dirty.js';
import { createCacheCleanupJob } from '../../src/jobs/cache-cleanup.js';
import { createMetricsRollupJob } from '../../src/jobs/metrics-rollup.js';
import { runScheduledJobs } from '../../src/jobs/scheduler.js';
import { createMetrics } from '../../src/lib/metrics.js';
import { actionNonces } from '../../src/storage/schema/index.js';
import {
  createRandom,
  ExpectedDays,
  expectedDestinations,
  readStoredDays,
  readStoredDestinations,
} from '../support/analytics-oracle.js';
import {
  createOverride,
  createTransaction,
  createVault,
  executePendingTransaction,
  randomAddress,
  randomSignature,
} from '../support/factories.js';
import { useTestApps } from '../support/test-apps.js';
import { waitFor } from '../support/wait.js';

const apps = useTestApps();

describe('daily metrics rollup', () => {
  test('recomputes every figure of each dirty vault day and global day from transactions and overrides', async () => {
    const expected = new ExpectedDays();
    const executed: { vaultId: string; destination: string; amount: bigint; at: Date }[] = [];
    const random = createRandom(7);
    const vaults = [await createVault(apps.db), await createVault(apps.db)];
    const destinations = [randomAddress(), randomAddress(), randomAddress()];
    const start = Date.parse('2026-12-25T00:00:00.000Z');
    const at = () => new Date(start + Math.floor(random() * 12 * 86_400_000));
    for (let i = 0; i < 80; i++) {
      const vault = vaults[i % 2]!;
      const status = (['executed', 'blocked', 'pending'] as const)[Math.floor(random() * 3)]!;
      const amount = BigInt(1 + Math.floor(random() * 1_000)) * 1_000_000n;
      const destination = destinations[Math.floor(random() * 3)]!;
      const timestamp = at();
      const fee = status === 'executed' ? amount / 100n : null;
      await createTransaction(apps.db, { vault, status, amount, destination, timestamp, feeCollected: fee });
      await markDailyMetricsDirty(apps.db, vault.id, timestamp, status === 'executed' ? [destination] : []);
      if (status === 'executed') {
        expected.add(vault.id, timestamp, 'executed_count');
        expected.add(vault.id, timestamp, 'executed_volume', amount);
        expected.add(vault.id, timestamp, 'fees', fee!);
        executed.push({ vaultId: vault.id, destination, amount, at: timestamp });
      } else if (status === 'blocked') {
        expected.add(vault.id, timestamp, 'blocked_count');
        expected.add(vault.id, timestamp, 'blocked_volume', amount);
      }
    }
    for (let i = 0; i < 12; i++) {
      const vault = vaults[i % 2]!;
      const [createdAt, decidedAt] = [at(), at()].sort((a, b) => a.getTime() - b.getTime()) as [Date, Date];
      const outcome = (['pending', 'approved', 'rejected', 'executed'] as const)[i % 4]!;
      await createOverride(apps.db, {
        vault,
        createdAt,
        status: outcome,
        ...(outcome === 'approved' || outcome === 'executed' ? { approvedAt: decidedAt } : {}),
        ...(outcome === 'rejected' ? { rejectedAt: decidedAt } : {}),
        ...(outcome === 'executed' ? { executedAt: decidedAt } : {}),
      });
      for (const day of [createdAt, decidedAt]) await markDailyMetricsDirty(apps.db, vault.id, day);
      expected.add(vault.id, createdAt, 'overrides_requested');
      if (outcome === 'approved' || outcome === 'executed')
        expected.add(vault.id, decidedAt, 'overrides_approved');
      if (outcome === 'rejected') expected.add(vault.id, decidedAt, 'overrides_rejected');
      if (outcome === 'executed') expected.add(vault.id, decidedAt, 'overrides_executed');
    }

    const result = await runDailyMetricsRollup(apps.db, { batchSize: 5 });
    assert.ok(result.recomputed > 0);
    assert.deepEqual(await readStoredDays(apps.storage), expected.toObject());
    assert.deepEqual(
      await readStoredDestinations(apps.storage, 'daily'),
      expectedDestinations(executed, 'day'),
    );
    assert.deepEqual(
      await readStoredDestinations(apps.storage, 'blocks'),
      expectedDestinations(executed, 'blocks'),
    );
    const [dirty] = await apps.storage.rows<{ n: number }>(
      sql`select count(*)::int as n from daily_metrics_dirty`,
    );
    assert.equal(dirty?.n, 0);

    // Idempotent: recomputing the whole range again changes nothing.
    await markDailyMetricsDirtyRange(apps.db, '2026-12-20', '2027-01-10');
    await runDailyMetricsRollup(apps.db);
    assert.deepEqual(await readStoredDays(apps.storage), expected.toObject());
    assert.deepEqual(
      await readStoredDestinations(apps.storage, 'blocks'),
      expectedDestinations(executed, 'blocks'),
    );
  });

  test('moves a pending transfer to the day it executed, and drops a day left without activity', async () => {
    const vault = await createVault(apps.db);
    const approvedAt = new Date('2026-12-30T22:00:00.000Z');
    const pending = await createTransaction(apps.db, {
      vault,
      status: 'pending',
      amount: 70n,
      timestamp: approvedAt,
    });
    await createTransaction(apps.db, { vault, status: 'blocked', amount: 70n, timestamp: approvedAt });
    await markDailyMetricsDirty(apps.db, vault.id, approvedAt);
    await runDailyMetricsRollup(apps.db);
    const executedAt = new Date('2027-01-02T01:00:00.000Z');
    await executePendingTransaction(apps.db, pending, { timestamp: executedAt, feeCollected: 1n });
    await markDailyMetricsDirty(apps.db, vault.id, executedAt);
    await apps.db.execute(sql`delete from transactions where status = 'blocked'`);
    await markDailyMetricsDirty(apps.db, vault.id, approvedAt);
    await runDailyMetricsRollup(apps.db);
    const days = await readStoredDays(apps.storage);
    assert.deepEqual(Object.keys(days).sort(), [`*|2027-01-02`, `${vault.id}|2027-01-02`].sort());
    assert.equal(days[`${vault.id}|2027-01-02`]?.executed_volume, '70');
    assert.equal(days[`${vault.id}|2027-01-02`]?.fees, '1');
  });

  test('a change committed while a rollup runs keeps its day dirty and is counted by the next run', async () => {
    const vault = await createVault(apps.db);
    const day = new Date('2026-12-15T12:00:00.000Z');
    await createTransaction(apps.db, { vault, amount: 10n, timestamp: day });
    await markDailyMetricsDirty(apps.db, vault.id, day);
    const pool = apps.storage.pool;
    if (pool !== null) {
      // Ingestion holds its transaction open (row written, day marked) while the rollup runs.
      const client = await pool.connect();
      try {
        await client.query('begin');
        await client.query(
          `insert into transactions (vault_id, signature, event_index, destination, amount, status, timestamp)
           values ($1, $2, 0, $3, 5, 'executed', $4)`,
          [vault.id, randomSignature(), randomAddress(), day.toISOString()],
        );
        await client.query(
          `insert into daily_metrics_dirty (vault_key, day) values ($1, '2026-12-15'), ('*', '2026-12-15')
           on conflict (vault_key, day) do update set marked_at = now()`,
          [vault.id],
        );
        await runDailyMetricsRollup(apps.db);
        await client.query('commit');
      } finally {
        client.release();
      }
    } else {
      // PGlite runs one transaction at a time: the commit can only fall after the rollup.
      await runDailyMetricsRollup(apps.db);
      await createTransaction(apps.db, { vault, amount: 5n, timestamp: day });
      await markDailyMetricsDirty(apps.db, vault.id, day);
    }
    const [marks] = await apps.storage.rows<{ n: number }>(
      sql`select count(*)::int as n from daily_metrics_dirty where day = '2026-12-15'`,
    );
    assert.equal(marks?.n, 2);
    await runDailyMetricsRollup(apps.db);
    const days = await readStoredDays(apps.storage);
    assert.equal(days[`${vault.id}|2026-12-15`]?.executed_volume, '15');
    assert.equal(days['*|2026-12-15']?.executed_volume, '15');
  });

  test("rewrites only the marked destinations of a day, so a busy day's rollup costs what changed", async () => {
    const vault = await createVault(apps.db);
    const at = new Date('2026-12-10T09:00:00.000Z');
    const [quiet, busy] = [randomAddress(), randomAddress()];
    for (const destination of [quiet, busy, ...Array.from({ length: 20 }, () => randomAddress())]) {
      await createTransaction(apps.db, { vault, amount: 10n, destination, timestamp: at });
      await markDailyMetricsDirty(apps.db, vault.id, at, [destination]);
    }
    await runDailyMetricsRollup(apps.db);
    const rowsOf = async (destination: string) =>
      apps.storage.rows<{ level: number; n: number }>(
        sql`select 0 as level, executed_count as n from daily_destination_metrics
              where vault_key = ${vault.id} and destination = ${destination}
            union all
            select level, executed_count as n from destination_block_metrics
              where vault_key = ${vault.id} and destination = ${destination}
            order by level`,
      );
    assert.deepEqual(
      (await rowsOf(quiet)).map((r) => r.n),
      Array(11).fill(1),
      'a day row and a block row per level',
    );
    // A doctored figure of the quiet destination shows whether a later rollup rewrote it.
    await apps.db.execute(sql`update destination_block_metrics set executed_count = 99
      where vault_key = ${vault.id} and destination = ${quiet} and level = 4`);
    await createTransaction(apps.db, { vault, amount: 5n, destination: busy, timestamp: at });
    await markDailyMetricsDirty(apps.db, vault.id, at, [busy]);
    await runDailyMetricsRollup(apps.db);
    assert.deepEqual(
      (await rowsOf(busy)).map((r) => r.n),
      Array(11).fill(2),
    );
    assert.equal((await rowsOf(quiet))[4]?.n, 99, 'the unmarked destination was not rewritten');
    const [global] = await apps.storage.rows<{ n: number }>(
      sql`select executed_count as n from destination_block_metrics
        where vault_key = '*' and destination = ${busy} and level = ${MAX_BLOCK_LEVEL}`,
    );
    assert.equal(global?.n, 2);
    // Marked, it is recomputed from the transactions again.
    await markDailyMetricsDirty(apps.db, vault.id, at, [quiet]);
    await runDailyMetricsRollup(apps.db);
    assert.deepEqual(
      (await rowsOf(quiet)).map((r) => r.n),
      Array(11).fill(1),
    );
    const [marks] = await apps.storage.rows<{ n: number }>(
      sql`select count(*)::int as n from destination_metrics_dirty`,
    );
    assert.equal(marks?.n, 0);
  });

  test('a destination mark left without its day is still claimed, and one whose day waits stays', async () => {
    const vault = await createVault(apps.db);
    const [first, second] = [new Date('2026-12-11T09:00:00.000Z'), new Date('2026-12-12T09:00:00.000Z')];
    const [a, b] = [randomAddress(), randomAddress()];
    await createTransaction(apps.db, { vault, amount: 7n, destination: a, timestamp: first });
    await createTransaction(apps.db, { vault, amount: 8n, destination: b, timestamp: second });
    await apps.db.execute(sql`insert into destination_metrics_dirty (vault_key, day, destination)
      values (${vault.id}, '2026-12-11', ${a}), (${vault.id}, '2026-12-12', ${b})`);
    await apps.db.execute(
      sql`insert into daily_metrics_dirty (vault_key, day) values (${vault.id}, '2026-12-12')`,
    );
    // A batch of one day claims 2026-12-12 with its destination, and the orphaned mark of 2026-12-11.
    const result = await runDailyMetricsRollup(apps.db, { batchSize: 1 });
    assert.equal(result.recomputed, 1);
    const rows = await apps.storage.rows<{ day: string; destination: string; n: number }>(
      sql`select day::text as day, destination, executed_count as n from daily_destination_metrics
        where vault_key = ${vault.id} order by day`,
    );
    assert.deepEqual(rows, [
      { day: '2026-12-11', destination: a, n: 1 },
      { day: '2026-12-12', destination: b, n: 1 },
    ]);
  });

  test('drops a mark whose key names neither a vault nor the global row', async () => {
    await apps.db.execute(
      sql`insert into daily_metrics_dirty (vault_key, day) values ('garbage', '2026-12-01')`,
    );
    const result = await runDailyMetricsRollup(apps.db);
    assert.equal(result.recomputed, 1);
    assert.deepEqual(await readStoredDays(apps.storage), {});
  });
});

describe('worker jobs', () => {
  const quiet = { info() {}, debug() {}, error() {} };

  test('the scheduler repeats a job after each interval, survives a failing run, and ends on abort', async () => {
    const controller = new AbortController();
    const metrics = createMetrics();
    const failures: unknown[] = [];
    let runs = 0;
    const job = {
      name: 'flaky',
      intervalMs: 1,
      async run() {
        runs += 1;
        if (runs === 2) throw new Error('boom');
      },
    };
    const done = runScheduledJobs(
      [job],
      { logger: { ...quiet, error: (o: unknown) => failures.push(o) }, metrics },
      controller.signal,
    );
    await waitFor(() => runs >= 4, { message: 'job ran four times' });
    controller.abort();
    await done;
    const counts = Object.fromEntries(
      (await metrics.jobRuns.get()).values.map((v) => [v.labels.outcome, v.value]),
    );
    assert.equal(failures.length, 1);
    assert.equal(counts.error, 1);
    assert.equal(counts.ok, runs - 1);
  });

  test('the rollup job drains every dirty day and counts what it recomputed', async () => {
    const vault = await createVault(apps.db);
    for (const day of ['2026-12-01', '2026-12-02', '2026-12-03']) {
      const at = new Date(`${day}T10:00:00.000Z`);
      await createTransaction(apps.db, { vault, amount: 5n, timestamp: at });
      await markDailyMetricsDirty(apps.db, vault.id, at);
    }
    const metrics = createMetrics();
    const job = createMetricsRollupJob({ storage: apps.storage, logger: quiet, metrics }, { batchSize: 2 });
    await job.run(new AbortController().signal);
    const [dirty] = await apps.storage.rows<{ n: number }>(
      sql`select count(*)::int as n from daily_metrics_dirty`,
    );
    assert.equal(dirty?.n, 0);
    assert.equal((await metrics.dailyMetricsRecomputed.get()).values[0]?.value, 6);
    assert.equal(Object.keys(await readStoredDays(apps.storage)).length, 6);
  });

  test('the cache cleanup job deletes expired action nonces, keeps live ones, and purges the memory cache', async () => {
    const now = new Date('2026-12-01T12:00:00.000Z');
    let nowMs = 1_000_000;
    const cache = createMemoryCache({ now: () => nowMs });
    await cache.set('short', 1, 1);
    await cache.set('long', 2, 600);
    const vault = await createVault(apps.db);
    const override = await createOverride(apps.db, { vault });
    const nonce = (name: string, expiresAt: string) => ({
      nonce: name,
      overrideId: override.id,
      account: vault.authority,
      expiresAt: new Date(expiresAt),
    });
    await apps.db
      .insert(actionNonces)
      .values([nonce('expired', '2026-12-01T11:59:59.999Z'), nonce('live', '2026-12-01T12:05:00.000Z')]);
    nowMs += 2_000;
    const reported: Record<string, number>[] = [];
    const job = createCacheCleanupJob({
      db: apps.db,
      cache,
      clock: { now: () => now },
      logger: { debug: (o: Record<string, number>) => reported.push(o) },
      auditRetentionDays: 400,
    });
    await job.run(new AbortController().signal);
    const left = await apps.db.select({ nonce: actionNonces.nonce }).from(actionNonces);
    assert.deepEqual(
      left.map((r) => r.nonce),
      ['live'],
    );
    assert.deepEqual(reported, [{ purged: 1, nonces: 1 }]);
    assert.equal(await cache.get('long'), 2);
  });
});
