// Transactions that land: approve POST latency with the RPC made slow (the fake adds a fixed latency to
// every JSON-RPC answer), many owners at once, and the number of sequential RPC round trips per approve.
//   npx tsx bench/landing.bench.ts [--duration 5] [--owners 20] [--latency 20]
// Each connection is one owner approving their own blocked transfer (their own vault, so their own
// writable-account set for the priority fee estimate). In-memory PGlite; the fake runs in this process.
// Rate limits on: every approve comes from a client address of its phase's pool, within the write budget,
// and a 429 or any other non-2xx answer fails the run. CPU per request is reported beside req/s.
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { Address } from '@solana/kit';
import autocannon from 'autocannon';
import { createTestWallet } from '../dev/support/wallet.js';
import { countSequentialRoundTrips } from '../dev/validator/index.js';
import { createOverride, createVault, randomAddress } from '../test/support/factories.js';
import { IN_PROCESS_MAX_RATE, startAppOnFakeChain } from './support/chain-app.js';
import { type ClientPool, clientPool, fromClient } from './support/client-pool.js';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    owners: { type: 'string', default: '20' },
    latency: { type: 'string', default: '20' },
  },
});
const DURATION = Number(args.duration);
const OWNERS = Number(args.owners);
const LATENCY_MS = Number(args.latency);
const SOL = 1_000_000_000n;

delete process.env.DATABASE_URL;
const { storage, fake, app, base } = await startAppOnFakeChain();

/** One owner: a funded vault whose agent was blocked; the approve path (building stores nothing: it repeats). */
async function seedOwner(): Promise<{ account: string; path: string }> {
  const owner = createTestWallet();
  const created = await fake.createVault({
    authority: owner.address as Address,
    dailyLimit: SOL,
    name: 'Bench',
  });
  await fake.deposit(created.vault, 1_000n * SOL);
  await fake.airdrop(owner.address as Address, 10n * SOL);
  fake.setPrioritizationFees([0, 1_000, 5_000, 20_000], [created.vault]);
  const vault = await createVault(storage.storage.db, {
    authority: owner.address,
    vaultNonce: created.nonce,
    name: 'Bench',
  });
  const destination = randomAddress() as Address;
  const blocked = await fake.block(created.vault, {
    destination,
    amount: 2n * SOL,
    reason: 'exceeded_daily_limit',
  });
  await createOverride(storage.storage.db, { vault, nonce: blocked.overrideNonce!, destination });
  return { account: owner.address, path: `/api/actions/${vault.address}/${blocked.overrideNonce}/approve` };
}

const owners = await Promise.all(Array.from({ length: OWNERS }, seedOwner));
const post = (owner: { account: string }, url: string, clients: ClientPool) =>
  app.inject({ method: 'POST', url, headers: fromClient(clients), payload: { account: owner.account } });

// Warm the per-process reads (the cluster's genesis hash for the Action headers).
const warm = await post(owners[0]!, owners[0]!.path, clientPool('write', { requests: 1 }));
if (warm.statusCode !== 200) throw new Error(`approve: ${warm.statusCode} ${warm.body}`);
fake.setLatency(LATENCY_MS);

// Round trips: one approve at a time, each for an owner whose fee estimate is not cached yet.
const trips: number[] = [];
const tripClients = clientPool('write', { requests: 5 });
for (const owner of owners.slice(1, 6)) {
  fake.resetRpcRequests();
  const res = await post(owner, owner.path, tripClients);
  if (res.statusCode !== 200) throw new Error(`approve: ${res.statusCode} ${res.body}`);
  trips.push(countSequentialRoundTrips(fake.rpcRequests()));
}
const methods = fake.rpcRequests().map((r) => r.methods.join('+'));

// CPU per request, sequential (independent of the machine's load).
const count = 100;
const sequentialClients = clientPool('write', { requests: count });
const started = process.cpuUsage();
const wall = performance.now();
for (let i = 0; i < count; i++) {
  const owner = owners[i % owners.length]!;
  const res = await post(owner, owner.path, sequentialClients);
  if (res.statusCode !== 200) throw new Error(`approve: ${res.statusCode} ${res.body}`);
}
const cpu = process.cpuUsage(started);
const cpuUs = Math.round((cpu.user + cpu.system) / count);
const sequentialMs = ((performance.now() - wall) / count).toFixed(1);

// OWNERS connections at once, each posting its own owner's approvals.
let next = 0;
const clients = clientPool('write', { rate: IN_PROCESS_MAX_RATE, seconds: DURATION });
const loadStarted = process.cpuUsage();
const result = await autocannon({
  url: base,
  connections: OWNERS,
  duration: DURATION,
  requests: [
    {
      setupRequest: (request) => {
        const i = next++;
        const owner = owners[i % owners.length]!;
        return {
          ...request,
          method: 'POST',
          path: owner.path,
          headers: fromClient(clients, { 'content-type': 'application/json' }),
          body: JSON.stringify({ account: owner.account }),
        };
      },
    },
  ],
});
const loadCpu = process.cpuUsage(loadStarted);
const loadCpuUs = Math.round((loadCpu.user + loadCpu.system) / Math.max(1, result.requests.total));
// A non-2xx answer (a 429 above all) means the run measured something else.
const problems = result.non2xx + result.errors + result.timeouts;
if (problems > 0) process.exitCode = 1;

process.stdout.write(
  [
    `landing bench: ${OWNERS} owners, each approving their blocked transfer, RPC latency +${LATENCY_MS} ms per call, ${DURATION} s, rate limits on (load average ${loadavg()[0]!.toFixed(1)})`,
    `sequential RPC round trips per approve: ${trips.join(', ')} (target 2: the reads concurrently, then the simulation)`,
    `  calls of the last one: ${methods.join(' | ')}`,
    `approve  ${cpuUs} µs CPU/request (this process: app + PGlite + fake RPC), ${sequentialMs} ms each sequentially`,
    `approve  ${Math.round(result.requests.average)} req/s at ${OWNERS} concurrent owners, ${loadCpuUs} µs CPU/request (load generator included)  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  non-2xx ${result.non2xx}  errors ${result.errors}${problems > 0 ? '  (MISS: non-2xx or errors)' : ''}`,
    '',
  ].join('\n'),
);
await app.close();
await fake.close();
await storage.close();
