// Webhook starvation benchmark: a real owner's delivery latency (commit → receipt) alone, then while
// two other wallets that each own one (new, idle) vault point 100 subscriptions each at a receiver
// that never answers and make a transfer every few seconds (each transfer queues 100 deliveries per
// wallet). One worker with the default 64 slots and 10 s timeout serves them all. Reports the owner's
// p50/p95, how many of its deliveries arrived, what the attack's receivers were sent, and process CPU.
//   npx tsx bench/webhook-starvation.bench.ts [--events 30] [--every 3] [--postgres]
// --postgres uses DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) for a fresh database;
// otherwise in-memory PGlite in this process (it shares the CPU with the worker and the receivers).
// Subscriptions are written straight to the table: creating 100 through the API needs 100 signed calls.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { enqueueWebhookEvent } from '../src/domain/webhooks/outbox.js';
import { generateWebhookSecret } from '../src/domain/webhooks/signatures.js';
import { runDeliveryWorker } from '../src/jobs/worker.js';
import type { VaultRow } from '../src/storage/schema/index.js';
import { webhooks } from '../src/storage/schema/index.js';
import { createTestDeps } from '../test/support/app.js';
import { createTestStorage } from '../test/support/database.js';
import { createVault } from '../test/support/factories.js';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '30' },
    every: { type: 'string', default: '3' },
    postgres: { type: 'boolean', default: false },
  },
});
const EVENTS = Number(args.events);
/** Seconds between two transfers of each attacking wallet. */
const ATTACK_EVERY_MS = Number(args.every) * 1_000;
const ATTACKERS = 2;
const SUBSCRIPTIONS_PER_ATTACKER = 100;
/** One owner event a second while attacked; stragglers get this long after the last one. */
const OWNER_EVERY_MS = 1_000;
const STRAGGLERS_MS = 40_000;
const TARGET_P95_MS = 1_000;

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
// The attack's receiver reads each request and never answers.
let hangingRequests = 0;
const hanging = createServer((req) => {
  hangingRequests += 1;
  req.resume();
});
const fastUrl = await listen(fast);
const hangingUrl = await listen(hanging);

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
const event = (
  v: VaultRow,
  name: 'transaction.blocked' | 'transaction.executed',
  data: Record<string, unknown>,
) =>
  db.transaction((tx) =>
    enqueueWebhookEvent(tx, {
      event: name,
      vaultId: v.id,
      authority: v.authority,
      timestamp: new Date().toISOString(),
      data: { vault: v.address, amount: '1500000000', ...data },
      dedupeKey: `bench:${randomUUID()}`,
    }),
  );

/** `count` owner events `everyMs` apart (not waiting for each); commit → receipt of each that arrives. */
async function measure(firstSeq: number, count: number, everyMs: number) {
  const committedAt = new Map<number, number>();
  const cpu = process.cpuUsage();
  const began = performance.now();
  for (let seq = firstSeq; seq < firstSeq + count; seq += 1) {
    const at = performance.now();
    await event(vault, 'transaction.blocked', { seq });
    committedAt.set(seq, at);
    await pause(everyMs);
  }
  const deadline = performance.now() + STRAGGLERS_MS;
  while ([...committedAt.keys()].some((s) => !receivedAt.has(s)) && performance.now() < deadline) {
    await pause(20);
  }
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - began) / 1_000;
  const latencies = [...committedAt]
    .filter(([s]) => receivedAt.has(s))
    .map(([s, at]) => receivedAt.get(s)! - at);
  return { latencies, count, cpuPercent: ((used.user + used.system) / 1e6 / seconds) * 100, seconds };
}

// Warm-up: the worker has started and its listener is on once a first delivery has arrived.
await measure(-1, 1, 0);
const alone = await measure(0, 10, 100);

// The attack: two wallets, one fresh vault each, 100 vault-wide subscriptions each to the hanging receiver.
const attackers = await Promise.all(Array.from({ length: ATTACKERS }, () => createVault(db)));
for (const attacker of attackers) {
  await db.insert(webhooks).values(
    Array.from({ length: SUBSCRIPTIONS_PER_ATTACKER }, (_, i) => ({
      owner: attacker.authority,
      url: `${hangingUrl}/${attacker.authority.slice(0, 6)}/${i}`,
      events: ['transaction.executed'],
      secret: generateWebhookSecret(),
    })),
  );
}
let attacking = true;
let transfers = 0;
const attack = (async () => {
  while (attacking) {
    for (const attacker of attackers) await event(attacker, 'transaction.executed', { n: transfers });
    transfers += 1;
    await pause(ATTACK_EVERY_MS);
  }
})();
// The first transfers' sends are in flight before the owner's events start.
await pause(1_000);
const attacked = await measure(1_000, EVENTS, OWNER_EVERY_MS);
attacking = false;
await attack;

controller.abort();
hanging.closeAllConnections();
await worker;
await Promise.all([fast, hanging].map((s) => new Promise((resolve) => s.close(resolve))));
await storage.close();

const pct = (values: number[], p: number) => {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
const backend = storage.storage.kind === 'postgres' ? 'PostgreSQL' : 'PGlite (in process)';
const ms = (v: number) => `${v.toFixed(1)} ms`.padStart(11);
const row = (label: string, r: Awaited<ReturnType<typeof measure>>) =>
  console.log(
    `${label.padEnd(26)} arrived ${`${r.latencies.length}/${r.count}`.padStart(6)}   p50 ${ms(pct(r.latencies, 50))}   p95 ${ms(
      pct(r.latencies, 95),
    )}   max ${ms(Math.max(...r.latencies))}   CPU ${r.cpuPercent.toFixed(0).padStart(3)} % of a core over ${r.seconds.toFixed(0)} s`,
  );
console.log(
  `webhook starvation on ${backend}: ${ATTACKERS} wallets with one vault each × ${SUBSCRIPTIONS_PER_ATTACKER} subscriptions to a receiver that never answers, a transfer each every ${ATTACK_EVERY_MS / 1_000} s`,
);
row("owner's deliveries, alone", alone);
row('owner, under attack', attacked);
console.log(
  `attack: ${transfers} transfers per wallet queued ${transfers * ATTACKERS * SUBSCRIPTIONS_PER_ATTACKER} deliveries; ${hangingRequests} requests reached the hanging receiver`,
);
// Owner events that never arrived count as beyond the target.
const missing = attacked.count - attacked.latencies.length;
const p95 = missing > attacked.count * 0.05 ? Number.POSITIVE_INFINITY : pct(attacked.latencies, 95);
console.log(
  `${"owner's p95 under attack".padEnd(26)} ${ms(p95)}   target < ${TARGET_P95_MS} ms ${p95 < TARGET_P95_MS ? 'ok' : 'MISSED'}`,
);
