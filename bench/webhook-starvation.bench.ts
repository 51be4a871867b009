// Webhook starvation benchmark: a real owner's delivery latency (commit → receipt) alone, then while
// two throwaway wallets (no vault) each have 40 deliveries to a receiver that never answers, as a
// worker with the default 64 slots and the default 10 s timeout serves them. CPU per delivery beside it.
//   npx tsx bench/webhook-starvation.bench.ts [--events 10] [--postgres]
// --postgres uses DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) for a fresh database;
// otherwise in-memory PGlite in this process (it shares the CPU with the worker and the receivers).
// The throwaway deliveries are written straight to the outbox: the API's caps (3 subscriptions per
// wallet, 5 test events per subscription per 5 minutes) would not let one wallet queue 40 of them.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { enqueueDelivery, enqueueWebhookEvent } from '../src/domain/webhooks/outbox.js';
import { generateWebhookSecret } from '../src/domain/webhooks/signatures.js';
import { runDeliveryWorker } from '../src/jobs/worker.js';
import { webhooks } from '../src/storage/schema/index.js';
import { createTestDeps } from '../test/support/app.js';
import { createTestStorage } from '../test/support/database.js';
import { createVault, randomAddress } from '../test/support/factories.js';

const { values: args } = parseArgs({
  options: { events: { type: 'string', default: '10' }, postgres: { type: 'boolean', default: false } },
});
const EVENTS = Number(args.events);
const THROWAWAY_WALLETS = 2;
const HANGING_PER_WALLET = 40;
/** Under attack, the owner's p95 may exceed its p95 alone by at most this. */
const TARGET_ADDED_MS = 250;

if (args.postgres) process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';
else delete process.env.DATABASE_URL;

const storage = await createTestStorage();
const db = storage.storage.db;

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
// The owner's receiver answers at once and notes when each sequence number arrived.
const receivedAt = new Map<number, number>();
const fast = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { seq?: number } };
    if (body.data.seq !== undefined && !receivedAt.has(body.data.seq)) {
      receivedAt.set(body.data.seq, performance.now());
    }
    res.writeHead(204).end();
  });
});
// Each throwaway wallet's receiver reads each request and never answers.
let hangingOpen = 0;
const hangingServers = Array.from({ length: THROWAWAY_WALLETS }, () =>
  createServer((req, res) => {
    hangingOpen += 1;
    req.resume();
    res.on('close', () => {
      hangingOpen -= 1;
    });
  }),
);
const fastUrl = await listen(fast);
const hangingUrls = await Promise.all(hangingServers.map(listen));

const vault = await createVault(db);
await db.insert(webhooks).values({
  owner: vault.authority,
  vaultId: vault.id,
  url: `${fastUrl}/hooks`,
  events: ['transaction.blocked'],
  secret: generateWebhookSecret(),
});

const deps = createTestDeps({
  storage: storage.storage,
  env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', LOG_LEVEL: 'silent' },
});
const controller = new AbortController();
const worker = runDeliveryWorker(deps, controller.signal);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const waitUntil = async (check: () => boolean, timeoutMs: number, what: string) => {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`benchmark timed out waiting for ${what}`);
    await pause(2);
  }
};

/** EVENTS owner events, one at a time: commit → receipt of each, and process CPU per delivery. */
async function measure(firstSeq: number): Promise<{ latencies: number[]; cpuUs: number }> {
  const latencies: number[] = [];
  const cpu = process.cpuUsage();
  for (let seq = firstSeq; seq < firstSeq + EVENTS; seq += 1) {
    const at = performance.now();
    await db.transaction((tx) =>
      enqueueWebhookEvent(tx, {
        event: 'transaction.blocked',
        vaultId: vault.id,
        authority: vault.authority,
        timestamp: new Date().toISOString(),
        data: { vault: vault.address, amount: '1500000000', seq },
        dedupeKey: `bench:${randomUUID()}`,
      }),
    );
    await waitUntil(() => receivedAt.has(seq), 60_000, `owner delivery ${seq}`);
    latencies.push(receivedAt.get(seq)! - at);
    await pause(100);
  }
  const used = process.cpuUsage(cpu);
  return { latencies, cpuUs: (used.user + used.system) / EVENTS };
}

const alone = await measure(0);

// The attack: each throwaway wallet, owning no vault, has 3 subscriptions and 40 hanging deliveries.
for (let w = 0; w < THROWAWAY_WALLETS; w += 1) {
  const wallet = randomAddress();
  const subs = await db
    .insert(webhooks)
    .values(
      [0, 1, 2].map((i) => ({
        owner: wallet,
        url: `${hangingUrls[w]}/${i}`,
        events: ['vault.created'],
        secret: generateWebhookSecret(),
      })),
    )
    .returning({ id: webhooks.id });
  for (let n = 0; n < HANGING_PER_WALLET; n += 1) {
    await enqueueDelivery(db, {
      webhookId: subs[n % subs.length]!.id,
      event: 'webhook.test',
      timestamp: new Date().toISOString(),
      data: { n },
    });
  }
}
await waitUntil(() => hangingOpen > 0, 10_000, 'the hanging deliveries');
// Let the worker take every slot the attack can get before the owner's events start.
await pause(500);
const heldByAttack = hangingOpen;
const [leased] = await storage.storage.rows<{ n: number }>(
  sql`select count(*)::int as n from webhook_deliveries where event = 'webhook.test' and locked_until > now()`,
);
const attacked = await measure(1_000);

controller.abort();
for (const server of hangingServers) server.closeAllConnections();
await worker;
await Promise.all([fast, ...hangingServers].map((s) => new Promise((resolve) => s.close(resolve))));
await storage.close();

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const pct = (values: number[], p: number) => {
  const s = sorted(values);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
const backend = storage.storage.kind === 'postgres' ? 'PostgreSQL' : 'PGlite (in process)';
const row = (label: string, r: { latencies: number[]; cpuUs: number }) =>
  console.log(
    `${label.padEnd(40)} p50 ${pct(r.latencies, 50).toFixed(1).padStart(8)} ms   p95 ${pct(r.latencies, 95)
      .toFixed(1)
      .padStart(8)} ms   max ${Math.max(...r.latencies)
      .toFixed(1)
      .padStart(8)} ms   CPU ${r.cpuUs.toFixed(0).padStart(7)} µs/delivery`,
  );
console.log(
  `webhook starvation on ${backend}: ${EVENTS} owner events, then ${THROWAWAY_WALLETS} wallets without a vault × ${HANGING_PER_WALLET} hanging deliveries`,
);
row("owner's delivery, alone", alone);
row(`under attack (${leased!.n} leased, ${heldByAttack} open)`, attacked);
const added = pct(attacked.latencies, 95) - pct(alone.latencies, 95);
console.log(
  `${'added to the p95 by the attack'.padEnd(40)} ${`${added.toFixed(1)} ms`.padStart(12)}   target < ${TARGET_ADDED_MS} ms ${added < TARGET_ADDED_MS ? 'ok' : 'MISSED'}`,
);
