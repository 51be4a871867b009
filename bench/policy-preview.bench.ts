// Policy preview benchmark: POST /api/vaults/:address/policy-preview for a vault with 10 000 transfer
// attempts in the last 90 days, replayed over the whole 90 days. Target: under 100 ms a request.
// Then the policy preview under load (--phase load): a vault with 20 000 attempts in 90 days, 8 and then 16
// client addresses each sending a preview (a new proposal each time) every 2 s, within their budget,
// while another client reads the vault's transactions every 100 ms. Target: that reader's p95 under
// 100 ms.
// The service runs in this process as users start it (the embedded database by default, or PostgreSQL
// with --postgres; rate limits on, TRUST_PROXY=1, each request from a client address of a pool sized to
// the analytics budget). It measures twice: with only this vault's rows, then after 200 000 rows of 40
// other vaults, to show the cost follows the vault's attempts, not the table. CPU per request is this
// process's (the app and, embedded, the database itself).
//   npx tsx bench/policy-preview.bench.ts [--requests 100] [--attempts 10000] [--postgres]
//     [--phase all|sequential|load] [--seconds 20] [--senders 8,16]
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { getBase58Decoder } from '@solana/kit';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { createAppDeps } from '../src/app-deps.js';
import { loadConfig } from '../src/config.js';
import { createDisconnectedChainStatus } from '../src/domain/health/chain-status.js';
import { createDatabase, type Storage } from '../src/storage/database.js';
import { adminQuery } from '../test/support/database.js';
import { clientPool, fromClient } from './support/client-pool.js';
import { runPreviewLoad } from './support/preview-load.js';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '100' },
    attempts: { type: 'string', default: '10000' },
    postgres: { type: 'boolean', default: false },
    phase: { type: 'string', default: 'all' },
    seconds: { type: 'string', default: '20' },
    senders: { type: 'string', default: '8,16' },
  },
});
const REQUESTS = Number(args.requests);
const ATTEMPTS = Number(args.attempts);
const OTHER_VAULTS = 40;
const OTHER_ROWS = 200_000;
const TARGET_MS = 100;
const LOAD_ATTEMPTS = 20_000;
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DATABASE = `vk_bench_preview_${process.pid}`;
const DAY = 86_400_000;
const log = (line: string) => process.stdout.write(`${line}\n`);
const base58 = getBase58Decoder();
const randomAddress = () => base58.decode(randomBytes(32));

/**
 * `count` attempts of one vault over the 90 days ending `now`, in time order: 85 % executed, 12 % blocked
 * (limit or whitelist), 3 % executed overrides; amounts 0.01..0.5 SOL to 20 destinations.
 */
async function seedAttempts(storage: Storage, vaultId: string, count: number, from: number, now: Date) {
  const destinations = `{${Array.from({ length: 20 }, randomAddress).join(',')}}`;
  await storage.db.execute(sql`
    insert into transactions (vault_id, signature, event_index, destination, amount, fee_collected, status,
      block_reason, override_id, timestamp, slot)
    select ${vaultId}::uuid, 'bench-' || g, 0, d.list[1 + g % 20], r.amount,
      case when r.x < 0.85 or r.x >= 0.97 then r.amount / 200 end,
      case when r.x < 0.85 or r.x >= 0.97 then 'executed' else 'blocked' end,
      case when r.x >= 0.85 and r.x < 0.97 then
        case when r.x < 0.93 then 'exceeded_daily_limit' else 'not_whitelisted' end end,
      case when r.x >= 0.97 then gen_random_uuid() end,
      ${now.toISOString()}::timestamptz - (1 - (g - ${from})::float8 / ${count + 1}) * interval '89 days', g
    from generate_series(${from + 1}::bigint, ${from + count}::bigint) g
    cross join (select ${destinations}::text[] as list) d
    cross join lateral (
      select ((1 + floor(random() * 50)) * 10000000)::numeric + g * 0 as amount, random() + g * 0 as x
    ) r`);
}

async function insertVault(storage: Storage): Promise<{ id: string; address: string }> {
  const address = randomAddress();
  const [row] = await storage.rows<{ id: string; address: string }>(sql`
    insert into vaults (address, authority, deposit_address, daily_limit)
    values (${address}, ${randomAddress()}, ${randomAddress()}, 5000000000) returning id, address`);
  return row!;
}

async function measure(baseUrl: string, vault: string, body: () => object) {
  const warmUp = 10;
  const clients = clientPool('analytics', { requests: warmUp + REQUESTS });
  let problems = 0;
  const send = async () => {
    const response = await fetch(`${baseUrl}/api/vaults/${vault}/policy-preview`, {
      method: 'POST',
      headers: fromClient(clients, { 'content-type': 'application/json' }),
      body: JSON.stringify(body()),
    });
    const json = (await response.json()) as { summary?: { attempts: number } };
    if (response.status !== 200) {
      if (problems === 0) log(`first problem: ${response.status} ${JSON.stringify(json)}`);
      problems += 1;
    }
    return json;
  };
  let attempts = 0;
  for (let i = 0; i < warmUp; i++) attempts = (await send()).summary?.attempts ?? 0;
  const times: number[] = [];
  const cpuBefore = process.cpuUsage();
  const wall = performance.now();
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now();
    await send();
    times.push(performance.now() - started);
  }
  const elapsed = (performance.now() - wall) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)]!;
  return {
    attempts,
    p50: at(50),
    p99: at(99),
    perSecond: REQUESTS / elapsed,
    cpuMicros: (cpu.user + cpu.system) / REQUESTS,
    problems,
  };
}

async function openDatabase(): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  if (args.postgres) {
    await adminQuery(ADMIN_URL, `create database ${DATABASE}`);
    const url = new URL(ADMIN_URL);
    url.pathname = `/${DATABASE}`;
    return {
      env: { DATABASE_URL: url.toString() },
      cleanup: () => adminQuery(ADMIN_URL, `drop database if exists ${DATABASE} with (force)`),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'vk-bench-preview-'));
  return { env: { DATA_DIR: dir }, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** The policy preview load: the reader alone, then beside each number of senders. True when the target is met. */
async function underLoad(baseUrl: string, storage: Storage, now: Date): Promise<boolean> {
  const vault = await insertVault(storage);
  await seedAttempts(storage, vault.id, LOAD_ATTEMPTS, 1_000_000, now);
  await storage.db.execute(sql`analyze transactions`);
  const seconds = Number(args.seconds);
  const base = {
    baseUrl,
    vault: vault.address,
    intervalMs: 2000,
    readEveryMs: 100,
    // Each preview a different limit over the whole 90 days: no two ask the same question.
    body: () => ({
      dailyLimit: String(1_000_000_000 + Math.floor(Math.random() * 4_000_000_000)),
      since: new Date(Date.now() - 90 * DAY).toISOString(),
    }),
  };
  const quiet = await runPreviewLoad({ ...base, senders: 0, seconds: Math.min(seconds, 10) });
  const cpuPerRead = quiet.cpuMs / Math.max(1, quiet.reads);
  log(
    `load: vault of ${LOAD_ATTEMPTS} attempts in 90 days; load average ${loadavg()[0]!.toFixed(2)}\n` +
      `  reader alone:  ${quiet.reads} reads, p50 ${quiet.readP50.toFixed(1)} ms, p95 ${quiet.readP95.toFixed(1)} ms, ` +
      `${cpuPerRead.toFixed(2)} ms CPU/read`,
  );
  let met = true;
  for (const senders of args.senders.split(',').map(Number)) {
    const f = await runPreviewLoad({ ...base, senders, seconds });
    const previewCpu = (f.cpuMs - f.reads * cpuPerRead) / Math.max(1, f.previews);
    const ok = f.readP95 < TARGET_MS && f.readProblems === 0;
    met &&= ok;
    log(
      `  ${String(senders).padStart(2)} senders:   ${f.reads} reads, p50 ${f.readP50.toFixed(1)} ms, ` +
        `p95 ${f.readP95.toFixed(1)} ms, ${f.readProblems} problems; ${f.previews} previews ` +
        `${JSON.stringify(f.previewStatuses)}, p50 ${f.previewP50.toFixed(1)} ms, p95 ${f.previewP95.toFixed(1)} ms, ` +
        `${previewCpu.toFixed(1)} ms CPU/preview (target read p95 < ${TARGET_MS} ms: ${ok ? 'met' : 'MISSED'})`,
    );
  }
  return met;
}

async function main() {
  const database = await openDatabase();
  const config = loadConfig({
    ...database.env,
    READ_CACHE: 'false',
    TRUST_PROXY: '1',
    LOG_LEVEL: 'silent',
  });
  const storage = await createDatabase(config.database);
  const deps = createAppDeps({ config, storage, chainStatus: createDisconnectedChainStatus(config.cluster) });
  const app = await buildApp(deps);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const now = new Date();
  // The whole 90 days, as of each request.
  const lowerLimit = () => ({
    dailyLimit: '2000000000',
    since: new Date(Date.now() - 90 * DAY).toISOString(),
  });
  let failed = false;
  try {
    if (args.phase !== 'sequential') failed ||= !(await underLoad(baseUrl, storage, now));
    if (args.phase === 'load') return;
    const vault = await insertVault(storage);
    await seedAttempts(storage, vault.id, ATTEMPTS, 0, now);
    await storage.db.execute(sql`analyze transactions`);
    log(
      `database: ${args.postgres ? 'PostgreSQL' : 'embedded PGlite'}; load average ${loadavg()[0]!.toFixed(2)}`,
    );
    const rows = async () =>
      (await storage.rows<{ n: number }>(sql`select count(*)::int as n from transactions`))[0]!.n;
    const report = async (label: string) => {
      const f = await measure(baseUrl, vault.address, lowerLimit);
      const ok = f.p99 < TARGET_MS && f.problems === 0 && f.attempts === ATTEMPTS;
      failed ||= !ok;
      log(
        `${label.padEnd(34)} table ${String(await rows()).padStart(7)} rows, replayed ${f.attempts} attempts: ` +
          `p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms, ${f.perSecond.toFixed(1)} req/s, ` +
          `${(f.cpuMicros / 1000).toFixed(1)} ms CPU/request, ${f.problems} problems ` +
          `(target p99 < ${TARGET_MS} ms: ${ok ? 'met' : 'MISSED'})`,
      );
    };
    await report('the vault alone');
    for (let i = 0; i < OTHER_VAULTS; i++) {
      const other = await insertVault(storage);
      await seedAttempts(
        storage,
        other.id,
        OTHER_ROWS / OTHER_VAULTS,
        ATTEMPTS + i * (OTHER_ROWS / OTHER_VAULTS),
        now,
      );
    }
    await storage.db.execute(sql`analyze transactions`);
    await report(`beside ${OTHER_VAULTS} other vaults' rows`);
  } finally {
    await app.close();
    await database.cleanup();
  }
  if (failed) process.exitCode = 1;
}

await main();
