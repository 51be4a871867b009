// MCP benchmark: what POST /mcp costs against the REST read it wraps, and what a held approval wait
// holds. The service runs as production does (ROLES=api, PostgreSQL, rate limits on, TRUST_PROXY=1, each
// phase's requests spread over its own pool of client addresses) as a child process, so its CPU and
// memory are its own. Phases: GET …/approvals/:signature of a decided approval (answered at once), and
// the same read as the MCP tool get_approval (one JSON-RPC tools/call per POST /mcp); each reports
// req/s, p99 and the service's CPU µs per request. Then `--waits` held waits on a pending approval, REST
// (?waitMs=) and MCP (wait_for_approval, an event stream each), one client address each: the service's
// heap and RSS per held wait, from its /metrics before and while they are held.
//   npx tsx bench/mcp.bench.ts [--duration 10] [--connections 20] [--waits 300] [--tsx]
// DATABASE_URL (admin connection; default postgres://postgres@127.0.0.1:5432/test) hosts vk_bench_mcp.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { buildDist, type ServerProcess, startApiService } from '../dev/support/processes.js';
import { startFakeValidator } from '../dev/validator/index.js';
import { createDatabase } from '../src/storage/database.js';
import { adminQuery } from '../test/support/database.js';
import { createOverride, createTransaction, createVault } from '../test/support/factories.js';
import { clientPool, fromClient } from './support/client-pool.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '20' },
    waits: { type: 'string', default: '300' },
    tsx: { type: 'boolean', default: false },
  },
});
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const WAITS = Number(args.waits);
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DATABASE = 'vk_bench_mcp';
const MAX_RATE = 20_000;
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const log = (line: string) => process.stdout.write(`${line}\n`);

interface Seeded {
  databaseUrl: string;
  vault: string;
  decided: string;
  pending: string;
}

/** A vault with two blocked transfers: one whose approval the owner rejected, one still pending. */
async function prepare(): Promise<Seeded> {
  await adminQuery(ADMIN_URL, `drop database if exists ${DATABASE} with (force)`);
  await adminQuery(ADMIN_URL, `create database ${DATABASE}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${DATABASE}`;
  const storage = await createDatabase({ kind: 'postgres', url: url.toString() });
  try {
    const vault = await createVault(storage.db);
    const rejected = await createOverride(storage.db, { vault, nonce: 0n, status: 'rejected' });
    const open = await createOverride(storage.db, { vault, nonce: 1n });
    const decided = await createTransaction(storage.db, { vault, status: 'blocked', override: rejected });
    const pending = await createTransaction(storage.db, { vault, status: 'blocked', override: open });
    return {
      databaseUrl: url.toString(),
      vault: vault.address,
      decided: decided.signature!,
      pending: pending.signature!,
    };
  } finally {
    await storage.close();
  }
}

const toolCall = (name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

interface Figures {
  name: string;
  requestsPerSecond: number;
  p99: number;
  cpuMicrosPerRequest: number;
  problems: number;
}

async function load(
  name: string,
  server: ServerProcess,
  request: { method: 'GET' | 'POST'; path: string; body?: string; headers?: Record<string, string> },
  duration = DURATION,
): Promise<Figures> {
  log(`  ${name} (${duration} s)`);
  const clients = clientPool('read', { rate: MAX_RATE, seconds: duration });
  const cpuBefore = server.cpuSeconds();
  const result = await autocannon({
    url: server.baseUrl,
    connections: CONNECTIONS,
    duration,
    requests: [
      { ...request, setupRequest: (r) => ({ ...r, headers: fromClient(clients, request.headers) }) },
    ],
  });
  const total = Math.max(1, result.requests.total);
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p99: result.latency.p99,
    cpuMicrosPerRequest: Math.round(((server.cpuSeconds() - cpuBefore) * 1e6) / total),
    problems: result.non2xx + result.errors + result.timeouts,
  };
}

/** One metric of the service's /metrics (the first sample whose line starts with `name`). */
async function metric(server: ServerProcess, name: string): Promise<number> {
  const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(name));
  return line === undefined ? Number.NaN : Number(line.split(' ').at(-1));
}

const HELD = 'vaultkeeper_in_process_entries{structure="approval_waits"}';

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what}: not within 60 s`);
}

/** Heap and RSS (KB) per held wait: `open(i)` opens the i-th; each from its own address and network. */
async function heldMemory(
  server: ServerProcess,
  open: (i: number, client: string, signal: AbortSignal) => Promise<unknown>,
) {
  await until(async () => (await metric(server, HELD)) === 0, 'no wait held before');
  await new Promise((r) => setTimeout(r, 1_000));
  const heapBefore = await metric(server, 'nodejs_heap_size_used_bytes');
  const rssBefore = await metric(server, 'process_resident_memory_bytes');
  const stop = new AbortController();
  const waits: Promise<unknown>[] = [];
  // In steps, as agents arrive: a burst of hundreds at once would measure the database pool's queue.
  for (let i = 0; i < WAITS; i += 1) {
    waits.push(open(i, `10.${100 + (i >> 8)}.${i & 255}.7`, stop.signal).catch(() => {}));
    if ((i + 1) % 20 === 0 || i + 1 === WAITS) {
      await until(async () => (await metric(server, HELD)) === i + 1, `${i + 1} waits held`);
    }
  }
  await new Promise((r) => setTimeout(r, 1_000));
  const heap = (await metric(server, 'nodejs_heap_size_used_bytes')) - heapBefore;
  const rss = (await metric(server, 'process_resident_memory_bytes')) - rssBefore;
  stop.abort();
  await Promise.all(waits);
  return { heapKb: Math.round(heap / 1024 / WAITS), rssKb: Math.round(rss / 1024 / WAITS) };
}

async function main(): Promise<void> {
  log(
    `MCP benchmark: ${CONNECTIONS} connections, ${DURATION} s per phase, ${WAITS} held waits, rate limits on`,
  );
  if (!args.tsx) {
    log('building dist/ (npm run build)');
    buildDist(root, log);
  }
  const fake = await startFakeValidator();
  const seeded = await prepare();
  const { vault, decided, pending } = seeded;
  const service = await startApiService({
    root,
    tsx: args.tsx,
    env: {
      DATABASE_URL: seeded.databaseUrl,
      SOLANA_CLUSTER: 'localnet',
      SOLANA_RPC_URL: fake.rpcUrl,
      SOLANA_WS_URL: fake.wsUrl,
      READ_CACHE: 'true',
    },
  });
  const results: Figures[] = [];
  let memory: Record<string, { heapKb: number; rssKb: number }> = {};
  try {
    const rest = { method: 'GET' as const, path: `/api/vaults/${vault}/approvals/${decided}` };
    const mcp = {
      method: 'POST' as const,
      path: '/mcp',
      body: toolCall('get_approval', { vault, signature: decided }),
      headers: MCP_HEADERS,
    };
    await load('warm-up', service, rest, 2);
    results.push(await load('GET …/approvals/:signature (decided)', service, rest));
    await load('warm-up', service, mcp, 2);
    results.push(await load('POST /mcp tools/call get_approval (decided)', service, mcp));
    const holdRest = (_i: number, client: string, signal: AbortSignal) =>
      fetch(`${service.baseUrl}/api/vaults/${vault}/approvals/${pending}?waitMs=50000`, {
        headers: { 'x-forwarded-for': client },
        signal,
      }).then((r) => r.arrayBuffer());
    const holdMcp = (_i: number, client: string, signal: AbortSignal) =>
      fetch(`${service.baseUrl}/mcp`, {
        method: 'POST',
        headers: { ...MCP_HEADERS, 'x-forwarded-for': client },
        body: toolCall('wait_for_approval', { vault, signature: pending, timeoutSeconds: 120 }),
        signal,
      }).then((r) => r.arrayBuffer());
    memory = {
      'REST ?waitMs=': await heldMemory(service, holdRest),
      'MCP wait_for_approval': await heldMemory(service, holdMcp),
    };
  } finally {
    await service.stop();
    await fake.close();
    await adminQuery(ADMIN_URL, `drop database if exists ${DATABASE} with (force)`);
  }
  log('');
  log(`${'phase'.padEnd(50)} ${'req/s'.padStart(7)} ${'p99 ms'.padStart(7)} ${'CPU µs/req'.padStart(11)}`);
  for (const f of results) {
    const problems = f.problems > 0 ? `  (${f.problems} non-2xx or errors)` : '';
    log(
      `${f.name.padEnd(50)} ${String(f.requestsPerSecond).padStart(7)} ${String(f.p99).padStart(7)} ${String(f.cpuMicrosPerRequest).padStart(11)}${problems}`,
    );
  }
  const [restRead, mcpRead] = results as [Figures, Figures];
  log(
    `MCP / REST CPU per request: ${(mcpRead.cpuMicrosPerRequest / restRead.cpuMicrosPerRequest).toFixed(2)} ×`,
  );
  for (const [name, m] of Object.entries(memory)) {
    log(`held ${name}: ${m.heapKb} KB heap and ${m.rssKb} KB RSS per wait (${WAITS} held)`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `MCP benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
