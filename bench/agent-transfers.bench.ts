// Agent transfers: the build (check, execute_agent, simulation, fee) and the relay (checks, send,
// confirmation) of one allowed transfer, one at a time: CPU per transfer for each, and the RPC calls
// per transfer by method. The app, in-memory PGlite and the fake validator share this process, so the
// CPU figures include the fake's execution of the transaction and the database (as in landing.bench.ts).
// LIVE_ACCOUNTS=false, so every check reads the chain (the upper bound of RPC calls); the live-account
// default saves that getMultipleAccounts per request.
//   npx tsx bench/agent-transfers.bench.ts [--transfers 100]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { Address } from '@solana/kit';
import { createTestWallet } from '../dev/support/wallet.js';
import { countRpcCalls } from '../dev/validator/index.js';
import { decodeTransactionBase64 } from '../src/chain/solana-transactions.js';
import { createVault, randomAddress } from '../test/support/factories.js';
import { startAppOnFakeChain } from './support/chain-app.js';
import { clientPool, fromClient } from './support/client-pool.js';

const { values: args } = parseArgs({ options: { transfers: { type: 'string', default: '100' } } });
const TRANSFERS = Number(args.transfers);
const SOL = 1_000_000_000n;

delete process.env.DATABASE_URL;
const { storage, fake, app } = await startAppOnFakeChain({ LIVE_ACCOUNTS: 'false' });

const agent = createTestWallet();
const created = await fake.createVault({
  agentSigner: agent.address as Address,
  dailyLimit: 1_000_000n * SOL,
});
await fake.deposit(created.vault, 1_000n * SOL);
await fake.airdrop(agent.address as Address, 10n * SOL);
fake.setPrioritizationFees([0, 1_000, 5_000]);
const vault = await createVault(storage.storage.db, {
  address: created.vault,
  authority: created.authority,
  vaultNonce: created.nonce,
});

const clients = clientPool('write', { requests: TRANSFERS * 2 + 2 });
const buildUrl = `/api/vaults/${vault.address}/agent-transfers`;
const post = async (url: string, payload: object) => {
  const res = await app.inject({ method: 'POST', url, headers: fromClient(clients), payload });
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return res.json();
};
const sign = (transaction: string) => {
  const wire = Buffer.from(transaction, 'base64');
  wire.set(agent.sign(decodeTransactionBase64(transaction).messageBytes), 1);
  return wire.toString('base64');
};
const body = () => ({ destination: randomAddress(), amount: '1000000', agent: agent.address });

// Warm up: the treasury PDA, the codecs, the first blockhash.
await post(`${buildUrl}/send`, { transaction: sign((await post(buildUrl, body())).transaction) });

let buildCpu = 0;
let relayCpu = 0;
const calls = { build: {} as Record<string, number>, relay: {} as Record<string, number> };
const add = (into: Record<string, number>, from: Record<string, number>) => {
  for (const [method, n] of Object.entries(from)) into[method] = (into[method] ?? 0) + n;
};
for (let i = 0; i < TRANSFERS; i += 1) {
  fake.resetRpcRequests();
  let started = process.cpuUsage();
  const built = await post(buildUrl, body());
  let used = process.cpuUsage(started);
  buildCpu += used.user + used.system;
  add(calls.build, countRpcCalls(fake.rpcRequests()));
  const signed = sign(built.transaction);
  fake.resetRpcRequests();
  started = process.cpuUsage();
  const sent = await post(`${buildUrl}/send`, { transaction: signed, idempotencyKey: `bench-${i}` });
  used = process.cpuUsage(started);
  relayCpu += used.user + used.system;
  add(calls.relay, countRpcCalls(fake.rpcRequests()));
  if (sent.status !== 'executed') throw new Error(`transfer ${i}: ${JSON.stringify(sent)}`);
}
const perTransfer = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([method, n]) => `${method} ${(n / TRANSFERS).toFixed(2)}`)
    .join(', ');
const total = (counts: Record<string, number>) =>
  (Object.values(counts).reduce((a, b) => a + b, 0) / TRANSFERS).toFixed(2);

process.stdout.write(
  [
    `agent-transfers bench: ${TRANSFERS} allowed transfers one at a time, LIVE_ACCOUNTS=false (load average ${loadavg()[0]!.toFixed(1)})`,
    `build  ${Math.round(buildCpu / TRANSFERS)} µs CPU/transfer (app + PGlite + fake RPC); RPC calls/transfer ${total(calls.build)}: ${perTransfer(calls.build)}`,
    `relay  ${Math.round(relayCpu / TRANSFERS)} µs CPU/transfer (app + PGlite + fake RPC, the transaction's execution included); RPC calls/transfer ${total(calls.relay)}: ${perTransfer(calls.relay)}`,
    '',
  ].join('\n'),
);
await app.close();
await fake.close();
await storage.close();
