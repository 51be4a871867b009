// npm run chaos: several Vaultkeeper processes on one PostgreSQL and Redis, a stream of program
// transactions and API traffic, and meanwhile killed processes, restarted servers, dropped sockets, an
// RPC outage and the preferred of two RPC endpoints going away. At the end the database and the
// receiver's log are compared with the validator's ledger, every process must be ready again, and no
// log line, readiness body or metric may carry the RPC endpoint's API key.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { type RpcProxy, startRpcProxy } from '../support/rpc-proxy.js';
import { createTestWallet } from '../support/wallet.js';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    kills: { type: 'string', default: '20' },
    rate: { type: 'string', default: '8' },
    short: { type: 'boolean', default: false },
    'no-server-restarts': { type: 'boolean', default: false },
    grpc: { type: 'boolean', default: false },
  },
});
/** --grpc: the ingestors read a Yellowstone gRPC stream (the validator serves one), with its faults. */
const GRPC = args.grpc;
const SHORT = args.short;
const DURATION_MS = (SHORT ? 1.2 : Number(args.minutes)) * 60_000;
const MIN_KILLS = SHORT ? 6 : Number(args.kills);
const TX_PER_SECOND = Number(args.rate);
const RESTART_SERVERS = !args['no-server-restarts'];
const PG_ADMIN = process.env.CHAOS_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.CHAOS_REDIS_URL ?? 'redis://127.0.0.1:6379/7';
// Every process here keeps its port across kills and restarts, so the ports come from below the kernel's
// ephemeral range (an outgoing connection can never take one while its process is down), each checked free.
async function reservePorts(count: number): Promise<number[]> {
  let ephemeralStart = 32_768;
  try {
    ephemeralStart = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
    );
  } catch {}
  const low = 20_000;
  const high = Math.max(low + 1_000, ephemeralStart - 1);
  const ports: number[] = [];
  for (let candidate = low + Math.floor(Math.random() * (high - low)); ports.length < count; candidate += 1) {
    if (candidate >= high) candidate = low;
    const free = await new Promise<boolean>((resolve) => {
      const probe = createNetServer();
      probe.once('error', () => resolve(false));
      probe.listen(candidate, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) ports.push(candidate);
  }
  return ports;
}
const PORTS = await reservePorts(8);

const log = (message: string) => console.log(`[chaos ${new Date().toISOString().slice(11, 19)}] ${message}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const random = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

/**
 * How much longer than on a quiet machine a start may take here: the load average over the cores,
 * between 1 and 3. Only the waits for processes to start or come back scale; the run's measurements do not.
 */
const LOAD_FACTOR = Math.min(3, Math.max(1, loadavg()[0]! / availableParallelism()));
const startDeadline = (ms: number) => Math.round(ms * LOAD_FACTOR);

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check().catch(() => false)) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

// ---------- the validator, in its own process so that killing ours never touches it
const validatorPort = PORTS[0]!;
const validator = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    'dev/validator/main.ts',
    '--port',
    String(validatorPort),
    ...(GRPC ? ['--grpc-port', String(PORTS[7])] : []),
  ],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const rpcUrl = `http://127.0.0.1:${validatorPort}`;
async function control<T = unknown>(method: string, ...params: unknown[]): Promise<T> {
  const res = await fetch(`${rpcUrl}/_control/${method}`, { method: 'POST', body: JSON.stringify(params) });
  const body = (await res.json()) as { result?: T; error?: string };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error}`);
  return body.result as T;
}

// ---------- the preferred RPC endpoint: a proxy in front of the validator (same ledger) that can go away;
// its URL carries an API key, as providers' URLs do. The validator itself is the fallback endpoint.
const RPC_KEY = 'chaos-api-key-5f1e';
const RPC_KEY_PATH = `/v2/${RPC_KEY}?api-key=${RPC_KEY}`;
let preferredEndpoint: RpcProxy | undefined;
let rpcKeyLeaks = 0;

// ---------- the webhook receiver: records each delivery id once, verifies the HMAC
const received = new Map<string, number>();
let badSignatures = 0;
let secret = '';
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const id = String(req.headers['webhook-id'] ?? '');
    try {
      const parsed = JSON.parse(body) as {
        id: string;
        event: string;
        timestamp: string;
        data: unknown;
        signature: string;
      };
      const expected = createHmac('sha256', secret)
        .update(
          JSON.stringify({
            id: parsed.id,
            event: parsed.event,
            timestamp: parsed.timestamp,
            data: parsed.data,
          }),
        )
        .digest('hex');
      if (expected !== parsed.signature) badSignatures += 1;
    } catch {
      badSignatures += 1;
    }
    received.set(id, (received.get(id) ?? 0) + 1);
    res.writeHead(200).end('ok');
  });
});

// ---------- the service processes
interface Service {
  name: string;
  roles: string;
  port: number;
  child: ChildProcess | null;
  kills: number;
}
const dbName = `vk_chaos_${Date.now()}`;
const databaseUrl = (() => {
  const url = new URL(PG_ADMIN);
  url.pathname = `/${dbName}`;
  return url.toString();
})();
const services: Service[] = [
  { name: 'api-1', roles: 'api', port: PORTS[1]!, child: null, kills: 0 },
  { name: 'api-2', roles: 'api', port: PORTS[2]!, child: null, kills: 0 },
  { name: 'ingestor-1', roles: 'ingestor', port: PORTS[3]!, child: null, kills: 0 },
  { name: 'ingestor-2', roles: 'ingestor', port: PORTS[4]!, child: null, kills: 0 },
  { name: 'worker-1', roles: 'worker', port: PORTS[5]!, child: null, kills: 0 },
  { name: 'worker-2', roles: 'worker', port: PORTS[6]!, child: null, kills: 0 },
];
function start(service: Service): void {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      ROLES: service.roles,
      PORT: String(service.port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      SOLANA_CLUSTER: 'localnet',
      SOLANA_RPC_URL: `${preferredEndpoint!.httpBase}${RPC_KEY_PATH},${rpcUrl}`,
      SOLANA_WS_URL: `${preferredEndpoint!.wsBase}${RPC_KEY_PATH},ws://127.0.0.1:${validatorPort}`,
      ...(GRPC ? { SOLANA_GRPC_URL: `http://127.0.0.1:${PORTS[7]}`, GRPC_FALLBACK_MS: '3000' } : {}),
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      AUTH_REQUIRE_REQUEST_BINDING: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1,2,3,5,5,5,5,5,5,5',
      BACKFILL_INTERVAL_SECONDS: '5',
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    const text = chunk.toString().trim();
    if (text.includes(RPC_KEY)) rpcKeyLeaks += 1;
    if (text !== '') process.stderr.write(`[${service.name}] ${text.slice(0, 500)}\n`);
  });
  service.child = child;
}

// ---------- API traffic: a client behind a load balancer that tries the other instance when one is down
const traffic = { requests: 0, ok: 0, clientErrors: 0, serverErrors: 0, failedOver: 0, unanswered: 0 };
const apiPorts = services.filter((s) => s.roles === 'api').map((s) => s.port);

async function apiTraffic(signal: AbortSignal, vaults: string[]): Promise<void> {
  const paths = () => [
    '/api/health',
    '/api/vaults?limit=10',
    `/api/vaults/${random(vaults)}`,
    `/api/transactions?vault=${random(vaults)}&limit=20`,
    `/api/overrides?vault=${random(vaults)}`,
  ];
  while (!signal.aborted) {
    traffic.requests += 1;
    const path = random(paths());
    const first = Math.floor(Math.random() * apiPorts.length);
    const order = [apiPorts[first]!, apiPorts[(first + 1) % apiPorts.length]!];
    let answered = false;
    for (const [attempt, port] of order.entries()) {
      try {
        // All traffic is one client: stay below the shared per-IP read budget.
        const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5_000) });
        await res.arrayBuffer();
        if (res.status >= 500) traffic.serverErrors += 1;
        else if (res.status >= 400) traffic.clientErrors += 1;
        else traffic.ok += 1;
        if (attempt > 0) traffic.failedOver += 1;
        answered = true;
        break;
      } catch {
        // connection refused or timed out: the balancer tries the next instance
      }
    }
    if (!answered) traffic.unanswered += 1;
    await sleep(700);
  }
}

// ---------- program transactions
interface VaultInfo {
  vault: string;
  paused: boolean;
}
let submitted = 0;
let scenarioFailures = 0;
let overridesExecuted = 0;
async function chainTraffic(signal: AbortSignal, vaults: VaultInfo[]): Promise<void> {
  const destination = createTestWallet().address;
  while (!signal.aborted) {
    const started = Date.now();
    const target = random(vaults);
    const { vault } = target;
    const roll = Math.random();
    try {
      if (target.paused) {
        // A paused vault refuses agent transfers; its owner resumes it after a while.
        if (roll < 0.3) {
          await control('resume', vault);
          target.paused = false;
        }
      } else if (roll < 0.7) {
        await control('execute', vault, { destination, amount: 1_000 + Math.floor(Math.random() * 5_000) });
      } else if (roll < 0.85) {
        await control('block', vault, {
          destination,
          amount: 7_000,
          reason: 'not_whitelisted',
          withOverride: false,
        });
      } else if (roll < 0.97) {
        // Blocked with an override request; the owner creates, approves and executes it on chain.
        const amount = 9_000;
        const blocked = await control<{ overrideNonce: string }>('block', vault, {
          destination,
          amount,
          reason: 'exceeded_daily_limit',
          withOverride: true,
        });
        const nonce = blocked.overrideNonce;
        await control('createOverride', vault, {
          destination,
          amount,
          reason: 'exceeded_daily_limit',
          nonce,
        });
        await control('approveOverride', vault, nonce);
        await control('executeApprovedOverride', vault, nonce);
        overridesExecuted += 1;
      } else {
        await control('pause', vault);
        target.paused = true;
      }
      submitted += 1;
    } catch (error) {
      scenarioFailures += 1;
      log(`scenario call failed: ${(error as Error).message.split('\n')[0]}`);
    }
    await sleep(Math.max(0, 1000 / TX_PER_SECOND - (Date.now() - started)));
  }
}

// ---------- faults
const recoveries: { fault: string; ms: number }[] = [];
const pgVersion = () => execFileSync('ls', ['/etc/postgresql']).toString().trim().split('\n').pop()!;
async function healthy(port: number): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(2_000) });
  const body = (await res.json()) as { database: string };
  return res.status === 200 && body.database === 'connected';
}
type Fault =
  | 'kill'
  | 'sockets'
  | 'outage'
  | 'endpoint'
  | 'postgres'
  | 'redis'
  | 'grpc-drop'
  | 'grpc-stall'
  | 'grpc-outage';
const OTHER_FAULTS: Fault[] = [
  'sockets',
  'outage',
  'endpoint',
  ...(GRPC ? (['grpc-drop', 'grpc-stall', 'grpc-outage'] as const) : []),
  ...(RESTART_SERVERS ? (['postgres', 'redis'] as const) : []),
];
/** Every kind of fault at least once, in a random order, then kills and the others at random. */
const faultPlan: Fault[] = shuffle(['kill', 'kill', ...OTHER_FAULTS]);
/** After the plan: kills weigh as much as all the other faults together. */
const FAULT_WEIGHTS: Fault[] = ['kill', 'kill', 'kill', 'kill', ...OTHER_FAULTS];
function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
/** SIGKILLs a random process and restarts it like a supervisor would; an API one is awaited back. */
async function killOne(): Promise<void> {
  const victim = random(services);
  log(`SIGKILL ${victim.name}`);
  victim.child?.kill('SIGKILL');
  victim.kills += 1;
  await sleep(500 + Math.random() * 2_000);
  const started = Date.now();
  start(victim);
  if (victim.roles === 'api') {
    await waitUntil(() => healthy(victim.port), startDeadline(60_000), `${victim.name} back`);
    recoveries.push({ fault: `kill ${victim.name}`, ms: Date.now() - started });
  }
}

async function injectFault(): Promise<void> {
  const fault = faultPlan.shift() ?? random(FAULT_WEIGHTS);
  if (fault === 'kill') {
    await killOne();
  } else if (fault === 'sockets') {
    log('validator drops every WebSocket');
    await control('dropSockets');
  } else if (fault === 'grpc-drop') {
    log('gRPC server drops every stream (the ingestor resumes from its replay slot)');
    await control('grpcDropStreams');
  } else if (fault === 'grpc-stall') {
    log('gRPC streams stall (silent until the ingestor gives up on them)');
    await control('grpcStallStreams');
  } else if (fault === 'grpc-outage') {
    log('gRPC outage for 8 s (the WebSocket source takes over after 3 s, then hands back)');
    await control('grpcSetOutage', true);
    await sleep(8_000);
    await control('grpcSetOutage', false);
  } else if (fault === 'outage') {
    log('RPC outage for 8 s');
    await control('setOutage', true);
    await sleep(8_000);
    await control('setOutage', false);
  } else if (fault === 'endpoint') {
    log('preferred RPC endpoint down for 8 s (the fallback takes over)');
    await preferredEndpoint!.down();
    await sleep(8_000);
    await preferredEndpoint!.up();
  } else if (fault === 'postgres') {
    log('restarting PostgreSQL');
    execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', pgVersion(), 'main', 'restart']);
    const ms = await waitUntil(() => healthy(apiPorts[0]!), 60_000, 'API sees the database again');
    recoveries.push({ fault: 'postgres restart', ms });
  } else if (fault === 'redis') {
    log('restarting Redis');
    const port = new URL(REDIS_URL).port || '6379';
    try {
      execFileSync('redis-cli', ['-p', port, 'shutdown', 'nosave']);
    } catch {}
    await sleep(1_000);
    execFileSync('redis-server', [
      '--daemonize',
      'yes',
      '--bind',
      '127.0.0.1',
      '-::1',
      '--port',
      port,
      '--save',
      '',
      '--appendonly',
      'no',
    ]);
    recoveries.push({
      fault: 'redis restart',
      ms: await waitUntil(() => healthy(apiPorts[0]!), 30_000, 'Redis back'),
    });
  }
}

// ---------- the run
async function main(): Promise<number> {
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  await admin.end();
  await waitUntil(async () => (await fetch(`${rpcUrl}/health`)).ok, startDeadline(30_000), 'validator');
  preferredEndpoint = await startRpcProxy({ rpcUrl });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  for (const service of services) start(service);
  await waitUntil(() => healthy(apiPorts[0]!), startDeadline(60_000), 'api-1 healthy');
  await waitUntil(() => healthy(apiPorts[1]!), startDeadline(60_000), 'api-2 healthy');

  const owner = createTestWallet();
  const subscription = JSON.stringify({
    url: receiverUrl,
    events: [
      'transaction.executed',
      'transaction.blocked',
      'override.approved',
      'override.executed',
      'vault.paused',
      'vault.resumed',
    ],
  });
  // Signed for this very request; the domain is api-1's PUBLIC_BASE_URL host (its default).
  const signed = {
    method: 'POST',
    path: '/api/webhooks',
    body: subscription,
    domain: `localhost:${apiPorts[0]}`,
  };
  const hook = await fetch(`http://127.0.0.1:${apiPorts[0]}/api/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...owner.authHeaders({ request: signed }) },
    body: subscription,
  });
  if (hook.status !== 201)
    throw new Error(`webhook subscription failed: ${hook.status} ${await hook.text()}`);
  secret = ((await hook.json()) as { secret: string }).secret;

  const vaults: VaultInfo[] = [];
  for (let i = 0; i < 3; i += 1) {
    const created = await control<{ vault: string }>('createVault', {
      authority: owner.address,
      dailyLimit: '1000000000000',
      name: `chaos vault ${i + 1}`,
    });
    await control('deposit', created.vault, '500000000000');
    vaults.push({ vault: created.vault, paused: false });
  }
  log(`database ${dbName}; validator ${rpcUrl}; ${services.length} processes; ${DURATION_MS / 1000} s`);

  const stopTraffic = new AbortController();
  const runners = [
    chainTraffic(stopTraffic.signal, vaults),
    apiTraffic(
      stopTraffic.signal,
      vaults.map((v) => v.vault),
    ),
  ];
  const deadline = Date.now() + DURATION_MS;
  const faultEvery = DURATION_MS / (MIN_KILLS * 1.6);
  while (Date.now() < deadline) {
    await sleep(faultEvery * (0.5 + Math.random()));
    await injectFault().catch((error: Error) => log(`fault step failed: ${error.message}`));
  }
  // Make sure the minimum number of kills happened, one process down at a time as before: with both API
  // instances down at once no balancer could answer.
  while (services.reduce((n, s) => n + s.kills, 0) < MIN_KILLS) await killOne();
  stopTraffic.abort();
  await Promise.all(runners);
  log('traffic stopped; waiting for ingestion and deliveries to converge');

  const ledger =
    await control<{ signature: string; err: unknown; events: { name: string; index?: number }[] }[]>(
      'ledger',
    );
  const expectedTransfers = new Set<string>();
  const webhookEvents = new Map<string, string[]>([
    ['TransactionExecuted', ['transaction.executed']],
    ['TransactionBlocked', ['transaction.blocked']],
    ['OverrideApproved', ['override.approved']],
    ['VaultPaused', ['vault.paused']],
    ['VaultResumed', ['vault.resumed']],
  ]);
  let expectedDeliveries = 0;
  for (const entry of ledger) {
    entry.events.forEach((event, index) => {
      const counts = entry.err === null || event.name === 'TransactionBlocked';
      if (!counts) return;
      if (event.name === 'TransactionExecuted' || event.name === 'TransactionBlocked') {
        expectedTransfers.add(`${entry.signature}:${index}`);
      }
      expectedDeliveries += webhookEvents.get(event.name)?.length ?? 0;
    });
  }
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const settle = async () => {
    const { rows } = await db.query<{ n: number }>(
      'select count(*)::int as n from transactions where signature is not null',
    );
    return rows[0]!.n >= expectedTransfers.size;
  };
  const ingestMs = await waitUntil(settle, 180_000, 'ingestion to catch up').catch(() => -1);
  // Each executed override also fires override.executed beside its transaction.executed.
  expectedDeliveries += overridesExecuted;
  const allDueReceived = async () => {
    const { rows } = await db.query<{ id: string }>('select id from webhook_deliveries');
    return rows.length >= expectedDeliveries && rows.every((r) => received.has(r.id));
  };
  const deliveriesMs = await waitUntil(allDueReceived, 240_000, 'deliveries to arrive').catch(() => -1);

  const { rows: stored } = await db.query<{ key: string; n: number }>(
    `select signature || ':' || event_index as key, count(*)::int as n from transactions where signature is not null group by 1`,
  );
  const storedKeys = new Map(stored.map((r) => [r.key, r.n]));
  const missing = [...expectedTransfers].filter((key) => !storedKeys.has(key));
  const duplicated = stored.filter((r) => r.n > 1).length;
  const unexpected = stored.filter((r) => !expectedTransfers.has(r.key)).length;
  const { rows: due } = await db.query<{ id: string }>('select id from webhook_deliveries');
  const missingDeliveries = due.filter((d) => !received.has(d.id)).length;
  const { rows: overrideRows } = await db.query<{ status: string; n: number }>(
    'select status, count(*)::int as n from overrides group by status',
  );
  const overridesByStatus = Object.fromEntries(overrideRows.map((r) => [r.status, r.n]));
  await db.end();
  const { notReady, probeKeyLeaks } = await checkProbes();

  const report = {
    durationSeconds: Math.round(DURATION_MS / 1000),
    processKills: services.reduce((n, s) => n + s.kills, 0),
    killsByProcess: Object.fromEntries(services.map((s) => [s.name, s.kills])),
    scenariosSubmitted: submitted,
    transactionsOnChain: expectedTransfers.size,
    ingested: expectedTransfers.size - missing.length,
    missing: missing.length,
    duplicated,
    unexpected,
    deliveriesExpected: expectedDeliveries,
    deliveriesDue: due.length,
    deliveriesReceived: received.size,
    deliveriesMissing: missingDeliveries + Math.max(0, expectedDeliveries - due.length),
    deliveriesEnqueuedTwice: Math.max(0, due.length - expectedDeliveries),
    deliveriesReceivedMoreThanOnce: [...received.values()].filter((n) => n > 1).length,
    badSignatures,
    overridesExecutedOnChain: overridesExecuted,
    overridesByStatus,
    scenarioFailures,
    apiRequests: traffic.requests,
    api2xx: traffic.ok,
    api4xx: traffic.clientErrors,
    api5xx: traffic.serverErrors,
    apiFailedOverToOtherInstance: traffic.failedOver,
    apiUnanswered: traffic.unanswered,
    recoveryMs: recoveries,
    convergeMs: { ingestion: ingestMs, deliveries: deliveriesMs },
    preferredEndpointRequests: preferredEndpoint!.requests.length,
    processesNotReady: notReady,
    rpcKeyLeaks: rpcKeyLeaks + probeKeyLeaks,
  };
  console.log(JSON.stringify(report, null, 2));
  const ok =
    report.missing === 0 &&
    report.duplicated === 0 &&
    report.unexpected === 0 &&
    report.deliveriesMissing === 0 &&
    report.deliveriesEnqueuedTwice === 0 &&
    report.badSignatures === 0 &&
    report.scenarioFailures === 0 &&
    report.apiUnanswered === 0 &&
    report.processesNotReady.length === 0 &&
    report.rpcKeyLeaks === 0 &&
    (overridesByStatus.executed ?? 0) === overridesExecuted &&
    report.processKills >= MIN_KILLS;
  console.log(ok ? 'chaos: PASS' : 'chaos: FAIL');
  return ok ? 0 : 1;
}

/** Every process, whatever its roles, answers /readyz 200 again; no probe or metric names the RPC key. */
async function checkProbes(): Promise<{ notReady: string[]; probeKeyLeaks: number }> {
  const notReady: string[] = [];
  let probeKeyLeaks = 0;
  for (const service of services) {
    const base = `http://127.0.0.1:${service.port}`;
    const ready = async () => (await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(2_000) })).ok;
    if ((await waitUntil(ready, startDeadline(60_000), `${service.name} ready`).catch(() => -1)) < 0)
      notReady.push(service.name);
    for (const path of ['/readyz', '/livez', '/metrics']) {
      const text = await fetch(`${base}${path}`)
        .then((r) => r.text())
        .catch(() => '');
      if (text.includes(RPC_KEY)) probeKeyLeaks += 1;
    }
  }
  return { notReady, probeKeyLeaks };
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (error) {
  console.error(`chaos: FAIL: ${(error as Error).stack}`);
} finally {
  for (const service of services) service.child?.kill('SIGKILL');
  validator.kill('SIGTERM');
  await preferredEndpoint?.close();
  receiver.close();
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin
    .connect()
    .then(() => admin.query(`drop database if exists ${dbName} with (force)`))
    .then(() => admin.end())
    .catch(() => {});
  process.exit(exitCode);
}
