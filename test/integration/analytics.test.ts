import assert from 'node:assert/strict';
import { before, beforeEach, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { evictVaults } from '../../src/cache/tags.js';
import { runDailyMetricsRollup } from '../../src/domain/analytics/daily-metrics-rollup.js';
import { splitIntoBlocks } from '../../src/domain/analytics/day-blocks.js';
import { markDailyMetricsDirty } from '../../src/domain/analytics/metrics-dirty.js';
import type { Database } from '../../src/storage/database.js';
import type { VaultRow } from '../../src/storage/schema/index.js';
import { createRandom, expectedAnalytics, type OracleTransaction } from '../support/analytics-oracle.js';
import { createTestCache } from '../support/app.js';
import { createTransaction, createVault, randomAddress } from '../support/factories.js';
import { useTestApps } from '../support/test-apps.js';

const NOW = new Date('2027-01-05T12:00:00.000Z');
const DAY = 86_400_000;
const clock = { now: () => NOW };

// Each describe empties the database in its own set-up.
const testStorage = useTestApps({ clock, emptyEachTest: false });
let db: Database;
let app: FastifyInstance; // READ_CACHE=false: every request computes
let cachedApp: FastifyInstance;
const cache = createTestCache();
let rows: OracleTransaction[];
let vaultA: VaultRow;
let vaultB: VaultRow;
let vaultIdle: VaultRow;

before(async () => {
  ({ app } = await testStorage.startForFile({ env: { READ_CACHE: 'false', RATE_LIMIT_ENABLED: 'false' } }));
  ({ app: cachedApp } = await testStorage.startForFile({ cache, env: { RATE_LIMIT_ENABLED: 'false' } }));
  db = testStorage.db;
});

/** Stores a transaction the way ingestion does: the row, and its day (and destination) marked for the rollup. */
async function record(vault: VaultRow, tx: Omit<OracleTransaction, 'vaultId'>): Promise<void> {
  await createTransaction(db, { vault, ...tx });
  await markDailyMetricsDirty(db, vault.id, tx.timestamp, tx.status === 'executed' ? [tx.destination] : []);
  rows.push({ vaultId: vault.id, ...tx });
}

/** ~300 transfers over 2026-11-15 .. today (2027-01-05), shared destinations, exact day edges included. */
async function seed(): Promise<void> {
  rows = [];
  vaultA = await createVault(db);
  vaultB = await createVault(db);
  vaultIdle = await createVault(db);
  const random = createRandom(20270105);
  const destinations = Array.from({ length: 14 }, () => randomAddress());
  const start = Date.parse('2026-11-15T00:00:00.000Z');
  for (let i = 0; i < 300; i++) {
    const status = random() < 0.7 ? 'executed' : random() < 0.8 ? 'blocked' : 'pending';
    const amount = BigInt(1 + Math.floor(random() * 50)) * 10_000_000n;
    await record(random() < 0.6 ? vaultA : vaultB, {
      destination: destinations[Math.floor(random() * random() * destinations.length)]!,
      amount,
      feeCollected: status === 'executed' ? amount / 200n : null,
      status,
      timestamp: new Date(start + Math.floor(random() * (NOW.getTime() - start))),
    });
  }
  for (const edge of [
    '2026-11-30T23:59:59.999Z',
    '2026-12-01T00:00:00.000Z',
    '2026-12-31T23:59:59.999Z',
    '2027-01-01T00:00:00.000Z',
  ]) {
    await record(vaultA, {
      destination: destinations[0]!,
      amount: 123_456_789n,
      feeCollected: 61_728n,
      status: 'executed',
      timestamp: new Date(edge),
    });
  }
}

type Query = { vault?: VaultRow; startDate?: string; endDate?: string; groupBy?: 'day' | 'week' | 'month' };

function toRange(query: Query): { startMs: number; endMs: number } {
  const parse = (value: string, edge: 'start' | 'end') =>
    /^\d{4}-\d{2}-\d{2}$/.test(value)
      ? Date.parse(`${value}T00:00:00.000Z`) + (edge === 'end' ? DAY - 1 : 0)
      : Date.parse(value);
  const endMs = query.endDate === undefined ? NOW.getTime() : parse(query.endDate, 'end');
  const startMs = query.startDate === undefined ? endMs - 30 * DAY : parse(query.startDate, 'start');
  return { startMs, endMs };
}

async function getAnalytics(target: FastifyInstance, query: Query) {
  const params = new URLSearchParams();
  if (query.vault) params.set('vault', query.vault.address);
  if (query.startDate) params.set('startDate', query.startDate);
  if (query.endDate) params.set('endDate', query.endDate);
  if (query.groupBy) params.set('groupBy', query.groupBy);
  return target.inject({ method: 'GET', url: `/api/analytics?${params}` });
}

async function assertMatchesOracle(query: Query): Promise<void> {
  const response = await getAnalytics(app, query);
  assert.equal(response.statusCode, 200, response.body);
  const expected = expectedAnalytics(rows, {
    vaultId: query.vault?.id ?? null,
    vaultAddress: query.vault?.address ?? null,
    groupBy: query.groupBy ?? 'day',
    ...toRange(query),
  });
  assert.deepEqual(
    response.json(),
    expected,
    `analytics for ${JSON.stringify({ ...query, vault: query.vault?.address })}`,
  );
}

const RANGES: Omit<Query, 'vault'>[] = [
  {},
  { startDate: '2026-11-15', endDate: '2027-01-05' },
  { startDate: '2026-11-15', endDate: '2027-01-05', groupBy: 'week' },
  { startDate: '2026-11-01', endDate: '2027-01-31', groupBy: 'month' },
  { startDate: '2026-12-28', endDate: '2027-01-04', groupBy: 'day' },
  { startDate: '2026-12-28', endDate: '2027-01-04', groupBy: 'week' },
  { startDate: '2026-12-28', endDate: '2027-01-04', groupBy: 'month' },
  { startDate: '2026-11-20T13:45:10.123Z', endDate: '2027-01-03T08:00:00.000+02:00', groupBy: 'week' },
  { startDate: '2026-11-30T23:59:59.999Z', endDate: '2026-12-01T00:00:00.000Z' },
  { startDate: '2026-12-31T12:00:00Z', endDate: '2027-01-10', groupBy: 'day' },
  { endDate: '2026-12-15' },
];

async function assertEveryRangeMatches(): Promise<void> {
  for (const vault of [undefined, vaultA, vaultB, vaultIdle]) {
    for (const range of RANGES) await assertMatchesOracle({ ...range, ...(vault ? { vault } : {}) });
  }
}

describe('GET /api/analytics figures', () => {
  before(async () => {
    await testStorage.reset();
    await seed();
  });

  test('match figures computed from the transactions while every day is still dirty (read live)', async () => {
    const [dirty] = await testStorage.storage.rows<{ n: number }>(
      sql`select count(*)::int as n from daily_metrics_dirty`,
    );
    assert.ok((dirty?.n ?? 0) > 0);
    await assertEveryRangeMatches();
  });

  test('match the same figures once the rollup has stored every day', async () => {
    const result = await runDailyMetricsRollup(db, { batchSize: 37 });
    assert.ok(result.recomputed > 0);
    const [dirty] = await testStorage.storage.rows<{ n: number }>(
      sql`select count(*)::int as n from daily_metrics_dirty`,
    );
    assert.equal(dirty?.n, 0);
    await assertEveryRangeMatches();
  });

  test('count a transfer backfilled into a past day at once (the day is read live until rolled up)', async () => {
    await record(vaultB, {
      destination: randomAddress(),
      amount: 9_999_000_000n,
      feeCollected: 49_995_000n,
      status: 'executed',
      timestamp: new Date('2026-12-29T10:00:00.000Z'),
    });
    await record(vaultA, {
      destination: randomAddress(),
      amount: 5_000_000n,
      feeCollected: null,
      status: 'blocked',
      timestamp: new Date('2026-11-16T00:00:00.000Z'),
    });
    await assertEveryRangeMatches();
    await runDailyMetricsRollup(db);
    await assertEveryRangeMatches();
  });

  test('read whole past days from the rollup, and a day still marked dirty from the transactions', async () => {
    const query: Query = { vault: vaultA, startDate: '2026-12-01', endDate: '2026-12-31' };
    const before = (await getAnalytics(app, query)).json();
    const [stored] = await testStorage.storage.rows<{ day: string }>(
      sql`select day::text as day from daily_metrics where vault_key = ${vaultA.id} and day between '2026-12-01' and '2026-12-31' limit 1`,
    );
    assert.ok(stored);
    // A doctored stored figure shows through: the stored row is what whole past days are read from.
    await db.execute(sql`update daily_metrics set executed_volume = executed_volume + 1000
      where vault_key = ${vaultA.id} and day = ${stored.day}`);
    const doctored = (await getAnalytics(app, query)).json();
    assert.equal(BigInt(doctored.summary.totalSpent), BigInt(before.summary.totalSpent) + 1000n);
    // Marked dirty, the same day is read from the transactions again.
    await markDailyMetricsDirty(db, vaultA.id, new Date(`${stored.day}T05:00:00.000Z`));
    assert.deepEqual((await getAnalytics(app, query)).json(), before);
    await runDailyMetricsRollup(db);
    assert.deepEqual((await getAnalytics(app, query)).json(), before);
  });

  test('rank destinations of whole past days from the block rows, and of a dirty day from the transactions', async () => {
    const query: Query = { vault: vaultA, startDate: '2026-12-01', endDate: '2026-12-31' };
    const before = (await getAnalytics(app, query)).json();
    const top = before.topDestinations[0];
    // The largest block the range is split into, and a day inside it.
    const block = splitIntoBlocks('2026-12-01', '2026-12-31').sort((a, b) => b.level - a.level)[0]!;
    assert.ok(block.level > 0);
    const doctor =
      await db.execute(sql`update destination_block_metrics set executed_volume = executed_volume + 1000000000000
      where vault_key = ${vaultA.id} and level = ${block.level} and start_day = ${block.start} and destination = ${top.address}`);
    assert.equal(
      Number(
        (doctor as { rowCount?: number; affectedRows?: number }).rowCount ??
          (doctor as { affectedRows?: number }).affectedRows,
      ),
      1,
    );
    const doctored = (await getAnalytics(app, query)).json();
    assert.equal(doctored.topDestinations[0].address, top.address);
    assert.equal(BigInt(doctored.topDestinations[0].amount), BigInt(top.amount) + 1_000_000_000_000n);
    await markDailyMetricsDirty(db, vaultA.id, new Date(`${block.start}T05:00:00.000Z`), [top.address]);
    assert.deepEqual((await getAnalytics(app, query)).json(), before);
    await runDailyMetricsRollup(db);
    assert.deepEqual((await getAnalytics(app, query)).json(), before);
  });
});

describe('GET /api/analytics ranking, buckets and defaults', () => {
  beforeEach(async () => {
    await testStorage.reset();
    rows = [];
  });

  test('rank top destinations by amount, then count, then address, at most ten', async () => {
    const vault = await createVault(db);
    const [low, high] = [randomAddress(), randomAddress()].sort();
    const plan: [string, bigint[]][] = [
      ['tie-count-2', [300n, 300n]],
      ['tie-count-1', [600n]],
      [high!, [500n]],
      [low!, [500n]],
      ...Array.from({ length: 9 }, (_, i): [string, bigint[]] => [randomAddress(), [BigInt(10 + i)]]),
    ];
    const named = new Map([
      ['tie-count-2', randomAddress()],
      ['tie-count-1', randomAddress()],
    ]);
    for (const [key, amounts] of plan) {
      for (const amount of amounts) {
        await record(vault, {
          destination: named.get(key) ?? key,
          amount,
          feeCollected: 0n,
          status: 'executed',
          timestamp: new Date('2026-12-20T10:00:00.000Z'),
        });
      }
    }
    const response = (
      await getAnalytics(app, { vault, startDate: '2026-12-01', endDate: '2026-12-31' })
    ).json();
    assert.equal(response.topDestinations.length, 10);
    assert.deepEqual(response.topDestinations.slice(0, 4), [
      { address: named.get('tie-count-2'), amount: '600', count: 2 },
      { address: named.get('tie-count-1'), amount: '600', count: 1 },
      { address: low, amount: '500', count: 1 },
      { address: high, amount: '500', count: 1 },
    ]);
    await runDailyMetricsRollup(db);
    await assertMatchesOracle({ vault, startDate: '2026-12-01', endDate: '2026-12-31' });
    await assertMatchesOracle({ vault, startDate: '2026-11-01', endDate: '2027-01-04', groupBy: 'month' });
  });

  test('label ISO weeks across a year boundary that has a week 53, zero buckets included', async () => {
    const vault = await createVault(db);
    const body = (
      await getAnalytics(app, { vault, startDate: '2026-12-28', endDate: '2027-01-04', groupBy: 'week' })
    ).json();
    assert.deepEqual(body.spendingByPeriod, [
      { period: '2026-W53', amount: '0', count: 0 },
      { period: '2027-W01', amount: '0', count: 0 },
    ]);
    const months = (
      await getAnalytics(app, { vault, startDate: '2026-12-28', endDate: '2027-01-04', groupBy: 'month' })
    ).json();
    assert.deepEqual(
      months.spendingByPeriod.map((b: { period: string }) => b.period),
      ['2026-12', '2027-01'],
    );
    const days = (await getAnalytics(app, { vault, startDate: '2026-12-28', endDate: '2027-01-04' })).json();
    assert.equal(days.spendingByPeriod.length, 8);
    assert.deepEqual(body.summary, {
      totalSpent: '0',
      transactionCount: 0,
      blockedCount: 0,
      averageAmount: '0',
      successRate: 0,
      totalFees: '0',
    });
    assert.deepEqual(body.topDestinations, []);
  });

  test('default to the 30 days ending now, for every vault, with vault null', async () => {
    const body = (await getAnalytics(app, {})).json();
    assert.equal(body.vault, null);
    assert.deepEqual(body.period, {
      start: new Date(NOW.getTime() - 30 * DAY).toISOString(),
      end: NOW.toISOString(),
    });
    assert.equal(body.spendingByPeriod.length, 31);
    assert.equal(body.spendingByPeriod.at(-1).period, '2027-01-05');
  });
});

describe('GET /api/analytics validation', () => {
  before(async () => {
    await testStorage.reset();
    vaultA = await createVault(db);
  });

  const bad: [string, string][] = [
    ['a malformed date', 'startDate=2026-13-01'],
    ['an impossible day', 'startDate=2026-02-30'],
    ['a non-date', 'endDate=yesterday'],
    ['start after end', 'startDate=2026-12-02&endDate=2026-12-01'],
    ['a range over 1096 days', 'startDate=2024-01-01&endDate=2027-01-01'],
    ['an unknown groupBy', 'groupBy=year'],
    ['an invalid vault address', 'vault=not-an-address'],
    ['an unknown parameter', 'format=csv'],
  ];
  for (const [name, query] of bad) {
    test(`rejects ${name} with VALIDATION_ERROR`, async () => {
      const response = await app.inject({ method: 'GET', url: `/api/analytics?${query}` });
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().code, 'VALIDATION_ERROR');
      assert.ok(Array.isArray(response.json().details.issues));
    });
  }

  test('accepts a range of exactly 1096 days', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/api/analytics?startDate=2024-01-01&endDate=2026-12-31&groupBy=month',
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().spendingByPeriod.length, 36);
  });

  test('answers 404 VAULT_NOT_FOUND for an unknown vault', async () => {
    const response = await app.inject({ method: 'GET', url: `/api/analytics?vault=${randomAddress()}` });
    assert.equal(response.statusCode, 404);
    assert.equal(response.json().code, 'VAULT_NOT_FOUND');
  });
});

describe('analytics rate limits', () => {
  test('both analytics routes spend the analytics budget of 30 requests a minute', async () => {
    await testStorage.reset();
    const vault = await createVault(db);
    const { app: limited } = await testStorage.start();
    for (const url of ['/api/analytics', `/api/analytics/realtime?vault=${vault.address}`]) {
      const response = await limited.inject({ method: 'GET', url });
      assert.equal(response.headers['x-ratelimit-limit'], '30', url);
    }
  });
});

describe('GET /api/analytics caching', () => {
  before(async () => {
    await testStorage.reset();
    rows = [];
    vaultA = await createVault(db);
    vaultB = await createVault(db);
  });

  const spend = async (vault: VaultRow, amount: bigint) =>
    record(vault, {
      destination: randomAddress(),
      amount,
      feeCollected: 0n,
      status: 'executed',
      timestamp: new Date(NOW.getTime() - 3_600_000),
    });
  const totalOf = async (vault?: VaultRow) => {
    const response = await getAnalytics(cachedApp, vault ? { vault } : {});
    assert.equal(response.headers['cache-control'], 'public, max-age=300');
    return response.json().summary.totalSpent;
  };

  test('serves a repeated request from the cache until ingestion evicts the vault', async () => {
    await spend(vaultA, 100n);
    assert.equal(await totalOf(vaultA), '100');
    assert.equal(await totalOf(), '100');
    await spend(vaultA, 50n); // stored without eviction: the cached answers stand
    assert.equal(await totalOf(vaultA), '100');
    assert.equal(await totalOf(), '100');
    await evictVaults(cache, [vaultA.address]);
    assert.equal(await totalOf(vaultA), '150');
    assert.equal(await totalOf(), '150');
  });

  test("an event of another vault evicts the all-vaults answer but not this vault's", async () => {
    assert.equal(await totalOf(vaultA), '150');
    await spend(vaultA, 1n);
    await spend(vaultB, 7n);
    await evictVaults(cache, [vaultB.address]);
    assert.equal(await totalOf(vaultA), '150');
    assert.equal(await totalOf(), '158');
  });
});
