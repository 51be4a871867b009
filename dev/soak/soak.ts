// npm run soak -- --minutes N [--backend embedded|postgres] [--out DIR] [--sample-seconds S] [--warmup-minutes W]
//   [--tx-rate 50] [--inject-leak memory|fds|sockets]
// The service as shipped (`npm start`: every role, rate limits on, TRUST_PROXY=1) on the embedded
// default (PGlite, in-process cache) or on PostgreSQL + Redis, its chain the fake validator in this
// process, under a steady mixed load (dev/soak/soak-load.ts) for N minutes. Samples the service
// process (RSS, heap, descriptors, sockets, event-loop delay, in-process map sizes, delivery queue)
// every S seconds; then stops the load, lets ingestion and deliveries drain, and checks that nothing
// was lost. Passes when no sampled series grows after warm-up (docs/SOAK.md), no request failed, and
// every transaction and delivery arrived. Writes samples.json, soak.svg and service.log to DIR.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Address } from '@solana/kit';
import { Redis } from 'ioredis';
import pg from 'pg';
import { freePort } from '../support/processes.js';
import { createTestWallet, fetchSigned } from '../support/wallet.js';
import { type FakeValidator, startFakeValidator } from '../validator/index.js';
import { renderSvg, round, type Sample, trends, verdictWord } from './soak-analysis.js';
import {
  type Behaviour,
  type Caller,
  createCaller,
  every,
  type Receiver,
  startReceiver,
  streamLoops,
  Tally,
  transactionLoad,
} from './soak-load.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '60' },
    backend: { type: 'string', default: 'embedded' },
    out: { type: 'string' },
    'sample-seconds': { type: 'string' },
    'warmup-minutes': { type: 'string' },
    /** Program transactions a second (default 50); lower only to check the soak itself on a crowded machine. */
    'tx-rate': { type: 'string', default: '50' },
    /** Preload dev/soak/soak-leak.mjs into the service: a deliberate leak the soak must catch. */
    'inject-leak': { type: 'string' },
  },
});
const LEAKS = ['memory', 'fds', 'sockets'];
const INJECT_LEAK = args['inject-leak'];
if (INJECT_LEAK !== undefined && !LEAKS.includes(INJECT_LEAK)) {
  process.stderr.write(`--inject-leak must be one of ${LEAKS.join(', ')}\n`);
  process.exit(2);
}
const MINUTES = Number(args.minutes);
const BACKEND = args.backend === 'postgres' ? 'postgres' : 'embedded';
const SAMPLE_SECONDS = Number(args['sample-seconds'] ?? (MINUTES >= 20 ? 60 : 5));
// Warm-up: until the rate-limit counters hold two windows of clients (2 min) and idle keep-alive
// sockets start closing (72 s); a long run gives it 10 minutes.
const WARMUP_SECONDS =
  Number(args['warmup-minutes'] ?? (MINUTES >= 30 ? 10 : Math.min(2.25, MINUTES / 2))) * 60;
const OUT = resolve(args.out ?? join(tmpdir(), `vaultkeeper-soak-${BACKEND}-${Date.now()}`));
const PG_ADMIN = process.env.SOAK_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.SOAK_REDIS_URL ?? 'redis://127.0.0.1:6379/8';
const DRAIN_MS = 10 * 60_000;
/** Requests a second by kind, and the program transactions the validator lands a second. */
const RATES = {
  cachedDetail: 20,
  cachedList: 15,
  uncachedList: 6,
  uncachedAuthenticated: 2,
  write: 1,
  blinkGet: 3,
  blinkPost: 1,
  transactions: Number(args['tx-rate']),
} as const;
const STREAMS = 8;
const RECEIVERS: readonly Behaviour[] = ['fast', 'fast', 'slow', 'failing', 'flaky'];
const SOL = 1_000_000_000n;

const log = (line: string) =>
  process.stdout.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitUntil<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | null | undefined | false>,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => null);
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(500);
  }
}

/** Clock ticks a second, the unit of /proc/<pid>/stat's CPU times. */
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** CPU seconds a process has used (user and system), from /proc; 0 when it has gone. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command (in parentheses, which may hold spaces) utime and stime are the 12th and 13th fields.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/**
 * Cores a set of processes used since the previous call (CPU seconds per second). Under the soak's
 * steady load this stays level; work that grows with the data stored (a query reading all a day
 * holds) shows as a climb long before anything else does.
 */
function cpuMeter() {
  let last = new Map<number, number>();
  let lastAt = performance.now();
  return (pids: readonly number[]): number => {
    const now = performance.now();
    const next = new Map(pids.map((pid) => [pid, cpuSeconds(pid)] as const));
    let used = 0;
    for (const [pid, seconds] of next) used += seconds - (last.get(pid) ?? 0);
    const cores = used / ((now - lastAt) / 1000);
    last = next;
    lastAt = now;
    return cores;
  };
}

interface Backend {
  env: Record<string, string>;
  extraSamples(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

async function prepareBackend(): Promise<Backend> {
  if (BACKEND === 'embedded') {
    const dataDir = join(OUT, 'data');
    mkdirSync(dataDir, { recursive: true });
    return {
      env: { DATA_DIR: dataDir },
      extraSamples: async () => ({}),
      close: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const database = `vk_soak_${process.pid}`;
  const databaseCpu = cpuMeter();
  // A pool of one: when PostgreSQL restarts under the soak, its connection is replaced, not fatal.
  const admin = new pg.Pool({ connectionString: PG_ADMIN, max: 1 });
  admin.on('error', () => {});
  await admin.query(`drop database if exists ${database} with (force)`);
  await admin.query(`create database ${database}`);
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  await redis.flushdb();
  const url = new URL(PG_ADMIN);
  url.pathname = `/${database}`;
  const upkeep = await standInForAutovacuum(admin, url.toString());
  return {
    env: { DATABASE_URL: url.toString(), REDIS_URL },
    async extraSamples() {
      // A sample taken while either server is away has no value for it (not zero).
      const backends = await admin
        .query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [database])
        .then(({ rows }) => rows.map((row) => row.pid))
        .catch(() => undefined);
      const redisKeys = await redis.dbsize().catch(() => undefined);
      return {
        ...(redisKeys === undefined ? {} : { redisKeys }),
        ...(backends === undefined
          ? {}
          : { pgConnections: backends.length, databaseCores: databaseCpu(backends) }),
      };
    },
    async close() {
      await upkeep.stop();
      await redis.flushdb();
      redis.disconnect();
      await admin.query(`drop database if exists ${database} with (force)`);
      await admin.end();
    },
  };
}

/**
 * A deployment's PostgreSQL runs autovacuum (the server's default); a test machine's may have it off.
 * Without it no row version left by an update or delete is reclaimed and the planner has no
 * statistics, which the soak would then measure instead of the service: so, when it is off, vacuum and
 * analyze the soak's database every minute (autovacuum's default naptime).
 */
async function standInForAutovacuum(admin: pg.Pool, databaseUrl: string) {
  const { rows } = await admin.query<{ autovacuum: string }>('show autovacuum');
  if (rows[0]?.autovacuum === 'on') return { stop: async () => {} };
  log('the PostgreSQL server runs without autovacuum: the soak vacuums its database every minute');
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  pool.on('error', () => {});
  const timer = setInterval(() => void pool.query('vacuum (analyze)').catch(() => {}), 60_000);
  return {
    async stop() {
      clearInterval(timer);
      await pool.end();
    },
  };
}

/** `npm start` (scripts/start.mjs: builds dist/ when stale, then runs it) with its log in OUT. */
async function startService(fake: FakeValidator, backend: Backend) {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const logFd = openSync(join(OUT, 'service.log'), 'a');
  const leak = INJECT_LEAK === undefined ? [] : ['--import', join(root, 'dev/soak/soak-leak.mjs')];
  const child: ChildProcess = spawn(process.execPath, [...leak, join(root, 'scripts/start.mjs')], {
    cwd: root,
    stdio: ['ignore', logFd, logFd],
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_BASE_URL: baseUrl,
      TRUST_PROXY: '1',
      LOG_LEVEL: 'warn',
      SOLANA_CLUSTER: 'localnet',
      SOLANA_RPC_URL: fake.rpcUrl,
      SOLANA_WS_URL: fake.wsUrl,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1,2,4,8,16,32,64,128',
      WEBHOOK_TIMEOUT_MS: '3000',
      ...backend.env,
      ...(INJECT_LEAK === undefined ? {} : { SOAK_INJECT_LEAK: INJECT_LEAK }),
    },
  });
  process.on('exit', () => child.kill('SIGKILL'));
  await waitUntil('the service to be ready', 300_000, async () => {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    return (await fetch(`${baseUrl}/readyz`)).status === 200;
  });
  return { child, baseUrl, pid: child.pid! };
}

/** Vaults owned by `authority`: quiet ones (cached reads), busy ones (transactions), one for Blinks. */
async function createVaults(fake: FakeValidator, authority: Address) {
  const make = async (name: string) => {
    const { vault } = await fake.createVault({ authority, dailyLimit: 10n ** 18n, name });
    await fake.deposit(vault, 10n ** 12n);
    return vault;
  };
  const quiet: Address[] = [];
  const busy: Address[] = [];
  for (let i = 0; i < 20; i++) quiet.push(await make(`Quiet ${i}`));
  for (let i = 0; i < 10; i++) busy.push(await make(`Busy ${i}`));
  return { quiet, busy, blink: await make('Blinks') };
}

/**
 * A fresh blocked transfer on the Blink vault, once the service shows its Action. Nobody approves on
 * chain, so every blocked transfer announces the same nonce: each is its own request, addressed by its
 * transfer's signature (`…/:nonce?transfer=…`); the bare `…/:nonce` stays the first one, which expires
 * after an hour. Returns the request's path under /api/actions/:vault/ and its query, apart.
 */
async function newOverride(fake: FakeValidator, vault: Address, call: Caller): Promise<BlinkRequest> {
  const blocked = await fake.block(vault, { amount: 2n * SOL, reason: 'exceeded_daily_limit' });
  const request = { nonce: String(blocked.overrideNonce), query: `?transfer=${blocked.signature}` };
  // 404 until the service has ingested it: an expected answer while waiting, not a failed request.
  await waitUntil('a blocked transfer to be ingested', 120_000, async () => {
    const path = `/api/actions/${vault}/${request.nonce}${request.query}`;
    const action = (await call('setup', { path, expect: [200, 404] })) as { title?: string } | undefined;
    return action?.title !== undefined;
  });
  return request;
}

interface BlinkRequest {
  readonly nonce: string;
  readonly query: string;
}

function parseMetrics(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line === '') continue;
    const space = line.lastIndexOf(' ');
    values.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return values;
}

/** A process's open descriptors, and the inodes of those that are sockets. */
function descriptors(pid: number | 'self') {
  const socketInodes = new Set<string>();
  let fds = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    fds += 1;
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (target.startsWith('socket:')) socketInodes.add(target.slice('socket:['.length, -1));
    } catch {}
  }
  return { fds, socketInodes };
}

/** TCP sockets of this machine from /proc/net/tcp{,6}: ports, state (01: established) and inode. */
function tcpSockets() {
  const sockets: { localPort: number; remotePort: number; state: string; inode: string }[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    // sl local_address rem_address st … inode (the 10th field); addresses are HEXIP:HEXPORT.
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      const port = (address: string) => Number.parseInt(address.split(':')[1]!, 16);
      sockets.push({
        localPort: port(fields[1]!),
        remotePort: port(fields[2]!),
        state: fields[3]!,
        inode: fields[9]!,
      });
    }
  }
  return sockets;
}

/**
 * Connections between the load generator (this process) and the service, counted on the service's
 * side: its sockets on its port whose other end is an established socket of this process. How many
 * there are is the client's choice (undici keeps an idle keep-alive socket until just before the
 * server's 72-s timeout, so the pool holds the highest concurrency of the last minute or so), not the
 * service's. A connection the client closed and the service did not is no longer counted here, nor is
 * one the service has not accepted yet (it holds no descriptor for it).
 */
function clientConnections(servicePort: number, serviceSockets: Set<string>): number {
  const ours = descriptors('self').socketInodes;
  const sockets = tcpSockets();
  const clientPorts = new Set(
    sockets
      .filter((s) => s.state === '01' && s.remotePort === servicePort && ours.has(s.inode))
      .map((s) => s.localPort),
  );
  return sockets.filter(
    (s) => s.localPort === servicePort && clientPorts.has(s.remotePort) && serviceSockets.has(s.inode),
  ).length;
}

/**
 * One sample of the service process: /proc for memory and descriptors, /metrics for the rest. The
 * judged descriptor and socket counts leave out the connections the load generator holds open
 * (clientConnections); the totals are kept beside them.
 */
const serviceCpu = cpuMeter();

async function sampleService(
  pid: number,
  baseUrl: string,
  backend: Backend,
): Promise<Record<string, number>> {
  const serviceCores = serviceCpu([pid]);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssMb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  const service = descriptors(pid);
  const clients = clientConnections(Number(new URL(baseUrl).port), service.socketInodes);
  // A starved service answers late: the sample keeps its /proc figures and takes the scrape it gets in
  // 20 s. Without one, the series from /metrics have no value in this sample (NaN), not a false 0.
  const scrape = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(20_000) })
    .then((response) => response.text())
    .catch(() => '');
  const metrics = parseMetrics(scrape);
  const metric = (name: string) => metrics.get(name) ?? Number.NaN;
  const size = (structure: string) => metric(`vaultkeeper_in_process_entries{structure="${structure}"}`);
  return {
    serviceCores,
    rssMb,
    heapUsedMb: metric('nodejs_heap_size_used_bytes') / 2 ** 20,
    // Resident memory outside V8's heap (buffers, PGlite's WebAssembly memory, code): V8's heap grows
    // and shrinks by a GC cycle's garbage, this does not.
    offHeapMb: rssMb - metric('nodejs_heap_size_total_bytes') / 2 ** 20,
    fds: service.fds - clients,
    sockets: service.socketInodes.size - clients,
    clientConnections: clients,
    allFds: service.fds,
    allSockets: service.socketInodes.size,
    eventLoopP99Ms: metric('nodejs_eventloop_lag_p99_seconds') * 1000,
    cacheEntries: size('cache_entries'),
    rateLimitClients: size('rate_limit_clients'),
    eventStreams: size('event_streams'),
    liveFeedListeners: size('live_feed_listeners'),
    queueDepth: metric('vaultkeeper_delivery_queue_depth'),
    ...(await backend.extraSamples()),
  };
}

interface Subscription {
  id: string;
  tag: string;
  vault: Address;
}

async function subscribe(call: Caller, auth: Record<string, string>, receiver: Receiver, busy: Address[]) {
  const subscriptions: Subscription[] = [];
  for (const [i, behaviour] of RECEIVERS.entries()) {
    const tag = `s${i}`;
    const created = (await call('setup', {
      method: 'POST',
      path: '/api/webhooks',
      headers: auth,
      body: {
        url: `${receiver.url}/hook/${tag}/${behaviour}`,
        events: ['transaction.executed'],
        vault: busy[i],
      },
      expect: [201],
    })) as { webhook?: { id: string }; id?: string } | undefined;
    const id = created?.webhook?.id ?? created?.id;
    if (id === undefined) throw new Error('could not subscribe a receiver');
    subscriptions.push({ id, tag, vault: busy[i]! });
  }
  return subscriptions;
}

export async function main(): Promise<number> {
  mkdirSync(OUT, { recursive: true });
  log(
    `${BACKEND}, ${MINUTES} min, a sample every ${SAMPLE_SECONDS} s, warm-up ${WARMUP_SECONDS / 60} min${INJECT_LEAK === undefined ? '' : `, injected leak: ${INJECT_LEAK}`} → ${OUT}`,
  );
  const fake = await startFakeValidator();
  const backend = await prepareBackend();
  const receiver = await startReceiver();
  const tally = new Tally();
  const wallet = createTestWallet();
  const service = await startService(fake, backend);
  const call = createCaller(service.baseUrl, tally);
  // The owner pays the approve's fees: approve is simulated before it is handed out, so an empty
  // wallet would get 422 (it cannot pay the network fee) instead of a transaction.
  await fake.airdrop(wallet.address as Address, 10n ** 12n);
  const vaults = await createVaults(fake, wallet.address as Address);
  for (const vault of [...vaults.quiet, ...vaults.busy, vaults.blink]) {
    await waitUntil(`vault ${vault}`, 120_000, async () =>
      (await call('setup', { path: `/api/vaults/${vault}`, expect: [200] })) ? true : null,
    );
  }
  const keyResponse = await fetchSigned(service.baseUrl, '/api/api-keys', wallet, {
    method: 'POST',
    body: { name: 'soak' },
  });
  const { key } = (await keyResponse.json()) as { key: string };
  const auth = { authorization: `Bearer ${key}` };
  const subscriptions = await subscribe(call, auth, receiver, vaults.busy);
  const blockedBefore = { count: 0 };
  const nonces = [await newOverride(fake, vaults.blink, call)];
  blockedBefore.count += 1;
  tally.ok.clear();
  tally.failed.clear();
  log(
    `set up: ${vaults.quiet.length + vaults.busy.length + 1} vaults, ${subscriptions.length} subscriptions; load starts`,
  );

  const started = Date.now();
  const load = startLoad(call, auth, vaults, nonces, fake, tally, service.baseUrl, blockedBefore);
  const samples: Sample[] = [];
  const takeSample = async () => {
    const t = (Date.now() - started) / 1000;
    const sample = { t, ...(await sampleService(service.pid, service.baseUrl, backend)) } as Sample;
    sample.requestsOk = tally.total(tally.ok);
    sample.requestsFailed = tally.total(tally.failed);
    samples.push(sample);
    writeFileSync(join(OUT, 'samples.json'), JSON.stringify({ backend: BACKEND, samples }, null, 1));
    log(
      `t=${(t / 60).toFixed(1)} min rss ${sample.rssMb!.toFixed(0)} MB heap ${sample.heapUsedMb!.toFixed(0)} MB fds ${sample.fds} sockets ${sample.sockets} (+${sample.clientConnections} client connections) loop p99 ${sample.eventLoopP99Ms!.toFixed(0)} ms cpu ${sample.serviceCores!.toFixed(2)}${sample.databaseCores === undefined ? '' : ` + db ${sample.databaseCores.toFixed(2)}`} cores cache ${sample.cacheEntries} clients ${sample.rateLimitClients} queue ${sample.queueDepth} ok ${sample.requestsOk} failed ${sample.requestsFailed}`,
    );
  };
  let due = started;
  while (Date.now() - started < MINUTES * 60_000) {
    // The next slot from now: a sample that came late (a starved machine) is not followed by a burst.
    do due += SAMPLE_SECONDS * 1000;
    while (due < Date.now());
    await sleep(due - Date.now());
    await takeSample().catch((error: Error) => log(`sample failed: ${error.message}`));
  }
  await load.stop();
  log('load stopped; waiting for ingestion and deliveries to drain');
  const losses = await checkNothingLost(
    call,
    auth,
    vaults,
    load,
    subscriptions,
    receiver,
    blockedBefore.count,
  );
  return report({ samples, tally, losses, service, backend, fake, receiver });
}

function startLoad(
  call: Caller,
  auth: Record<string, string>,
  vaults: Awaited<ReturnType<typeof createVaults>>,
  nonces: BlinkRequest[],
  fake: FakeValidator,
  tally: Tally,
  baseUrl: string,
  blocked: { count: number },
) {
  const pick = <T>(items: readonly T[]) => items[Math.floor(Math.random() * items.length)]!;
  let renames = 0;
  const generators = [
    every(
      RATES.cachedDetail,
      50,
      () => call('cached detail', { path: `/api/vaults/${pick(vaults.quiet)}` }),
      tally,
    ),
    every(
      RATES.cachedList,
      50,
      () => call('cached list', { path: `/api/transactions?vault=${pick(vaults.quiet)}&limit=50` }),
      tally,
    ),
    every(
      RATES.uncachedList,
      20,
      () => call('uncached list', { path: `/api/transactions?vault=${pick(vaults.busy)}&limit=20` }),
      tally,
    ),
    every(
      RATES.uncachedAuthenticated,
      10,
      () => call('authenticated read', { path: '/api/webhooks', headers: auth }),
      tally,
    ),
    every(
      RATES.write,
      10,
      () =>
        call('write', {
          method: 'PATCH',
          path: `/api/vaults/${pick(vaults.quiet)}`,
          headers: auth,
          body: { name: `Quiet renamed ${++renames}` },
        }),
      tally,
    ),
    every(
      RATES.blinkGet,
      10,
      () => {
        const { nonce, query } = nonces.at(-1)!;
        return call('blink get', { path: `/api/actions/${vaults.blink}/${nonce}${query}` });
      },
      tally,
    ),
    every(
      RATES.blinkPost,
      10,
      () =>
        call('blink post', {
          method: 'POST',
          path: `/api/actions/${vaults.blink}/${nonces.at(-1)!.nonce}/approve${nonces.at(-1)!.query}`,
          body: { account: fake.getVault(vaults.blink)!.config.authority },
        }),
      tally,
    ),
  ];
  const streams = streamLoops(baseUrl, vaults.busy, STREAMS, tally);
  const transactions = transactionLoad(fake, vaults.busy, RATES.transactions, tally);
  // A fresh blocked transfer every 5 minutes, so the Blinks never point at an expired one.
  const refresher = setInterval(() => {
    newOverride(fake, vaults.blink, call)
      .then((request) => {
        blocked.count += 1;
        nonces.push(request);
      })
      .catch((error: Error) => tally.fail('override', error.message));
  }, 5 * 60_000);
  return {
    sent: transactions.sent,
    async stop() {
      clearInterval(refresher);
      await Promise.all([...generators.map((g) => g.stop()), streams.stop(), transactions.stop()]);
    },
  };
}

async function totalOf(
  call: Caller,
  path: string,
  headers: Record<string, string> = {},
): Promise<number | null> {
  const body = (await call('drain', { path, headers })) as { pagination?: { total: number } } | undefined;
  return body?.pagination?.total ?? null;
}

/** After the load: every transaction ingested, every delivery delivered; the shortfalls otherwise. */
async function checkNothingLost(
  call: Caller,
  auth: Record<string, string>,
  vaults: Awaited<ReturnType<typeof createVaults>>,
  load: { sent: Map<string, number> },
  subscriptions: Subscription[],
  receiver: Receiver,
  blocked: number,
): Promise<string[]> {
  const losses: string[] = [];
  const expected = new Map(load.sent);
  expected.set(vaults.blink, blocked);
  const deadline = Date.now() + DRAIN_MS;
  for (const [vault, count] of expected) {
    const total = await waitUntil(
      `transactions of ${vault}`,
      Math.max(1, deadline - Date.now()),
      async () => {
        const n = await totalOf(call, `/api/transactions?vault=${vault}&limit=1`);
        return n !== null && n >= count ? n : null;
      },
    ).catch(() => null);
    if (total !== count) losses.push(`vault ${vault}: ${total} transactions listed, ${count} landed`);
  }
  for (const sub of subscriptions) {
    const path = `/api/webhooks/${sub.id}/deliveries?limit=1`;
    await waitUntil(`deliveries of ${sub.tag}`, Math.max(1, deadline - Date.now()), async () =>
      (await totalOf(call, `${path}&status=pending`, auth)) === 0 ? true : null,
    ).catch(() => losses.push(`subscription ${sub.tag}: deliveries still pending after the drain`));
    const all = await totalOf(call, path, auth);
    const failed = await totalOf(call, `${path}&status=failed`, auth);
    const received = receiver.delivered.get(sub.tag)?.size ?? 0;
    const landed = expected.get(sub.vault) ?? 0;
    if (all !== landed) losses.push(`subscription ${sub.tag}: ${all} deliveries for ${landed} transactions`);
    if (failed !== 0) losses.push(`subscription ${sub.tag}: ${failed} deliveries failed for good`);
    if (received !== landed)
      losses.push(`subscription ${sub.tag}: the receiver got ${received} of ${landed}`);
  }
  return losses;
}

async function report(run: {
  samples: Sample[];
  tally: Tally;
  losses: string[];
  service: { child: ChildProcess; pid: number };
  backend: Backend;
  fake: FakeValidator;
  receiver: Receiver;
}): Promise<number> {
  const { samples, tally, losses } = run;
  const verdicts = trends(samples, WARMUP_SECONDS);
  const failed = tally.total(tally.failed);
  // A fit needs points: a machine too starved to sample proves nothing either way.
  const measured = samples.filter((s) => s.t >= WARMUP_SECONDS).length;
  if (measured < 5) losses.push(`only ${measured} samples after warm-up: no trend can be told`);
  const pass = verdicts.every((v) => v.ok) && failed === 0 && losses.length === 0;
  const injected = INJECT_LEAK === undefined ? '' : `, ${INJECT_LEAK} leak injected`;
  const title = `Vaultkeeper soak, ${BACKEND}${injected}: ${MINUTES} min, warm-up ${WARMUP_SECONDS / 60} min shaded — ${pass ? 'PASS' : 'FAIL'}`;
  writeFileSync(join(OUT, 'soak.svg'), renderSvg(samples, WARMUP_SECONDS, verdicts, title));
  const summary = {
    backend: BACKEND,
    injectedLeak: INJECT_LEAK ?? null,
    minutes: MINUTES,
    sampleSeconds: SAMPLE_SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    pass,
    verdicts,
    requests: Object.fromEntries(run.tally.ok),
    failures: Object.fromEntries(run.tally.failed),
    driverSkippedStarts: tally.skipped,
    losses,
    loadAverage: loadavg()[0],
    cores: availableParallelism(),
    samples,
  };
  writeFileSync(join(OUT, 'samples.json'), JSON.stringify(summary, null, 1));
  log('series (growth after warm-up / allowed):');
  for (const v of verdicts) {
    log(
      `  ${verdictWord(v).padEnd(5)} ${v.label}: median ${round(v.median)}${v.unit}, ${v.slopePerMinute.toFixed(3)}/min, growth ${round(v.growth)}${v.judged ? ` / ${round(v.allowed)}` : ' (not judged in a short run)'}`,
    );
  }
  log(`requests: ${tally.total(tally.ok)} ok, ${failed} failed ${JSON.stringify(summary.failures)}`);
  log(`by kind: ${JSON.stringify(summary.requests)}`);
  for (const loss of losses) log(`LOST: ${loss}`);
  // A starved machine fails a run on event-loop delay and timeouts with no leak at all (docs/SOAK.md).
  log(`machine: load average ${loadavg()[0]!.toFixed(1)} on ${summary.cores} cores`);
  log(`${pass ? 'PASS' : 'FAIL'}: ${join(OUT, 'soak.svg')}, ${join(OUT, 'samples.json')}`);
  run.service.child.kill('SIGTERM');
  await new Promise((r) => run.service.child.once('exit', r));
  await Promise.allSettled([run.backend.close(), run.fake.close(), run.receiver.close()]);
  return pass ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (error: Error) => {
      log(`FAIL: ${error.stack ?? error.message}`);
      process.exit(1);
    },
  );
}
