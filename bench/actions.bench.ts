// Blink (Solana Actions) benchmark: GET metadata, POST approve (reads, simulation, budget and price) and
// POST reject (sign-message request: a nonce row) against an in-process API on loopback.
//   npx tsx bench/actions.bench.ts [--duration 5] [--connections 20] [--postgres]
// --postgres uses DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) for a fresh database;
// otherwise in-memory PGlite. The fake validator answers the RPC (same process: its cost is included).
import { parseArgs } from 'node:util';
import type { Address } from '@solana/kit';
import autocannon from 'autocannon';
import { createOverride, createVault, randomAddress } from '../test/support/factories.js';
import { createTestWallet } from '../test/support/wallet.js';
import { startAppOnFakeChain } from './support/chain-app.js';

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

async function measure(name: keyof typeof TARGETS, method: 'GET' | 'POST', suffix: string) {
  let next = 0;
  const result = await autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: DURATION,
    requests: [
      {
        setupRequest: (request) => {
          const path = `${paths[next++ % paths.length]}${suffix}`;
          if (method === 'GET') return { ...request, method, path };
          return {
            ...request,
            method,
            path,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ account: owner.address }),
          };
        },
      },
    ],
  });
  const rps = Math.round(result.requests.average);
  const verdict = rps >= TARGETS[name] ? 'meets' : 'BELOW';
  process.stdout.write(
    `${name.padEnd(9)} ${String(rps).padStart(6)} req/s (target ≥ ${TARGETS[name]}: ${verdict})  ` +
      `p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  non-2xx ${result.non2xx}  errors ${result.errors}\n`,
  );
}

/** CPU time of this process per request (app + DB client + fake RPC), sequential: robust to a busy machine. */
async function cpuPerRequest(name: keyof typeof TARGETS, method: 'GET' | 'POST', suffix: string) {
  const count = 300;
  const started = process.cpuUsage();
  const wall = performance.now();
  for (let i = 0; i < count; i++) {
    const url = `${paths[i % paths.length]}${suffix}`;
    const res =
      method === 'GET'
        ? await app.inject({ url })
        : await app.inject({ method, url, payload: { account: owner.address } });
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
  `actions bench: ${storage.storage.kind}, ${OVERRIDES} overrides, ${CONNECTIONS} connections, ${DURATION} s each\n`,
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
