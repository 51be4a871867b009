// Analytics benchmark: uncached GET /api/analytics over one year (groupBy=day), one vault and all vaults,
// on PostgreSQL seeded with generate_series and rolled up by the real rollup; 100k then 1M transactions.
//   npx tsx bench/analytics.bench.ts [--requests 300] [--scale 1] [--keep]
// DATABASE_URL is the admin connection (default postgres://postgres@127.0.0.1:5432/test); the bench
// creates and drops its own database. --scale 0.1 seeds 10k / 100k for a quick run.
// The service runs as users run it: rate limits on, TRUST_PROXY=1, each request from a client address of
// its case's pool within the analytics budget; a 429 or any other non-200 answer misses the target. Each
// case reports sequential req/s beside CPU per request: this process (app, pg driver and the client)
// and the PostgreSQL backends serving it.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { getBase58Decoder } from '@solana/kit';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { processCpuSeconds } from '../dev/support/processes.js';
import { buildApp } from '../src/app.js';
import { createAppDeps } from '../src/app-deps.js';
import { loadConfig } from '../src/config.js';
import { runDailyMetricsRollup } from '../src/domain/analytics/daily-metrics-rollup.js';
import { markDailyMetricsDirtyRange } from '../src/domain/analytics/metrics-dirty.js';
import { createDisconnectedChainStatus } from '../src/domain/health/chain-status.js';
import { createDatabase, type Storage } from '../src/storage/database.js';
import { clientPool, fromClient } from './support/client-pool.js';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '300' },
    scale: { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
  },
});
const REQUESTS = Number(args.requests);
const SCALE = Number(args.scale);
const STEPS = [100_000, 1_000_000].map((n) => Math.round(n * SCALE));
const VAULTS = 100;
const DESTINATIONS = 500;
/** Each vault pays 20 destinations (the program's whitelist size) out of the shared pool. */
const PER_VAULT_DESTINATIONS = 20;
const TARGET_P99_MS = 50;
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DAY = 86_400_000;

const log = (line: string) => process.stdout.write(`${line}\n`);
const base58 = getBase58Decoder();
const randomAddress = () => base58.decode(randomBytes(32));

async function admin(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * Appends `count` transfers spread evenly over the 365 days ending `now`, in time order as ingestion
 * writes them: 85 % executed, 12 % blocked, 3 % pending.
 */
async function seedTransactions(
  storage: Storage,
  vaultIds: string[],
  destinations: string[],
  from: number,
  count: number,
  now: Date,
) {
  const vaultArray = `{${vaultIds.join(',')}}`;
  const destinationArray = `{${destinations.join(',')}}`;
  for (let offset = 0; offset < count; offset += 100_000) {
    const size = Math.min(100_000, count - offset);
    await storage.db.execute(sql`
      insert into transactions (vault_id, signature, event_index, destination, amount, fee_collected, status,
        block_reason, timestamp, slot)
      select v.ids[1 + g % ${VAULTS}], 'bench-' || g, 0,
        d.list[1 + ((g % ${VAULTS}) * ${PER_VAULT_DESTINATIONS} + r.pick) % ${DESTINATIONS}],
        r.amount, case when r.status = 'executed' then r.amount / 200 end, r.status,
        case when r.status = 'blocked' then 'exceeded_daily_limit' end,
        ${now.toISOString()}::timestamptz - (1 - (g - ${from} - 1 + r.jitter) / ${count}::float8) * interval '365 days', g
      from generate_series(${from + offset + 1}::bigint, ${from + offset + size}::bigint) g
      cross join (select ${vaultArray}::uuid[] as ids) v
      cross join (select ${destinationArray}::text[] as list) d
      cross join lateral (
        select (floor(random() * ${PER_VAULT_DESTINATIONS}) + g * 0)::int as pick,
          ((1 + floor(random() * 50)) * 10000000)::numeric as amount,
          random() + g * 0 as jitter,
          (case when x < 0.85 then 'executed' when x < 0.97 then 'blocked' else 'pending' end) as status
        from (select random() + g * 0 as x) s
      ) r
    `);
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

interface Figures {
  p50: number;
  p95: number;
  p99: number;
  max: number;
  perSecond: number;
  /** CPU of this process (app, pg driver, HTTP client) per request, µs. */
  cpuMicros: number;
  /** CPU of the PostgreSQL backends serving the database per request, µs (0 if they are not local). */
  databaseCpuMicros: number;
  /** Answers other than 200 (a 429 among them) and failed requests. */
  problems: number;
}

/** CPU seconds so far of the PostgreSQL backends connected to `database` (read from /proc). */
async function databaseCpuSeconds(database: string): Promise<number> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [database],
    );
    return rows.reduce((sum, { pid }) => sum + processCpuSeconds(pid), 0);
  } finally {
    await client.end();
  }
}

async function measure(baseUrl: string, database: string, paths: () => string): Promise<Figures> {
  const warmUp = 20;
  const clients = clientPool('analytics', { requests: warmUp + REQUESTS });
  let problems = 0;
  const get = async () => {
    try {
      const response = await fetch(baseUrl + paths(), { headers: fromClient(clients) });
      await response.arrayBuffer();
      if (response.status !== 200) problems += 1;
    } catch {
      problems += 1;
    }
  };
  for (let i = 0; i < warmUp; i++) await get();
  const times: number[] = [];
  const databaseBefore = await databaseCpuSeconds(database);
  const cpuBefore = process.cpuUsage();
  const wall = performance.now();
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now();
    await get();
    times.push(performance.now() - started);
  }
  const elapsed = (performance.now() - wall) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const databaseCpu = (await databaseCpuSeconds(database)) - databaseBefore;
  times.sort((a, b) => a - b);
  return {
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    p99: percentile(times, 99),
    max: times.at(-1)!,
    perSecond: REQUESTS / elapsed,
    cpuMicros: (cpu.user + cpu.system) / REQUESTS,
    databaseCpuMicros: (databaseCpu * 1e6) / REQUESTS,
    problems,
  };
}

async function main(): Promise<void> {
  const name = `vk_bench_analytics_${process.pid}`;
  await admin(`create database ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const config = loadConfig({
    DATABASE_URL: url.toString(),
    READ_CACHE: 'false',
    TRUST_PROXY: '1',
    LOG_LEVEL: 'silent',
  });
  const storage = await createDatabase(config.database);
  const now = new Date();
  const deps = createAppDeps({ config, storage, chainStatus: createDisconnectedChainStatus(config.cluster) });
  const app = await buildApp(deps);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const results: string[] = [];
  try {
    const vaults = Array.from({ length: VAULTS }, () => ({
      address: randomAddress(),
      authority: randomAddress(),
    }));
    const rows = await storage.rows<{ id: string; address: string }>(sql`
      insert into vaults (address, authority, deposit_address, daily_limit)
      select a, b, a, 100000000000 from unnest(${`{${vaults.map((v) => v.address).join(',')}}`}::text[],
        ${`{${vaults.map((v) => v.authority).join(',')}}`}::text[]) as t(a, b)
      returning id, address`);
    const destinations = Array.from({ length: DESTINATIONS }, randomAddress);
    const startDate = new Date(now.getTime() - 364 * DAY).toISOString().slice(0, 10);
    const endDate = now.toISOString().slice(0, 10);
    const yearQuery = `startDate=${startDate}&endDate=${endDate}&groupBy=day`;
    log(
      `analytics bench: ${VAULTS} vaults, ${DESTINATIONS} destinations (${PER_VAULT_DESTINATIONS} per vault), range ${startDate}..${endDate}, ${REQUESTS} sequential uncached requests per case, rate limits on`,
    );

    let seeded = 0;
    for (const total of STEPS) {
      let started = performance.now();
      await seedTransactions(
        storage,
        rows.map((r) => r.id),
        destinations,
        seeded,
        total - seeded,
        now,
      );
      seeded = total;
      await storage.db.execute(sql`analyze`);
      const seedMs = performance.now() - started;
      started = performance.now();
      await markDailyMetricsDirtyRange(
        storage.db,
        new Date(now.getTime() - 366 * DAY).toISOString().slice(0, 10),
        endDate,
      );
      const rollup = await runDailyMetricsRollup(storage.db, { batchSize: 2_000 });
      await storage.db.execute(sql`analyze`);
      const rollupMs = performance.now() - started;
      const [counts] = await storage.rows<{ daily: number; dest: number; block: number }>(sql`
        select (select count(*)::int from daily_metrics) as daily,
          (select count(*)::int from daily_destination_metrics) as dest,
          (select count(*)::int from destination_block_metrics) as block`);
      log(
        `\n${total.toLocaleString('en')} transactions: seeded in ${(seedMs / 1000).toFixed(1)} s; rollup of ${rollup.recomputed} dirty days in ${(rollupMs / 1000).toFixed(1)} s`,
      );
      log(
        `  stored rows: daily_metrics ${counts?.daily}, daily_destination_metrics ${counts?.dest}, destination_block_metrics ${counts?.block}`,
      );
      let i = 0;
      for (const [label, path] of [
        ['one vault ', () => `/api/analytics?vault=${rows[i++ % rows.length]!.address}&${yearQuery}`],
        ['all vaults', () => `/api/analytics?${yearQuery}`],
      ] as const) {
        const figures = await measure(baseUrl, name, path);
        const met = figures.p99 < TARGET_P99_MS && figures.problems === 0;
        const verdict = met ? 'ok' : 'MISSED';
        const load = loadavg()[0]!.toFixed(1);
        const problems = figures.problems > 0 ? `, ${figures.problems} non-200 or failed (MISSED)` : '';
        const line = `  ${label}: p50 ${figures.p50.toFixed(1)} ms, p95 ${figures.p95.toFixed(1)} ms, p99 ${figures.p99.toFixed(1)} ms (target < ${TARGET_P99_MS} ms: ${verdict}), max ${figures.max.toFixed(1)} ms; ${figures.perSecond.toFixed(0)} req/s sequential, CPU ${figures.cpuMicros.toFixed(0)} µs/request here + ${figures.databaseCpuMicros.toFixed(0)} µs in PostgreSQL${problems} (load average ${load})`;
        log(line);
        results.push(`${total} ${label.trim()} ${verdict}`);
      }
    }
  } finally {
    await app.close();
    await storage.close();
    if (!args.keep) await admin(`drop database if exists ${name} with (force)`);
  }
  if (results.some((r) => r.endsWith('MISSED'))) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
