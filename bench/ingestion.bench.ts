// Ingestion benchmark: the service (ROLES=ingestor) as a child process, fed by the fake validator that
// runs in this process. Per backend (PGlite, PostgreSQL): a live stream at 200 tx/s (notification →
// committed projection, p50/p99), then a backfill of 50 000 program transactions that landed while the
// service was down (tx/s, CPU per transaction, peak RSS), each printed next to its target.
//   npx tsx bench/ingestion.bench.ts [--transactions 50000] [--rate 200] [--seconds 15]
//     [--backends pglite,postgres] [--entry dist|src]
// DATABASE_URL (admin connection; default postgres://postgres@127.0.0.1:5432/test) hosts vk_bench_ingest.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Address } from '@solana/kit';
import pg from 'pg';
import { type FakeValidator, startFakeValidator } from '../dev/validator/index.js';
import {
  type LogLine as BaseLogLine,
  createFundedVaults,
  startLoggedService,
} from './support/logged-service.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    transactions: { type: 'string', default: '50000' },
    rate: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '15' },
    backends: { type: 'string', default: 'pglite,postgres' },
    entry: { type: 'string', default: 'dist' },
  },
});
/** `dist`: the built service, as `npm start` runs it in production; `src`: through tsx (≈ 80 MB more RSS). */
const ENTRY = args.entry === 'src' ? 'src' : 'dist';
const TRANSACTIONS = Number(args.transactions);
const RATE = Number(args.rate);
const SECONDS = Number(args.seconds);
const VAULTS = 10;
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const BENCH_DB = 'vk_bench_ingest';
const TARGETS = { backfillPerSecond: 1_500, liveP99Ms: 250, rssMb: 300 };

const log = (line: string) => process.stdout.write(`${line}\n`);
interface LogLine extends BaseLogLine {
  msg?: string;
  time?: string;
  applied?: number;
  signatures?: string[];
  committedAt?: number;
  readMs?: number;
  applyMs?: number;
}

/** The service as an operator runs it, with its JSON log lines parsed as they arrive. */
function startIngestor(env: Record<string, string>) {
  // BENCH_CHILD_NODE_ARGS (e.g. `--cpu-prof`) profiles the service itself.
  const nodeArgs = process.env.BENCH_CHILD_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const entry =
    ENTRY === 'dist' ? [join(root, 'dist/main.js')] : ['--import', 'tsx', join(root, 'src/main.ts')];
  return startLoggedService<LogLine>([...nodeArgs, ...entry], {
    cwd: root,
    env: { ...process.env, ROLES: 'ingestor', LOG_LEVEL: 'debug', PORT: '0', HOST: '127.0.0.1', ...env },
  });
}

/** Peak resident memory of a process, sampled from /proc every 100 ms. */
function sampleRss(pid: number) {
  let samples: number[] = [];
  const timer = setInterval(() => {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      samples.push(kb / 1024);
    } catch {}
  }, 100);
  return {
    /** Peak since the last call, and the peak of each quarter of that span (growth shows there). */
    take() {
      const taken = samples;
      samples = [];
      const quarter = Math.max(1, Math.ceil(taken.length / 4));
      const quarters = [0, 1, 2, 3].map((q) => Math.max(0, ...taken.slice(q * quarter, (q + 1) * quarter)));
      return { peak: Math.max(0, ...taken), quarters };
    },
    stop: () => clearInterval(timer),
  };
}

/** CPU seconds (user + system) a process has used so far, from /proc (clock ticks of 10 ms). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU this process (the fake validator) has used, in seconds. */
const ownCpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0);
const mark = (ok: boolean) => (ok ? 'ok' : 'MISSED');
const timeOf = (line: LogLine) => Date.parse(line.time ?? '');
type Service = ReturnType<typeof startIngestor>;

async function stopService(service: Service): Promise<void> {
  service.child.kill('SIGTERM');
  await new Promise((r) => service.child.once('exit', r));
}

/** RATE transfers a second, spread evenly, each timed from its notification to its commit. */
async function measureLive(service: Service, fake: FakeValidator, vaults: Address[]) {
  const sentAt = new Map<string, number>();
  const committedAt = new Map<string, number>();
  const cycles: { readMs: number; applyMs: number; size: number }[] = [];
  service.listeners.add((line) => {
    if (line.msg !== 'applied live signatures') return;
    cycles.push({ readMs: line.readMs ?? 0, applyMs: line.applyMs ?? 0, size: line.signatures?.length ?? 0 });
    for (const signature of line.signatures ?? []) committedAt.set(signature, line.committedAt ?? 0);
  });
  const total = RATE * SECONDS;
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / RATE - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const { signature } = await fake.execute(vaults[i % vaults.length] as Address, { amount: 1000 });
    sentAt.set(signature, Date.now());
  }
  const rate = sentAt.size / ((performance.now() - started) / 1000);
  const deadline = Date.now() + 60_000;
  while (committedAt.size < sentAt.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const latencies = [...sentAt]
    .filter(([signature]) => committedAt.has(signature))
    .map(([signature, sent]) => (committedAt.get(signature) ?? 0) - sent)
    .sort((a, b) => a - b);
  return { sent: sentAt.size, rate, latencies, cycles };
}

async function runBackend(backend: 'pglite' | 'postgres'): Promise<void> {
  log(`\n== ${backend}`);
  const fake = await startFakeValidator();
  const dataDir = mkdtempSync(join(tmpdir(), 'vk-bench-ingest-'));
  let databaseEnv: Record<string, string> = { DATA_DIR: dataDir };
  if (backend === 'postgres') {
    await adminQuery(`drop database if exists ${BENCH_DB} with (force)`);
    await adminQuery(`create database ${BENCH_DB}`);
    const url = new URL(ADMIN_URL);
    url.pathname = `/${BENCH_DB}`;
    databaseEnv = { DATABASE_URL: url.toString() };
  }
  const env = { ...databaseEnv, SOLANA_RPC_URL: fake.rpcUrl, SOLANA_WS_URL: fake.wsUrl };
  const services: Service[] = [];
  try {
    // 1. Live, on a settled database: the vaults are ingested first, then RATE transfers a second.
    const vaults = await createFundedVaults(fake, VAULTS, 'Bench vault');
    let service = startIngestor(env);
    services.push(service);
    await service.waitForLine((l) => l.msg === 'backfill done' && (l.applied ?? 0) >= VAULTS, 120_000);
    const rss = sampleRss(service.child.pid ?? 0);
    const live = await measureLive(service, fake, vaults);
    const liveRss = rss.take().peak;
    rss.stop();
    await stopService(service);

    // 2. Backfill: TRANSACTIONS transfers land while the service is down; it catches up at start.
    const seedStarted = Date.now();
    for (const vault of vaults) {
      await fake.burst(Math.ceil(TRANSACTIONS / VAULTS), { vault, blockEvery: 10, perSlot: 4 });
    }
    const missed = fake.ledger().length - VAULTS - live.sent;
    log(
      `ledger: ${missed} program transactions landed while the service was down (${Date.now() - seedStarted} ms)`,
    );
    service = startIngestor(env);
    services.push(service);
    const pid = service.child.pid ?? 0;
    const backfillRss = sampleRss(pid);
    const locked = await service.waitForLine(
      (l) => l.msg === 'ingestor lock held: this process ingests',
      120_000,
    );
    backfillRss.take(); // start-up (migrations, PGlite boot) is not the backfill
    const cpuAtStart = { service: cpuSeconds(pid), validator: ownCpuSeconds() };
    const done = await service.waitForLine(
      (l) => l.msg === 'backfill done' && (l.applied ?? 0) > 0,
      1_800_000,
    );
    const cpu = {
      service: cpuSeconds(pid) - cpuAtStart.service,
      validator: ownCpuSeconds() - cpuAtStart.validator,
    };
    const { peak, quarters } = backfillRss.take();
    backfillRss.stop();

    const seconds = (timeOf(done) - timeOf(locked)) / 1000;
    const applied = done.applied ?? 0;
    const rate = applied / seconds;
    const isPg = backend === 'postgres';
    log(
      `backfill: ${applied} signatures in ${seconds.toFixed(1)} s = ${rate.toFixed(0)} tx/s` +
        (isPg
          ? `   (target ≥ ${TARGETS.backfillPerSecond}: ${mark(rate >= TARGETS.backfillPerSecond)})`
          : ''),
    );
    const perTx = (used: number) => ((used * 1000) / Math.max(1, applied)).toFixed(2);
    log(
      `backfill CPU per transaction: service ${perTx(cpu.service)} ms, fake validator ${perTx(cpu.validator)} ms` +
        ` (machine load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores)`,
    );
    log(`backfill RSS by quarter of the run: ${quarters.map((q) => q.toFixed(0)).join(' → ')} MB`);
    log(
      `backfill peak RSS: ${peak.toFixed(0)} MB` +
        (isPg ? `   (target < ${TARGETS.rssMb} MB: ${mark(peak < TARGETS.rssMb)})` : ''),
    );
    const p50 = percentile(live.latencies, 50);
    const p99 = percentile(live.latencies, 99);
    log(
      `live: ${live.sent} transfers at ${live.rate.toFixed(0)} tx/s; ${live.latencies.length} applied live` +
        ` (${live.sent - live.latencies.length} left to the backfill)`,
    );
    log(
      `live notification→commit: p50 ${p50.toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, max ${(live.latencies.at(-1) ?? 0).toFixed(0)} ms` +
        `   (target p99 < ${TARGETS.liveP99Ms} ms: ${mark(p99 < TARGETS.liveP99Ms)})`,
    );
    log(`live peak RSS: ${liveRss.toFixed(0)} MB`);
    const mean = (pick: (c: (typeof live.cycles)[number]) => number) =>
      (live.cycles.reduce((sum, c) => sum + pick(c), 0) / Math.max(1, live.cycles.length)).toFixed(1);
    log(
      `live batches: ${live.cycles.length}, mean ${mean((c) => c.size)} signatures, read ${mean((c) => c.readMs)} ms, apply ${mean((c) => c.applyMs)} ms`,
    );
  } finally {
    for (const service of services) if (service.child.exitCode === null) await stopService(service);
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (backend === 'postgres')
      await adminQuery(`drop database if exists ${BENCH_DB} with (force)`).catch(() => {});
  }
}

const backends = args.backends.split(',').map((b) => b.trim()) as ('pglite' | 'postgres')[];
if (ENTRY === 'dist') {
  // What `npm start` does; type errors elsewhere in the tree do not stop tsc from emitting.
  const build = spawnSync(
    process.execPath,
    [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
  if (build.status !== 0)
    log(`note: tsc reported errors; running what it emitted\n${build.stdout.slice(0, 400)}`);
}
log(
  `ingestion benchmark: ${TRANSACTIONS} transactions backfilled, then ${RATE} tx/s live for ${SECONDS} s; backends ${backends.join(', ')}`,
);
for (const backend of backends) {
  if (backend === 'postgres') {
    try {
      await adminQuery('select 1');
    } catch {
      log('\n== postgres\nskipped: PostgreSQL is not reachable at DATABASE_URL');
      continue;
    }
  }
  await runBackend(backend);
}
process.exit(0);
