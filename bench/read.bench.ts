// Read API benchmark: the service (ROLES=api, PostgreSQL) as a child process, loaded by autocannon on
// loopback, next to a bare node:http server returning the same fixed JSON body (the platform ceiling).
//   npx tsx bench/read.bench.ts [--duration 10] [--connections 50] [--reseed] [--redis] [--tsx]
// The service runs as `npm start` does, from dist/ (built first); --tsx runs src/ through tsx instead.
// DATABASE_URL (admin connection; default postgres://postgres@127.0.0.1:5432/test) hosts the seeded
// database vk_bench_read; --redis runs the cached phases with REDIS_URL (default redis://127.0.0.1:6379).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { vaultPageSql } from '../src/domain/transactions/transaction-page-sql.js';
import { processCpuSeconds, type ServerProcess, startCeiling, startServer } from './support/processes.js';
import { ensureSeededDatabase, TRANSACTION_COUNT } from './support/read-seed.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    reseed: { type: 'boolean', default: false },
    redis: { type: 'boolean', default: false },
    tsx: { type: 'boolean', default: false },
  },
});
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

interface Figures {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** CPU time the server process spent per request (load-independent, unlike req/s on a busy machine). */
  cpuMicrosPerRequest: number;
  /** CPU time PostgreSQL's backends for the service spent per request. */
  databaseCpuMicrosPerRequest: number;
  problems: number;
}

const log = (line: string) => process.stdout.write(`${line}\n`);
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

/** Builds dist/ as `npm run build` does; type errors elsewhere in the tree still emit JavaScript. */
function buildDist(): void {
  const tsc = resolve(root, 'node_modules/typescript/bin/tsc');
  const build = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (!existsSync(resolve(root, 'dist/main.js')))
    throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
  if (build.status !== 0) log('  (tsc reported type errors; running what it emitted)');
}

function startService(databaseUrl: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  return startServer({
    args: args.tsx ? ['--import', 'tsx', 'src/main.ts'] : ['dist/main.js'],
    cwd: root,
    readyPath: '/api/health',
    env: {
      ROLES: 'api',
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_ENABLED: 'false',
      NODE_ENV: 'production',
      ...env,
    },
  });
}

let admin: pg.Client | undefined;

/** CPU seconds used so far by the PostgreSQL backends serving the service (its pool's connections). */
async function databaseCpuSeconds(): Promise<number> {
  if (admin === undefined) return 0;
  const { rows } = await admin.query<{ pid: number }>(
    "select pid from pg_stat_activity where datname = 'vk_bench_read' and application_name = 'vaultkeeper'",
  );
  return rows.reduce((sum, { pid }) => sum + processCpuSeconds(pid), 0);
}

async function load(
  name: string,
  server: ServerProcess,
  path: () => string,
  duration = DURATION,
): Promise<Figures> {
  log(`  ${name} (${duration} s)`);
  const cpuBefore = server.cpuSeconds();
  const databaseBefore = await databaseCpuSeconds();
  const result = await autocannon({
    url: server.baseUrl,
    connections: CONNECTIONS,
    duration,
    requests: [{ setupRequest: (request) => ({ ...request, path: path() }) }],
  });
  const cpu = server.cpuSeconds() - cpuBefore;
  const databaseCpu = (await databaseCpuSeconds()) - databaseBefore;
  const perRequest = (seconds: number) => Math.round((seconds * 1e6) / Math.max(1, result.requests.total));
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuMicrosPerRequest: perRequest(cpu),
    databaseCpuMicrosPerRequest: perRequest(databaseCpu),
    problems: result.non2xx + result.errors + result.timeouts,
  };
}

async function vaultAddresses(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ address: string }>('select address from vaults order by address');
    return rows.map((r) => r.address);
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  log(`read benchmark: ${CONNECTIONS} connections, ${DURATION} s per phase`);
  if (!args.tsx) {
    log('building dist/ (npm run build)');
    buildDist();
  }
  const databaseUrl = await ensureSeededDatabase(ADMIN_URL, 'vk_bench_read', { reseed: args.reseed, log });
  const addresses = await vaultAddresses(databaseUrl);
  admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  log(`database: ${addresses.length} vaults, ${TRANSACTION_COUNT} transactions`);
  const hot = addresses[0]!;
  const results: Figures[] = [];
  const loadBefore = loadavg()[0]!;

  const cached = await startService(databaseUrl, args.redis ? { REDIS_URL } : {});
  const ceiling = await startCeiling(await (await fetch(`${cached.baseUrl}/api/vaults/${hot}`)).text(), root);
  try {
    await load('warm-up', ceiling, () => '/', 2);
    results.push(await load('ceiling: bare node:http, same JSON body', ceiling, () => '/'));
    await ceiling.stop();
    await load('warm-up', cached, () => `/api/vaults/${hot}`, 2);
    results.push(await load('cached GET /api/vaults/:address', cached, () => `/api/vaults/${hot}`));
    results.push(
      await load('cached GET /api/transactions?vault=…', cached, () => `/api/transactions?vault=${hot}`),
    );
  } finally {
    await ceiling.stop();
    await cached.stop();
  }

  const minimal = await startServer({
    args: ['--import', 'tsx', 'bench/support/read-minimal-server.ts'],
    cwd: root,
    readyPath: '/api/health',
    env: { DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
  });
  try {
    await load('warm-up', minimal, () => `/api/vaults/${hot}`, 2);
    results.push(
      await load('diagnostic: Fastify + vault routes only, cached', minimal, () => `/api/vaults/${hot}`),
    );
  } finally {
    await minimal.stop();
  }

  const uncached = await startService(databaseUrl, { READ_CACHE: 'false' });
  let uncachedRss: number;
  try {
    const anyVault = () => `/api/transactions?vault=${pick(addresses)}`;
    await load('warm-up', uncached, anyVault, 2);
    results.push(await load('uncached GET /api/transactions?vault=… (random vault)', uncached, anyVault));
    results.push(
      await load(
        'uncached, random vault and page 1..20',
        uncached,
        () => `${anyVault()}&page=${1 + Math.floor(Math.random() * 20)}`,
      ),
    );
    uncachedRss = uncached.peakRssMb();
  } finally {
    await uncached.stop();
  }
  results.push(await databaseOnly(databaseUrl, addresses));
  report(results, uncachedRss, Math.max(loadBefore, loadavg()[0]!));
}

/**
 * The uncached list's floor: the service's own page statement straight through pg (a pool of 10, as the
 * service has), CONNECTIONS callers in a loop, no HTTP. What PostgreSQL and the driver cost alone.
 */
async function databaseOnly(databaseUrl: string, addresses: string[]): Promise<Figures> {
  const name = 'diagnostic: the page query alone via pg, no HTTP';
  log(`  ${name} (${DURATION} s)`);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10, application_name: 'vaultkeeper' });
  const text = vaultPageSql({ byStatus: false, deferred: false, anchored: false });
  const query = () => pool.query({ name: 'vk_bench_page', text, values: [pick(addresses), 50, 0] });
  await Promise.all(Array.from({ length: 10 }, query));
  const latencies: number[] = [];
  const cpuBefore = process.cpuUsage();
  const databaseBefore = await databaseCpuSeconds();
  const end = Date.now() + DURATION * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < end) {
        const started = performance.now();
        await query();
        latencies.push(performance.now() - started);
      }
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  const databaseCpu = (await databaseCpuSeconds()) - databaseBefore;
  await pool.end();
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!);
  return {
    name,
    requestsPerSecond: Math.round(latencies.length / DURATION),
    p50: at(0.5),
    p99: at(0.99),
    cpuMicrosPerRequest: Math.round((cpu.user + cpu.system) / latencies.length),
    databaseCpuMicrosPerRequest: Math.round((databaseCpu * 1e6) / latencies.length),
    problems: 0,
  };
}

function report(results: Figures[], uncachedRss: number, load: number): void {
  const [ceiling, detail, , , uncached] = results as [Figures, Figures, Figures, Figures, Figures];
  const columns = (...cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(52) : c.padStart(i >= 5 ? 11 : 8))).join(' ');
  log('');
  log(columns('phase', 'req/s', 'p50 ms', 'p99 ms', '×ceiling', 'CPU µs/req', 'PG µs/req'));
  for (const f of results) {
    const cells = [f.name, String(f.requestsPerSecond), String(f.p50), String(f.p99)];
    cells.push((f.requestsPerSecond / ceiling.requestsPerSecond).toFixed(2), String(f.cpuMicrosPerRequest));
    cells.push(String(f.databaseCpuMicrosPerRequest));
    log(columns(...cells) + (f.problems > 0 ? `  (${f.problems} non-2xx or errors)` : ''));
  }
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  const ratio = detail.requestsPerSecond / ceiling.requestsPerSecond;
  const cpuRatio = ceiling.cpuMicrosPerRequest / Math.max(1, detail.cpuMicrosPerRequest);
  log('');
  log(
    `targets (1-minute load average during the run: ${load.toFixed(1)} on ${availableParallelism()} cores):`,
  );
  log(`  cached vault detail ≥ 0.50 × ceiling: ${ratio.toFixed(2)} × → ${verdict(ratio >= 0.5)}`);
  log(`    (by CPU per request, which other load on the machine does not skew: ${cpuRatio.toFixed(2)} ×)`);
  log(
    `  uncached list p99 < 25 ms at ${CONNECTIONS} connections: ${uncached.p99} ms → ${verdict(uncached.p99 < 25)}`,
  );
  log(`  service peak RSS < 250 MB under that load: ${uncachedRss} MB → ${verdict(uncachedRss < 250)}`);
  const floor = results.at(-1)!;
  log(
    `    (the page query alone through pg, no HTTP: ${floor.requestsPerSecond} q/s, p99 ${floor.p99} ms at ${CONNECTIONS} callers)`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `read benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
