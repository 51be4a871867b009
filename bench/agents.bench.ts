// Agents benchmark: the pre-flight check against the cached vault detail, in one run. The service runs as
// production does (ROLES=api, PostgreSQL, rate limits on, TRUST_PROXY=1 with every phase's requests spread
// over its own pool of client addresses so no address runs into its budget) as a child process, so its CPU
// is its own; the test validator runs in this process and counts the RPC calls it answers, by method.
// Phases: a bare node:http ceiling sending the detail's body; the cached vault detail; the check and the
// budget with live accounts (the default); the check with LIVE_ACCOUNTS=false (a labelled diagnostic:
// one getMultipleAccounts per check). Each reports req/s, the service's CPU µs per request, and RPC
// calls per request; then 200 checks one by one count the RPC calls per check exactly. Targets: with
// live accounts a check makes no RPC call and reaches ≥ 0.5 × the cached detail's req/s; without them
// exactly one getMultipleAccounts per check.
//   npx tsx bench/agents.bench.ts [--duration 10] [--connections 50] [--tsx]
// DATABASE_URL (admin connection; default postgres://postgres@127.0.0.1:5432/test) hosts vk_bench_agents.
import { availableParallelism, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Address } from '@solana/kit';
import autocannon from 'autocannon';
import { buildDist, type ServerProcess, startApiService, startCeiling } from '../dev/support/processes.js';
import { startFakeValidator } from '../dev/validator/index.js';
import { randomAddress } from '../dev/validator/scenarios.js';
import { createDatabase } from '../src/storage/database.js';
import { adminQuery } from '../test/support/database.js';
import { createVault } from '../test/support/factories.js';
import { clientPool, fromClient } from './support/client-pool.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    tsx: { type: 'boolean', default: false },
  },
});
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DATABASE = 'vk_bench_agents';
/** More requests a second than any phase reaches here: client pools are sized for it. */
const MAX_RATE = 30_000;
const SOL = 1_000_000_000n;
const log = (line: string) => process.stdout.write(`${line}\n`);

interface Figures {
  name: string;
  requestsPerSecond: number;
  p99: number;
  cpuMicrosPerRequest: number;
  /** JSON-RPC calls the validator answered per request, by method. */
  rpcPerRequest: Record<string, number>;
  problems: number;
}

const fake = await startFakeValidator();

/** A fresh database holding one vault that exists on the validator's chain, funded, its window open. */
async function prepare(): Promise<{ databaseUrl: string; vault: Address; destination: Address }> {
  await adminQuery(ADMIN_URL, `drop database if exists ${DATABASE} with (force)`);
  await adminQuery(ADMIN_URL, `create database ${DATABASE}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${DATABASE}`;
  const databaseUrl = url.toString();
  fake.setTime(Math.floor(Date.now() / 1000));
  const created = await fake.createVault({
    dailyLimit: 1_000n * SOL,
    feeBasisPoints: 50,
    name: 'Agents bench',
  });
  await fake.deposit(created.vault, 500n * SOL);
  const storage = await createDatabase({ kind: 'postgres', url: databaseUrl });
  try {
    await createVault(storage.db, {
      address: created.vault,
      authority: created.authority,
      vaultNonce: created.nonce,
    });
  } finally {
    await storage.close();
  }
  return { databaseUrl, vault: created.vault, destination: randomAddress() };
}

const startService = (databaseUrl: string, env: Record<string, string> = {}): Promise<ServerProcess> =>
  startApiService({
    root,
    tsx: args.tsx,
    env: {
      DATABASE_URL: databaseUrl,
      SOLANA_CLUSTER: 'localnet',
      SOLANA_RPC_URL: fake.rpcUrl,
      SOLANA_WS_URL: fake.wsUrl,
      ...env,
    },
  });

/** Waits until the previous phase's requests have left the validator: none new for 300 ms. */
async function quiesce(): Promise<void> {
  for (let quietSince = performance.now(); performance.now() - quietSince < 300; ) {
    if (fake.rpcRequests().length > 0) quietSince = performance.now();
    fake.resetRpcRequests();
    await new Promise((done) => setTimeout(done, 50));
  }
}

async function load(
  name: string,
  server: ServerProcess,
  path: string,
  duration = DURATION,
): Promise<Figures> {
  log(`  ${name} (${duration} s)`);
  const clients = clientPool('read', { rate: MAX_RATE, seconds: duration });
  await quiesce();
  const cpuBefore = server.cpuSeconds();
  const result = await autocannon({
    url: server.baseUrl,
    connections: CONNECTIONS,
    duration,
    requests: [{ setupRequest: (request) => ({ ...request, path, headers: fromClient(clients) }) }],
  });
  const cpu = server.cpuSeconds() - cpuBefore;
  const total = Math.max(1, result.requests.total);
  const calls: Record<string, number> = {};
  for (const { methods } of fake.rpcRequests())
    for (const m of methods) calls[m] = (calls[m] ?? 0) + 1 / total;
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p99: result.latency.p99,
    cpuMicrosPerRequest: Math.round((cpu * 1e6) / total),
    rpcPerRequest: calls,
    problems: result.non2xx + result.errors + result.timeouts,
  };
}

/**
 * RPC calls per request, exactly: `count` requests one after another, each answered before the next
 * (under load some of a phase's requests are still at the service when it ends, their calls counted
 * but not their answers).
 */
async function rpcPerRequest(
  server: ServerProcess,
  path: string,
  count = 200,
): Promise<Record<string, number>> {
  const clients = clientPool('read', { requests: count });
  await quiesce();
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${server.baseUrl}${path}`, { headers: fromClient(clients) });
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  }
  const calls: Record<string, number> = {};
  for (const { methods } of fake.rpcRequests())
    for (const m of methods) calls[m] = (calls[m] ?? 0) + 1 / count;
  return calls;
}

/** One request as a client sees it: the phase must measure what it says (a 200 with the expected verdict). */
async function expectAnswer(
  server: ServerProcess,
  path: string,
  check: (body: Record<string, unknown>) => boolean,
) {
  const response = await fetch(`${server.baseUrl}${path}`);
  const body = (await response.json()) as Record<string, unknown>;
  if (response.status !== 200 || !check(body))
    throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
}

const callsText = (calls: Record<string, number>) =>
  Object.entries(calls)
    .map(([method, n]) => `${method} ${n.toFixed(3)}`)
    .join(', ') || 'none';

function report(
  results: Figures[],
  exact: { live: Record<string, number>; fresh: Record<string, number> },
  load: number,
) {
  log('');
  log(
    `${'phase'.padEnd(50)} ${'req/s'.padStart(7)} ${'p99 ms'.padStart(7)} ${'CPU µs/req'.padStart(11)}  RPC calls per request`,
  );
  for (const f of results) {
    const cells = `${String(f.requestsPerSecond).padStart(7)} ${String(f.p99).padStart(7)} ${String(f.cpuMicrosPerRequest).padStart(11)}`;
    log(
      `${f.name.padEnd(50)} ${cells}  ${callsText(f.rpcPerRequest)}${f.problems > 0 ? `  (${f.problems} non-2xx or errors)` : ''}`,
    );
  }
  const [, detail, check] = results as [Figures, Figures, Figures];
  const clean = results.every((f) => f.problems === 0);
  const verdict = (ok: boolean) => (ok && clean ? 'PASS' : 'MISS');
  const ratio = check.requestsPerSecond / Math.max(1, detail.requestsPerSecond);
  const liveCalls =
    Object.values(exact.live).reduce((a, b) => a + b, 0) + Object.values(check.rpcPerRequest).length;
  const freshReads = exact.fresh.getMultipleAccounts ?? 0;
  const freshOther = Object.keys(exact.fresh).filter((m) => m !== 'getMultipleAccounts');
  log('');
  log(
    `RPC calls per check, 200 checks one after another: live accounts ${callsText(exact.live)}; LIVE_ACCOUNTS=false ${callsText(exact.fresh)}`,
  );
  log(
    `targets (1-minute load average during the run: ${load.toFixed(1)} on ${availableParallelism()} cores):`,
  );
  if (!clean) log('  a phase had errors or non-2xx answers: no target counts (MISS)');
  log(
    `  check with live accounts ≥ 0.5 × cached vault detail by req/s: ${ratio.toFixed(2)} × → ${verdict(ratio >= 0.5)}`,
  );
  log(
    `  check with live accounts makes no RPC call (under load and one by one) → ${verdict(liveCalls === 0)}`,
  );
  log(
    `  check without live accounts: ${freshReads.toFixed(3)} getMultipleAccounts per check and nothing else → ` +
      verdict(Math.abs(freshReads - 1) < 1e-9 && freshOther.length === 0),
  );
  log(
    `  (CPU per request: check ${check.cpuMicrosPerRequest} µs, cached detail ${detail.cpuMicrosPerRequest} µs)`,
  );
}

async function main(): Promise<void> {
  log(`agents benchmark: ${CONNECTIONS} connections, ${DURATION} s per phase, rate limits on`);
  if (!args.tsx) {
    log('building dist/ (npm run build)');
    buildDist(root, log);
  }
  const { databaseUrl, vault, destination } = await prepare();
  const detailPath = `/api/vaults/${vault}`;
  const checkPath = `/api/vaults/${vault}/check?destination=${destination}&amount=1000000000`;
  const budgetPath = `/api/vaults/${vault}/budget`;
  const loadBefore = loadavg()[0]!;
  const results: Figures[] = [];
  let exact = { live: {}, fresh: {} } as { live: Record<string, number>; fresh: Record<string, number> };
  const live = await startService(databaseUrl);
  const fresh = await startService(databaseUrl, { LIVE_ACCOUNTS: 'false' });
  try {
    const allowed = (body: Record<string, unknown>) => body.verdict === 'allowed';
    await expectAnswer(live, checkPath, allowed);
    await expectAnswer(fresh, checkPath, allowed);
    const ceiling = await startCeiling(await (await fetch(`${live.baseUrl}${detailPath}`)).text(), root);
    try {
      await load('warm-up', ceiling, '/', 2);
      results.push(await load('ceiling: bare node:http, the detail body', ceiling, '/'));
    } finally {
      await ceiling.stop();
    }
    await load('warm-up', live, detailPath, 2);
    results.push(await load('cached GET /api/vaults/:address', live, detailPath));
    await load('warm-up', live, checkPath, 2);
    results.push(await load('GET …/check, live accounts', live, checkPath));
    await load('warm-up', live, budgetPath, 2);
    results.push(await load('GET …/budget, live accounts', live, budgetPath));
    await load('warm-up', fresh, checkPath, 2);
    results.push(await load('diagnostic: GET …/check, LIVE_ACCOUNTS=false', fresh, checkPath));
    await expectAnswer(live, checkPath, allowed);
    exact = { live: await rpcPerRequest(live, checkPath), fresh: await rpcPerRequest(fresh, checkPath) };
  } finally {
    await live.stop();
    await fresh.stop();
    await fake.close();
    await adminQuery(ADMIN_URL, `drop database if exists ${DATABASE} with (force)`);
  }
  report(results, exact, Math.max(loadBefore, loadavg()[0]!));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `agents benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
