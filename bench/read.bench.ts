// Read API benchmark: the service (ROLES=api, PostgreSQL) as a child process, loaded by autocannon on
// loopback, next to a bare node:http server returning the same fixed JSON body (the platform ceiling).
// The service runs as production does: rate limits on, TRUST_PROXY=1 behind one proxy hop, and
// CLIENTS client addresses in X-Forwarded-For, each phase its own block of addresses, each address
// under its budget (a 429 counts as a problem). Rate limits off is only a labelled diagnostic.
// Every phase reports req/s, ×ceiling, service CPU and PostgreSQL CPU per request and the service's
// RSS; then an open-loop phase at half the uncached maximum (p50/p99 from the scheduled send time)
// and the embedded default's footprint (bench/support/embedded-footprint.ts).
//   npx tsx bench/read.bench.ts [--duration 10] [--connections 50] [--reseed] [--redis] [--tsx]
//     [--backfill 50000] [--skip-embedded] [--cached-only] [--embedded-only]
// The service runs as `npm start` does, from dist/ (built first); --tsx runs src/ through tsx instead.
// DATABASE_URL (admin connection; default postgres://postgres@127.0.0.1:5432/test) hosts the seeded
// database vk_bench_read; --redis runs the cached phases with REDIS_URL (default redis://127.0.0.1:6379).
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import {
  buildDist,
  processCpuSeconds,
  type ServerProcess,
  startApiService,
  startCeiling,
} from '../dev/support/processes.js';
import { DEFAULT_DATABASE_POOL_SIZE } from '../src/config.js';
import { vaultPageSql } from '../src/domain/transactions/transaction-page-sql.js';
import {
  type EmbeddedFootprint,
  measureEmbeddedFootprint,
  reportEmbeddedFootprint,
} from './support/embedded-footprint.js';
import { ensureSeededDatabase, TRANSACTION_COUNT } from './support/read-seed.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    reseed: { type: 'boolean', default: false },
    redis: { type: 'boolean', default: false },
    tsx: { type: 'boolean', default: false },
    backfill: { type: 'string', default: '50000' },
    'skip-embedded': { type: 'boolean', default: false },
    /** Only the ceiling and the cached phases (both address families), with their targets. */
    'cached-only': { type: 'boolean', default: false },
    /** Only the embedded default's footprint (no PostgreSQL needed), with its two targets. */
    'embedded-only': { type: 'boolean', default: false },
  },
});
const DURATION = Number(args.duration);
/**
 * Client addresses per phase (X-Forwarded-For), each spending at most its 100 reads a minute: enough
 * for 200 000 req/s through a phase of any length, so no phase runs into the limits it measures.
 */
const CLIENTS = Math.max(20_000, 2_000 * DURATION);
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
  /**
   * CPU time the load generator (this process) spent per request: it shares the machine's cores with
   * the service, so it bounds req/s too. In the page-query phase the client is the query's own driver.
   */
  clientCpuMicrosPerRequest: number;
  /** The service's resident memory at the end of the phase (MB). */
  rssMb: number;
  problems: number;
}

let phaseNumber = 0;
export type Family = 'ipv4' | 'ipv6';
/**
 * A fresh block of CLIENTS addresses for each phase, so no address spends two phases' requests: IPv4
 * addresses, or IPv6 addresses each in a /64 of its own (the key the limits count) with a random host
 * part, written in full or compressed as clients' proxies forward them.
 */
function clientAddresses(family: Family = 'ipv4'): () => string {
  phaseNumber += 1;
  const block = phaseNumber;
  let next = 0;
  if (family === 'ipv6') {
    const hosts = Array.from({ length: 256 }, (_, h) =>
      h % 2 === 0
        ? `::${((h * 7919) & 0xffff).toString(16)}`
        : `:0:${h.toString(16)}:${(h * 31).toString(16)}:1`,
    );
    return () => {
      const i = next++ % CLIENTS;
      return `2001:db8:${block.toString(16)}:${i.toString(16)}${hosts[i & 255]}`;
    };
  }
  return () => {
    const i = next++ % CLIENTS;
    return `10.${block}.${i >> 8}.${i & 255}`;
  };
}

function rssMbOf(server: ServerProcess): number {
  try {
    const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}

const log = (line: string) => process.stdout.write(`${line}\n`);
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

const startService = (databaseUrl: string, env: Record<string, string> = {}): Promise<ServerProcess> =>
  startApiService({ root, tsx: args.tsx, env: { DATABASE_URL: databaseUrl, ...env } });

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
  family: Family = 'ipv4',
): Promise<Figures> {
  log(`  ${name} (${duration} s)`);
  const cpuBefore = server.cpuSeconds();
  const databaseBefore = await databaseCpuSeconds();
  const clientBefore = process.cpuUsage();
  const client = clientAddresses(family);
  const result = await autocannon({
    url: server.baseUrl,
    connections: CONNECTIONS,
    duration,
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          path: path(),
          headers: { ...request.headers, 'x-forwarded-for': client() },
        }),
      },
    ],
  });
  const clientCpu = process.cpuUsage(clientBefore);
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
    clientCpuMicrosPerRequest: perRequest((clientCpu.user + clientCpu.system) / 1e6),
    rssMb: rssMbOf(server),
    problems: result.non2xx + result.errors + result.timeouts,
  };
}

/**
 * Open loop: requests leave on a fixed schedule (`rate` a second) whether or not earlier ones have
 * answered, and each latency counts from its scheduled time, so queueing shows in p99.
 */
async function openLoop(
  name: string,
  server: ServerProcess,
  path: () => string,
  rate: number,
  duration = DURATION,
): Promise<Figures> {
  log(`  ${name} (${duration} s at ${rate} req/s)`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  const { port } = new URL(server.baseUrl);
  const client = clientAddresses();
  const latencies: number[] = [];
  let problems = 0;
  const cpuBefore = server.cpuSeconds();
  const databaseBefore = await databaseCpuSeconds();
  const clientBefore = process.cpuUsage();
  const started = performance.now();
  const total = Math.round(rate * duration);
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i += 1) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    pending.push(
      new Promise<void>((done) => {
        const request = http.get(
          {
            host: '127.0.0.1',
            port,
            path: path(),
            agent,
            headers: { 'x-forwarded-for': client() },
          },
          (response) => {
            if (response.statusCode !== 200) problems += 1;
            response.resume();
            response.once('end', () => {
              latencies.push(performance.now() - due);
              done();
            });
          },
        );
        request.once('error', () => {
          problems += 1;
          done();
        });
      }),
    );
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - started) / 1000;
  const clientCpu = process.cpuUsage(clientBefore);
  const cpu = server.cpuSeconds() - cpuBefore;
  const databaseCpu = (await databaseCpuSeconds()) - databaseBefore;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  const perRequest = (seconds: number) => Math.round((seconds * 1e6) / Math.max(1, total));
  return {
    name,
    requestsPerSecond: Math.round(total / elapsed),
    p50: at(0.5),
    p99: at(0.99),
    cpuMicrosPerRequest: perRequest(cpu),
    databaseCpuMicrosPerRequest: perRequest(databaseCpu),
    clientCpuMicrosPerRequest: perRequest((clientCpu.user + clientCpu.system) / 1e6),
    rssMb: rssMbOf(server),
    problems,
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
  if (args['embedded-only']) {
    log(`embedded default (npm start on PGlite), idle and a ${args.backfill}-transaction backfill`);
    reportEmbeddedFootprint(await measureEmbeddedFootprint(Number(args.backfill)));
    log(`  (1-minute load average: ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores)`);
    return;
  }
  log(`read benchmark: ${CONNECTIONS} connections, ${DURATION} s per phase`);
  if (!args.tsx) {
    log('building dist/ (npm run build)');
    buildDist(root, log);
  }
  const databaseUrl = await ensureSeededDatabase(ADMIN_URL, 'vk_bench_read', { reseed: args.reseed, log });
  const addresses = await vaultAddresses(databaseUrl);
  admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  log(`database: ${addresses.length} vaults, ${TRANSACTION_COUNT} transactions`);
  const hot = addresses[0]!;
  const results: Figures[] = [];
  const loadBefore = loadavg()[0]!;

  const cacheEnv: Record<string, string> = args.redis ? { REDIS_URL } : {};
  const cached = await startService(databaseUrl, cacheEnv);
  const ceiling = await startCeiling(await (await fetch(`${cached.baseUrl}/api/vaults/${hot}`)).text(), root);
  const listBody = await (await fetch(`${cached.baseUrl}/api/transactions?vault=${hot}`)).text();
  const phases: Record<string, Figures> = {};
  const run = async (key: string, figures: Promise<Figures>) => {
    const measured = await figures;
    phases[key] = measured;
    results.push(measured);
    return measured;
  };
  try {
    await load('warm-up', ceiling, () => '/', 2);
    await run(
      'ceiling',
      load('ceiling: bare node:http, same JSON body', ceiling, () => '/'),
    );
    await ceiling.stop();
    const detailPath = () => `/api/vaults/${hot}`;
    const listPath = () => `/api/transactions?vault=${hot}`;
    await load('warm-up', cached, detailPath, 2);
    await run('detail', load('cached GET /api/vaults/:address, IPv4 clients', cached, detailPath));
    await load('warm-up', cached, detailPath, 2, 'ipv6');
    await run(
      'detail6',
      load('cached GET /api/vaults/:address, IPv6 clients', cached, detailPath, DURATION, 'ipv6'),
    );
    await load('warm-up', cached, listPath, 2);
    await run('list', load('cached GET /api/transactions?vault=…, IPv4 clients', cached, listPath));
    await load('warm-up', cached, listPath, 2, 'ipv6');
    await run(
      'list6',
      load('cached GET /api/transactions?vault=…, IPv6 clients', cached, listPath, DURATION, 'ipv6'),
    );
  } finally {
    await ceiling.stop();
    await cached.stop();
  }
  await run('listCeiling', listBodyCeiling(listBody));
  if (args['cached-only']) {
    await admin.end();
    reportCached(results, phases, Math.max(loadBefore, loadavg()[0]!));
    return;
  }

  const unlimited = await startService(databaseUrl, { ...cacheEnv, RATE_LIMIT_ENABLED: 'false' });
  try {
    await load('warm-up', unlimited, () => `/api/vaults/${hot}`, 2);
    await run(
      'detailUnlimited',
      load('diagnostic: cached vault detail, rate limits off', unlimited, () => `/api/vaults/${hot}`),
    );
  } finally {
    await unlimited.stop();
  }

  const uncached = await startService(databaseUrl, { READ_CACHE: 'false' });
  try {
    const anyVault = () => `/api/transactions?vault=${pick(addresses)}`;
    await load('warm-up', uncached, anyVault, 2);
    const page1 = await run(
      'uncached',
      load('uncached GET /api/transactions?vault=… (random vault)', uncached, anyVault),
    );
    const anyPage = () => `${anyVault()}&page=${1 + Math.floor(Math.random() * 20)}`;
    await run('deep', load('uncached, random vault and page 1..20', uncached, anyPage));
    const rate = Math.max(1, Math.round(page1.requestsPerSecond / 2));
    await run(
      'open',
      openLoop('open loop: uncached random vault, half the maximum rate', uncached, anyVault, rate),
    );
  } finally {
    await uncached.stop();
  }
  await run('floor', databaseOnly(databaseUrl, addresses));
  await admin.end();
  admin = undefined;
  let embedded: EmbeddedFootprint | undefined;
  if (!args['skip-embedded']) {
    log(`  embedded default (npm start on PGlite), idle and a ${args.backfill}-transaction backfill`);
    embedded = await measureEmbeddedFootprint(Number(args.backfill));
  }
  report(results, phases, embedded, Math.max(loadBefore, loadavg()[0]!));
}

/**
 * What the list's bytes cost alone: the bare server sending the cached list's body (about 20 times the
 * detail's), so the list's CPU per request can be read against the same payload as well.
 */
async function listBodyCeiling(body: string): Promise<Figures> {
  const server = await startCeiling(body, root);
  try {
    await load('warm-up', server, () => '/', 2);
    return await load("ceiling: bare node:http, the list's body", server, () => '/');
  } finally {
    await server.stop();
  }
}

/**
 * The uncached list's floor: the service's own page statement straight through pg (a pool of the
 * service's default size), CONNECTIONS callers in a loop, no HTTP. What PostgreSQL and the driver cost
 * alone.
 */
async function databaseOnly(databaseUrl: string, addresses: string[]): Promise<Figures> {
  const name = 'diagnostic: the page query alone via pg, no HTTP';
  log(`  ${name} (${DURATION} s)`);
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: DEFAULT_DATABASE_POOL_SIZE,
    application_name: 'vaultkeeper',
  });
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
    clientCpuMicrosPerRequest: 0,
    rssMb: 0,
    problems: 0,
  };
}

/** The phase table and the cached phases' targets; returns the helpers the other targets use. */
function reportCached(results: Figures[], phases: Record<string, Figures>, load: number) {
  const { ceiling, detail, detail6, list, list6, listCeiling } = phases as Record<string, Figures>;
  if (!ceiling || !detail || !detail6 || !list || !list6 || !listCeiling)
    throw new Error('a phase is missing');
  const columns = (...cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(58) : c.padStart(i >= 5 ? 11 : 8))).join(' ');
  log('');
  log(
    columns(
      'phase',
      'req/s',
      'p50 ms',
      'p99 ms',
      '×ceiling',
      'CPU µs/req',
      'PG µs/req',
      'client µs',
      'RSS MB',
    ),
  );
  for (const f of results) {
    const cells = [f.name, String(f.requestsPerSecond), String(f.p50), String(f.p99)];
    cells.push((f.requestsPerSecond / ceiling.requestsPerSecond).toFixed(2), String(f.cpuMicrosPerRequest));
    cells.push(String(f.databaseCpuMicrosPerRequest));
    cells.push(f.clientCpuMicrosPerRequest > 0 ? String(f.clientCpuMicrosPerRequest) : '–');
    cells.push(f.rssMb > 0 ? String(f.rssMb) : '–');
    log(columns(...cells) + (f.problems > 0 ? `  (${f.problems} non-2xx or errors)` : ''));
  }
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  const byRate = (f: Figures, base: Figures) => f.requestsPerSecond / Math.max(1, base.requestsPerSecond);
  const byCpu = (f: Figures, base = ceiling) => base.cpuMicrosPerRequest / Math.max(1, f.cpuMicrosPerRequest);
  const total = (f: Figures) => f.cpuMicrosPerRequest + f.databaseCpuMicrosPerRequest;
  // A phase with errors or non-2xx answers (a 429 is cheap) measured something else: no HTTP target passes.
  const clean = results.every((f) => f.problems === 0);
  const line = (text: string, value: number, ok: boolean, unit = '×', http = unit !== 'MB') =>
    log(`  ${text}: ${value.toFixed(unit === '×' ? 2 : 0)} ${unit} → ${verdict(ok && (clean || !http))}`);
  log('');
  log(
    `targets (1-minute load average during the run: ${load.toFixed(1)} on ${availableParallelism()} cores):`,
  );
  if (!clean) log('  a phase had errors or non-2xx answers: the HTTP targets do not count (MISS)');
  for (const [family, d, l] of [
    ['IPv4', detail, list],
    ['IPv6', detail6, list6],
  ] as const) {
    line(
      `cached vault detail, ${family} clients ≥ 0.65 × ceiling by req/s`,
      byRate(d, ceiling),
      byRate(d, ceiling) >= 0.65,
    );
    line(`cached vault detail, ${family} clients ≥ 0.50 × ceiling by CPU/request`, byCpu(d), byCpu(d) >= 0.5);
    // Each read against the bare server sending its own body: the list's is about 20 times the detail's.
    line(
      `cached transaction list, ${family} clients ≥ 0.50 × its same-body ceiling by CPU/request`,
      byCpu(l, listCeiling),
      byCpu(l, listCeiling) >= 0.5,
    );
  }
  for (const [what, v4, v6] of [
    ['vault detail', detail, detail6],
    ['transaction list', list, list6],
  ] as const) {
    const extra = v6.cpuMicrosPerRequest - v4.cpuMicrosPerRequest;
    line(`an IPv6 client costs ≤ 2 µs more than an IPv4 one (${what}, CPU/request)`, extra, extra <= 2, 'µs');
  }
  return { line, total, byRate };
}

function report(
  results: Figures[],
  phases: Record<string, Figures>,
  embedded: EmbeddedFootprint | undefined,
  load: number,
): void {
  const { uncached, deep, open, floor } = phases as Record<string, Figures>;
  if (!uncached || !deep || !open || !floor) throw new Error('a phase is missing');
  const { line, total, byRate } = reportCached(results, phases, load);
  line(
    'uncached list ≥ 0.75 × the page query alone by req/s',
    byRate(uncached, floor),
    byRate(uncached, floor) >= 0.75,
  );
  log(`    (by CPU + PG per request: ${(total(floor) / Math.max(1, total(uncached))).toFixed(2)} ×;`);
  log(`    the load generator spent ${uncached.clientCpuMicrosPerRequest} µs/request of the same cores)`);
  const deepRatio = total(deep) / Math.max(1, total(uncached));
  line('pages 1..20 ≤ 1.5 × page 1 by CPU + PG per request', deepRatio, deepRatio <= 1.5);
  line(
    `open-loop p99 < 25 ms at ${open.requestsPerSecond} req/s (half the maximum)`,
    open.p99,
    open.p99 < 25,
    'ms',
  );
  if (embedded !== undefined) reportEmbeddedFootprint(embedded, log);
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
