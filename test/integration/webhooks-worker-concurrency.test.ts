// The delivery worker under load: workers side by side never send one delivery twice at once, a
// graceful shutdown, and fair shares between owners whose receivers hang.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { createTestWallet } from '../../dev/support/wallet.js';
import { enqueueDelivery, enqueueWebhookEvent } from '../../src/domain/webhooks/outbox.js';
import { recordAttempts } from '../../src/jobs/delivery.js';
import { claimDueDeliveries } from '../../src/jobs/delivery-claim.js';
import { defaultCaps } from '../../src/jobs/delivery-fairness.js';
import { runDeliveryWorker } from '../../src/jobs/worker.js';
import type { Database } from '../../src/storage/database.js';
import { webhookDeliveries, webhooks } from '../../src/storage/schema/index.js';
import { createVault, randomAddress } from '../support/factories.js';
import { waitFor } from '../support/wait.js';
import { useWebhookFixtures, WORKER_ENV } from '../support/webhooks.js';

const { apps, db, deliveries, onCleanup, receiver, startWorker, subscribe, emit, settled, webhookRow } =
  useWebhookFixtures();

describe('concurrency', () => {
  test('two workers never send one delivery at the same time', async () => {
    const target = await receiver({
      responder: () => new Promise((resolve) => setTimeout(() => resolve({ status: 200 }), 5)),
    });
    const sub = await subscribe(target.url);
    const total = 150;
    await db().transaction(async (tx) => {
      for (let i = 0; i < total; i += 1) {
        await enqueueWebhookEvent(tx, {
          event: 'vault.paused',
          vaultId: sub.vault.id,
          authority: sub.vault.authority,
          timestamp: new Date().toISOString(),
          data: { vault: sub.vault.address, n: i },
          dedupeKey: `bulk:${i}`,
        });
      }
    });
    // A send that outlives the timeout is legitimately sent again: on a loaded machine the in-process
    // receiver can answer late, so the timeout here is long and only claiming is under test.
    const slow = { WEBHOOK_TIMEOUT_MS: '60000' };
    startWorker(slow, { concurrency: 8 });
    startWorker(slow, { concurrency: 8 });
    const rows = await settled(total, 'succeeded', 30_000);
    assert.equal(target.requests.length, total, 'some delivery was sent twice');
    assert.equal(new Set(target.requests.map((r) => r.headers['webhook-id'])).size, total);
    assert.equal(target.maxConcurrentPerId, 1);
    assert.ok(rows.every((r) => r.attemptCount === 1));
  });

  test('a claim locks only the deliveries it takes, so a concurrent claim gets all the others', {
    skip: /^postgres(ql)?:/.test(process.env.DATABASE_URL ?? '')
      ? false
      : 'needs PostgreSQL (two connections)',
  }, async () => {
    const sub = await subscribe('https://receiver.invalid/hook');
    await db().transaction(async (tx) => {
      for (let i = 0; i < 8; i += 1) {
        await enqueueWebhookEvent(tx, {
          event: 'vault.paused',
          vaultId: sub.vault.id,
          authority: sub.vault.authority,
          timestamp: new Date().toISOString(),
          data: { n: i },
          dedupeKey: `claim:${i}`,
        });
      }
    });
    const claim = (on: Database, limit: number) =>
      claimDueDeliveries(on, { now: new Date(), limit, leaseMs: 60_000, asyncCommit: false });
    let second: unknown[] = [];
    await db().transaction(async (tx) => {
      const first = await claim(tx as unknown as Database, 1);
      assert.equal(first.length, 1);
      // The first claim's transaction is still open: its locks are held while the second claims.
      second = await claim(db(), 8);
    });
    assert.equal(second.length, 7);
  });

  test('recording a failed attempt does not wait for a transaction that is queueing deliveries for the same subscription', {
    skip: /^postgres(ql)?:/.test(process.env.DATABASE_URL ?? '')
      ? false
      : 'needs PostgreSQL (two connections)',
  }, async () => {
    // Queueing a delivery takes a key-share lock on its subscription row (the foreign key). Were the
    // attempt recorder to lock that row FOR UPDATE, it would wait for the queueing transaction, and
    // two of them locking several subscriptions in different orders deadlock (seen under load).
    const sub = await subscribe('https://receiver.invalid/hook');
    await emit(sub);
    const [claimed] = await claimDueDeliveries(db(), {
      now: new Date(),
      limit: 1,
      leaseMs: 60_000,
      asyncCommit: false,
    });
    const failed = {
      delivery: claimed!,
      startedAt: new Date(),
      durationMs: 3,
      outcome: { statusCode: 500, error: null, retryAfter: null, ok: false, responseBody: 'down' },
      decision: { status: 'pending' as const, nextAttemptAt: new Date(Date.now() + 60_000) },
    };
    let outcome = 'still waiting';
    await db().transaction(async (tx) => {
      await enqueueWebhookEvent(tx, {
        event: 'vault.paused',
        vaultId: sub.vault.id,
        authority: sub.vault.authority,
        timestamp: new Date().toISOString(),
        data: {},
        dedupeKey: 'queued-meanwhile',
      });
      // The queueing transaction stays open until the recording is done or clearly waiting on it.
      const recorded = recordAttempts(db(), [failed], new Date(), { asyncCommit: false }).then(
        () => 'recorded',
      );
      outcome = await Promise.race([
        recorded,
        new Promise<string>((r) => setTimeout(r, 5_000, 'still waiting')),
      ]);
    });
    assert.equal(outcome, 'recorded');
    const webhook = await webhookRow(sub.webhook.id);
    assert.ok(webhook!.failingSince !== null, 'the failure started the subscription’s failing run');
  });

  test('a worker with every slot busy keeps serving I/O when new deliveries are announced', {
    timeout: 30_000,
  }, async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const target = await receiver({
      responder: async () => {
        await gate;
        return { status: 200 };
      },
    });
    // Two owners: with two slots each owner's fair share is one.
    const sub = await subscribe(target.url);
    const other = await subscribe(target.url);
    startWorker({}, { concurrency: 2 });
    await emit(sub);
    await emit(other);
    await waitFor(() => target.requests.length === 2);
    // Announced (NOTIFY) while saturated: the worker must wait for a free slot, not spin.
    await emit(sub);
    await emit(other);
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await settled(4);
    assert.equal(target.requests.length, 4);
  });
});

describe('shutdown', () => {
  test('aborting the worker lets deliveries in flight finish and records them before it returns', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const target = await receiver({
      responder: async () => {
        await gate;
        return { status: 200 };
      },
    });
    const sub = await subscribe(target.url);
    const deps = apps.createDeps({ env: WORKER_ENV });
    const controller = new AbortController();
    const done = runDeliveryWorker(deps, controller.signal, { pollIntervalMs: 25 });
    await emit(sub);
    await waitFor(() => target.requests.length === 1);
    controller.abort();
    release();
    await done;
    const [delivery] = await deliveries();
    assert.equal(delivery!.status, 'succeeded');
    assert.equal(delivery!.lockedUntil, null);
  });
});

describe('fair shares by ownership', () => {
  test("wallets that own no vault hold only their pool, so a real owner's delivery goes out while their receivers hang", {
    timeout: 60_000,
  }, async () => {
    const hanging = await receiver({ responder: () => 'hang' });
    const owned = await receiver();
    const sub = await subscribe(owned.url);
    // Two throwaway wallets, three subscriptions each, 40 test deliveries each to a receiver that never answers.
    for (const wallet of [randomAddress(), randomAddress()]) {
      const rows = await db()
        .insert(webhooks)
        .values(
          [0, 1, 2].map((i) => ({
            owner: wallet,
            url: `${hanging.url}/${i}`,
            events: ['vault.created'],
            secret: `whsec_${Buffer.alloc(32, i).toString('base64')}`,
          })),
        )
        .returning({ id: webhooks.id });
      for (let n = 0; n < 40; n += 1) {
        await enqueueDelivery(db(), {
          webhookId: rows[n % 3]!.id,
          event: 'webhook.test',
          timestamp: new Date().toISOString(),
          data: { n },
        });
      }
    }
    // Hanging sends outlast the test: without fair shares the owner would wait for their timeout.
    startWorker({ WEBHOOK_TIMEOUT_MS: '60000' });
    // Cut the hanging sends before the worker drains them (cleanups run in reverse).
    onCleanup(() => hanging.close());
    const caps = defaultCaps(64);
    const held = Math.min(caps.withoutVault, 2 * caps.perWalletWithoutVault);
    await waitFor(() => hanging.requests.length === held, {
      message: 'the throwaway wallets filled their shares',
    });
    await emit(sub);
    await waitFor(() => owned.requests.length === 1, { message: "the owner's delivery arrived" });
    // The hanging sends still hold their slots: none finished, and no more were started.
    assert.equal(hanging.requests.length, held);
    const finished = await apps.storage.rows<{ n: number }>(
      sql`select count(*)::int as n from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
        where d.webhook_id <> ${sub.webhook.id}::uuid`,
    );
    assert.equal(finished[0]!.n, 0);
  });
});

describe('fair delivery', () => {
  test("one owner's hanging receivers do not hold back another owner's delivery", {
    timeout: 60_000,
  }, async () => {
    const dead = await receiver({ responder: () => 'hang' });
    const alive = await receiver();
    const noisyOwner = createTestWallet().address;
    // An owner of a vault indexed 60 days ago: its share is half the slots (a new vault earns 1/16).
    await createVault(db(), { authority: noisyOwner, createdAt: new Date(Date.now() - 60 * 86_400_000) });
    // 40 subscriptions of one owner, each with a delivery that hangs: more than the worker's 32 slots.
    const noisy = [];
    for (let i = 0; i < 40; i += 1) noisy.push(await subscribe(dead.url, { owner: noisyOwner }));
    for (const sub of noisy) await emit(sub);
    const quiet = await subscribe(alive.url);
    startWorker({ WEBHOOK_TIMEOUT_MS: '10000' });
    await waitFor(() => dead.requests.length >= 8, { message: 'the noisy deliveries are in flight' });
    await emit(quiet);
    // Well within the hanging sends' 10 s timeout: the quiet owner is served while they hang.
    await waitFor(() => alive.requests.length === 1, { timeoutMs: 5_000, message: 'the quiet delivery' });
    const [quietRow] = await db()
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhookId, quiet.webhook.id));
    assert.equal(quietRow!.attemptCount, 1);
  });
});
