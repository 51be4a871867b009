// Blink (Solana Actions) benchmark: GET metadata, POST approve (reads, simulation, budget and price) and
// POST reject (sign-message request: a nonce row) against an in-process API on loopback, rate limits on:
// every request comes from a client address of its own phase's pool, within its budget (read for the
// metadata, write for the POSTs), and a 429 or any other non-2xx answer fails the phase's target.
// Each phase reports req/s beside this process's CPU per request (app, database, fake RPC and, under
// load, the load generator too).
//   npx tsx bench/actions.bench.ts [--duration 5] [--connections 20] [--postgres]
// --postgres uses DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) for a fresh database;
// otherwise in-memory PGlite. The fake validator answers the RPC (same process: its cost is included).
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { Address } from '@solana/kit';
import autocannon from 'autocannon';
import { createTestWallet } from '../dev/support/wallet.js';
import { createOverride, createVault, randomAddress } from '../test/support/factories.js';
import { IN_PROCESS_MAX_RATE, startAppOnFakeChain } from './support/chain-app.js';
import { clientPool, fromClient } from './support/client-pool.js';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '20' },
    postgres: { type: 'boolean', default: false },
  },
});
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const OVERRIDES = 200;
const SOL = 1_000_000_000n;
// Informal floors for 2 shared cores: a Blink card must never be the slow part of a wallet's unfurl.
const TARGETS = { metadata: 1_000, approve: 300, reject: 500 } as const;

if (args.postgres) process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';
else delete process.env.DATABASE_URL;

const { storage, fake, app, base } = await startAppOnFakeChain();

// One vault on the fake chain whose agent was blocked OVERRIDES times, stored as ingestion stores it.
const owner = createTestWallet();
const created = await fake.createVault({
  authority: owner.address as Address,
  dailyLimit: SOL,
  name: 'Bench',
});
// Funded, so that every approve simulates successfully (a failing one is never handed out).
await fake.deposit(created.vault, 1_000n * SOL);
await fake.airdrop(owner.address as Address, 10n * SOL);
const vault = await createVault(storage.storage.db, {
  authority: owner.address,
  vaultNonce: created.nonce,
  name: 'Bench',
});
const paths: string[] = [];
for (let i = 0; i < OVERRIDES; i++) {
  const destination = randomAddress() as Address;
  const blocked = await fake.block(created.vault, {
    destination,
    amount: 2n * SOL,
    reason: 'not_whitelisted',
  });
  // Created on chain at once, so the next block announces the next nonce (one request per nonce).
  await fake.createOverride(created.vault, { destination, amount: 2n * SOL, nonce: blocked.overrideNonce! });
  await createOverride(storage.storage.db, {
    vault,
    nonce: blocked.overrideNonce!,
    chainNonce: blocked.overrideNonce!,
    destination,
  });
  paths.push(`/api/actions/${vault.address}/${blocked.overrideNonce}`);
}

const budgetOf = (method: 'GET' | 'POST') => (method === 'GET' ? 'read' : 'write');

async function measure(name: keyof typeof TARGETS, method: 'GET' | 'POST', suffix: string) {
  let next = 0;
  const clients = clientPool(budgetOf(method), { rate: IN_PROCESS_MAX_RATE, seconds: DURATION });
  const started = process.cpuUsage();
  const result = await autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: DURATION,
    requests: [
      {
        setupRequest: (request) => {
          const path = `${paths[next++ % paths.length]}${suffix}`;
          if (method === 'GET') return { ...request, method, path, headers: fromClient(clients) };
          return {
            ...request,
            method,
            path,
            headers: fromClient(clients, { 'content-type': 'application/json' }),
            body: JSON.stringify({ account: owner.address }),
          };
        },
      },
    ],
  });
  const cpu = process.cpuUsage(started);
  const cpuUs = Math.round((cpu.user + cpu.system) / Math.max(1, result.requests.total));
  const rps = Math.round(result.requests.average);
  // A non-2xx answer (a 429 above all: cheap) means the phase measured something else.
  const problems = result.non2xx + result.errors + result.timeouts;
  const verdict = problems > 0 ? 'MISS: non-2xx or errors' : rps >= TARGETS[name] ? 'meets' : 'BELOW';
  if (problems > 0) process.exitCode = 1;
  process.stdout.write(
    `${name.padEnd(9)} ${String(rps).padStart(6)} req/s (target ≥ ${TARGETS[name]}: ${verdict})  ${cpuUs} µs CPU/request  ` +
      `p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  non-2xx ${result.non2xx}  errors ${result.errors}\n`,
  );
}

/** CPU time of this process per request (app + DB client + fake RPC), sequential: robust to a busy machine. */
async function cpuPerRequest(name: keyof typeof TARGETS, method: 'GET' | 'POST', suffix: string) {
  const count = 300;
  const clients = clientPool(budgetOf(method), { requests: count });
  const started = process.cpuUsage();
  const wall = performance.now();
  for (let i = 0; i < count; i++) {
    const url = `${paths[i % paths.length]}${suffix}`;
    const headers = fromClient(clients);
    const res =
      method === 'GET'
        ? await app.inject({ url, headers })
        : await app.inject({ method, url, headers, payload: { account: owner.address } });
    if (res.statusCode !== 200) throw new Error(`${name}: ${res.statusCode} ${res.body}`);
  }
  const cpu = process.cpuUsage(started);
  const cpuUs = Math.round((cpu.user + cpu.system) / count);
  const wallMs = ((performance.now() - wall) / count).toFixed(2);
  process.stdout.write(
    `${name.padEnd(9)} ${String(cpuUs).padStart(6)} µs CPU/request (≈ ${Math.round(1e6 / cpuUs)} req/s per core)  ${wallMs} ms sequential\n`,
  );
}

process.stdout.write(
  `actions bench: ${storage.storage.kind}, ${OVERRIDES} overrides, ${CONNECTIONS} connections, ${DURATION} s each, ` +
    `rate limits on (each request from its own phase's client pool; load average ${loadavg()[0]!.toFixed(1)})\n`,
);
await cpuPerRequest('metadata', 'GET', '');
await cpuPerRequest('approve', 'POST', '/approve');
await cpuPerRequest('reject', 'POST', '/reject');
await measure('metadata', 'GET', '');
await measure('approve', 'POST', '/approve');
await measure('reject', 'POST', '/reject');
await app.close();
await fake.close();
await storage.close();
