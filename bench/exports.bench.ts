// Exports benchmark: the service (ROLES=api, PostgreSQL) as a child process first serves a client that
// reads at 100 KB/s, then exports 1 000 000 transactions of one owner (1 000 vaults) as CSV and as JSON
// Lines, read as fast as this process can. Each phase reports rows a second, the service's CPU a row, and
// its resident memory (sampled every 50 ms from /proc) before, at its peak and its growth.
// Targets: ≥ 20 000 rows a second; RSS growth < 50 MB; the slow client grows nothing.
//   npm run bench -- exports [--reseed] [--dist] [--slow-seconds 60] [--node-flags '…']
// DATABASE_URL is the admin connection (default postgres://postgres@127.0.0.1:5432/postgres); the
// seeded database is vk_bench_exports (the read benchmark's seed: bench/support/read-seed.ts).
import { readFileSync } from 'node:fs';
import { get, type IncomingMessage } from 'node:http';
import { dirname, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildDist, processCpuSeconds, type ServerProcess, startServer } from '../dev/support/processes.js';
import { createTestWallet, type TestWallet } from '../dev/support/wallet.js';
import { ensureSeededDatabase, TRANSACTION_COUNT } from './support/read-seed.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    reseed: { type: 'boolean', default: false },
    dist: { type: 'boolean', default: false },
    'slow-seconds': { type: 'string', default: '60' },
    'node-flags': { type: 'string', default: '' },
  },
});
/** For a diagnostic run: `--node-flags=--heap-growing-percent=0` measures V8's own heap growth. */
const nodeFlags = args['node-flags'].split(' ').filter((flag) => flag !== '');
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SLOW_BYTES_PER_SECOND = 100 * 1024;
const TARGET_ROWS_PER_SECOND = 20_000;
const TARGET_RSS_GROWTH_MB = 50;

const log = (line: string) => console.log(line);
const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** Samples the service's RSS until stopped: the peak seen. */
function sampleRss(pid: number) {
  let peak = rssMb(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 50);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, rssMb(pid));
    },
  };
}

/** A GET of the export, signed by the owner for the service's Domain. */
function openExport(service: ServerProcess, owner: TestWallet, query: string): Promise<IncomingMessage> {
  const path = `/api/exports/transactions?${query}`;
  const domain = `localhost:${new URL(service.baseUrl).port}`;
  const headers = owner.authHeaders({ request: { method: 'GET', path, domain } });
  return new Promise((resolvePromise, reject) => {
    const request = get(`${service.baseUrl}${path}`, { headers });
    request.once('response', (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        reject(new Error(`export answered ${response.statusCode}`));
        return;
      }
      resolvePromise(response);
    });
    request.once('error', reject);
  });
}

/** Counts bytes and line ends, taking each chunk as fast as it comes, or paced to `bytesPerSecond`. */
function createReader(bytesPerSecond: number | null) {
  const counts = { bytes: 0, lines: 0 };
  const sink = new Writable({
    highWaterMark: 16 * 1024,
    write(chunk: Buffer, _encoding, done) {
      counts.bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) counts.lines += 1;
      if (bytesPerSecond === null) done();
      else setTimeout(done, (chunk.length / bytesPerSecond) * 1000);
    },
  });
  return { counts, sink };
}

async function fullSpeed(service: ServerProcess, owner: TestWallet, format: 'csv' | 'jsonl') {
  const pid = service.child.pid!;
  const before = rssMb(pid);
  const sampler = sampleRss(pid);
  const cpuBefore = processCpuSeconds(pid);
  const started = performance.now();
  const response = await openExport(service, owner, `owner=${owner.address}&format=${format}`);
  const reader = createReader(null);
  await pipeline(response, reader.sink);
  const seconds = (performance.now() - started) / 1000;
  const peak = sampler.stop();
  const cpuSeconds = processCpuSeconds(pid) - cpuBefore;
  const rows = reader.counts.lines - (format === 'csv' ? 1 : 0);
  const rate = rows / seconds;
  const growth = peak - before;
  log(
    `${format}: ${rows} rows, ${(reader.counts.bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)} s = ` +
      `${Math.round(rate)} rows/s (target ≥ ${TARGET_ROWS_PER_SECOND}), service CPU ` +
      `${((cpuSeconds / rows) * 1e6).toFixed(1)} µs a row; service RSS ${before.toFixed(0)} MB → ` +
      `peak ${peak.toFixed(0)} MB, growth ${growth.toFixed(1)} MB (target < ${TARGET_RSS_GROWTH_MB})`,
  );
  if (rows !== TRANSACTION_COUNT) throw new Error(`expected ${TRANSACTION_COUNT} rows, got ${rows}`);
  return rate >= TARGET_ROWS_PER_SECOND && growth < TARGET_RSS_GROWTH_MB;
}

async function slowClient(service: ServerProcess, owner: TestWallet, seconds: number) {
  const pid = service.child.pid!;
  const before = rssMb(pid);
  const samples: number[] = [];
  const timer = setInterval(() => samples.push(rssMb(pid)), 1000);
  const response = await openExport(service, owner, `owner=${owner.address}`);
  const reader = createReader(SLOW_BYTES_PER_SECOND);
  const reading = pipeline(response, reader.sink).catch(() => {});
  await new Promise((done) => setTimeout(done, seconds * 1000));
  clearInterval(timer);
  response.destroy();
  await reading;
  const peak = Math.max(before, ...samples);
  // Growth that a slow reader causes keeps rising for as long as it reads: the second half's peak
  // would stand above the first half's.
  const middle = Math.floor(samples.length / 2);
  const rise = Math.max(0, ...samples.slice(middle)) - Math.max(before, ...samples.slice(0, middle));
  log(
    `slow client (100 KB/s for ${seconds} s): read ${(reader.counts.bytes / 1e6).toFixed(2)} MB ` +
      `(${reader.counts.lines} rows); service RSS ${before.toFixed(0)} MB → peak ${peak.toFixed(0)} MB ` +
      `(growth ${(peak - before).toFixed(1)} MB; second half's peak over the first's ${rise.toFixed(1)} MB)`,
  );
  return peak - before < TARGET_RSS_GROWTH_MB && rise < 5;
}

async function main() {
  const url = await ensureSeededDatabase(ADMIN_URL, 'vk_bench_exports', { reseed: args.reseed, log });
  const owner = createTestWallet();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // One owner holds every vault: the owner's export is the whole million.
  await client.query('update vaults set authority = $1', [owner.address]);
  await client.end();
  if (args.dist) buildDist(root, log);
  // As startApiService runs it, with a longer start-up allowance for a busy machine.
  const service = await startServer({
    args: [...nodeFlags, ...(args.dist ? ['dist/main.js'] : ['--import', 'tsx', 'src/main.ts'])],
    cwd: root,
    readyPath: '/api/health',
    timeoutMs: 300_000,
    env: {
      ROLES: 'api',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      DATABASE_URL: url,
      REDIS_URL: '',
    },
  });
  let ok = true;
  try {
    // A first small export compiles the path once, so the phases measure what an export holds.
    await pipeline(
      await openExport(service, owner, `owner=${owner.address}&to=2026-01-02`),
      createReader(null).sink,
    );
    ok = (await slowClient(service, owner, Number(args['slow-seconds']))) && ok;
    ok = (await fullSpeed(service, owner, 'csv')) && ok;
    ok = (await fullSpeed(service, owner, 'jsonl')) && ok;
  } finally {
    await service.stop();
  }
  log(ok ? 'exports: every target met' : 'exports: a target was missed');
  process.exitCode = ok ? 0 : 1;
}

await main();
