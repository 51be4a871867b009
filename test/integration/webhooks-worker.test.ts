// The delivery worker end to end, part 2: subscription health (410, five failing days, disabled,
// deleted), concurrency between workers, graceful shutdown, and e-mail through a local SMTP sink.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { enqueueDelivery, enqueueWebhookEvent } from '../../src/domain/webhooks/outbox.js';
import { claimDueDeliveries, recordAttempts } from '../../src/jobs/delivery.js';
import { defaultCaps } from '../../src/jobs/delivery-fairness.js';
import { FAILING_REASON, GONE_REASON, MAX_FAILING_MS } from '../../src/jobs/retry-policy.js';
import { runDeliveryWorker } from '../../src/jobs/worker.js';
import type { Database } from '../../src/storage/database.js';
import { webhookDeliveries, webhooks } from '../../src/storage/schema/index.js';
import { createTestDeps } from '../support/app.js';
import { createTestStorage, type TestStorage } from '../support/database.js';
import { randomAddress } from '../support/factories.js';
import { createSmtpSink, type SmtpSink } from '../support/smtp-sink.js';
import { waitFor } from '../support/wait.js';
import { createWebhookFixtures, WORKER_ENV } from '../support/webhooks.js';

let storage: TestStorage;
const {
  db,
  deliveries,
  cleanup,
  onCleanup,
  receiver,
  startWorker,
  subscribe,
  emit,
  attemptsOf,
  settled,
  webhookRow,
} = createWebhookFixtures(() => storage);

before(async () => {
  storage = await createTestStorage();
});
after(async () => {
  await storage.close();
});
afterEach(() => cleanup());

describe('subscription health', () => {
  test('410 Gone disables the subscription and fails its queued deliveries', async () => {
    const target = await receiver({ responder: () => ({ status: 410 }) });
    const sub = await subscribe(target.url);
    await emit(sub);
    // Queued behind the first, not yet due.
    await emit(sub);
    const [, later] = await deliveries();
    await db()
      .update(webhookDeliveries)
      .set({ nextAttemptAt: new Date(Date.now() + 3600_000) })
      .where(eq(webhookDeliveries.id, later!.id));
    startWorker();
    const rows = await settled(2, 'failed');
    assert.equal(target.requests.length, 1);
    assert.match(rows.find((r) => r.id === later!.id)!.lastError!, /subscription disabled/);
    const webhook = await webhookRow(sub.webhook.id);
    assert.deepEqual([webhook!.active, webhook!.disabledReason], [false, GONE_REASON]);
    const enqueued = await enqueueWebhookEvent(db(), {
      event: 'vault.paused',
      vaultId: sub.vault.id,
      authority: sub.vault.authority,
      timestamp: new Date().toISOString(),
      data: {},
      dedupeKey: 'after-disable',
    });
    assert.equal(enqueued, 0);
  });

  test('five days of continuous failure disable the subscription', async () => {
    const target = await receiver({ responder: () => ({ status: 500 }) });
    const sub = await subscribe(target.url, { failingSince: new Date(Date.now() - MAX_FAILING_MS - 1000) });
    startWorker();
    await emit(sub);
    await settled(1, 'failed');
    const webhook = await webhookRow(sub.webhook.id);
    assert.deepEqual([webhook!.active, webhook!.disabledReason], [false, FAILING_REASON]);
    assert.equal(target.requests.length, 1);
  });

  test('deliveries of a disabled subscription fail without being sent', async () => {
    const target = await receiver();
    const sub = await subscribe(target.url);
    await emit(sub);
    await db()
      .update(webhooks)
      .set({ active: false, disabledReason: 'disabled by owner' })
      .where(eq(webhooks.id, sub.webhook.id));
    startWorker();
    const [delivery] = await settled(1, 'failed');
    assert.equal(delivery!.lastError, 'subscription disabled');
    assert.equal(target.requests.length, 0);
    assert.equal((await attemptsOf(delivery!.id)).length, 0);
  });

  test('a subscription deleted while its delivery is in flight is dropped cleanly', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const target = await receiver({
      responder: async (_request, index) => {
        if (index === 0) await gate;
        return { status: 200 };
      },
    });
    const doomed = await subscribe(target.url);
    const kept = await subscribe(target.url);
    startWorker();
    await emit(doomed);
    await waitFor(() => target.requests.length === 1);
    await db().delete(webhooks).where(eq(webhooks.id, doomed.webhook.id));
    release();
    await emit(kept);
    const [delivery] = await settled(1);
    assert.equal(delivery!.webhookId, kept.webhook.id);
    const [count] = await storage.storage.rows<{ n: number }>(
      sql`select count(*)::int as n from webhook_attempts`,
    );
    assert.equal(count!.n, 1);
  });
});

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
    const deps = createTestDeps({ storage: storage.storage, env: WORKER_ENV });
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

describe('e-mail', () => {
  let sink: SmtpSink;
  before(async () => {
    sink = await createSmtpSink();
  });
  after(async () => {
    await sink.close();
  });

  test('mailto: subscriptions receive a readable, escaped e-mail with the approval page and Blink links', async () => {
    sink.messages.length = 0;
    const sub = await subscribe('mailto:owner@example.com');
    startWorker({ SMTP_URL: sink.url, EMAIL_FROM: 'Vaultkeeper <alerts@vk.example.com>' });
    const blinkUrl = `https://vk.example.com/api/actions/${sub.vault.address}/7`;
    const approvalUrl = `https://vk.example.com/overrides/${sub.vault.address}/7`;
    await emit(sub, 'transaction.blocked', {
      vault: sub.vault.address,
      destination: randomAddress(),
      amount: '2500000000',
      blockReason: 'not_whitelisted',
      blinkUrl,
      approvalUrl,
      signature: null,
    });
    await emit(sub, 'vault.paused', { vault: sub.vault.address, name: '<img src=x onerror=alert(1)>' });
    const rows = await settled(2);
    assert.equal(sink.messages.length, 2);
    const blocked = sink.messages.find((m) => m.subject.includes('blocked'))!;
    assert.deepEqual(blocked.to, ['owner@example.com']);
    assert.equal(blocked.from, 'alerts@vk.example.com');
    assert.match(blocked.subject, /^\[Vaultkeeper\] Transfer blocked: 2\.5 SOL from /);
    assert.ok(blocked.text.includes(blinkUrl));
    assert.ok(blocked.text.includes('destination not on the whitelist'));
    assert.ok(blocked.html.includes(`href="${blinkUrl}"`));
    assert.ok(blocked.text.includes(approvalUrl));
    assert.ok(blocked.html.includes(`href="${approvalUrl}"`));
    const blockedRow = rows.find((r) => r.event === 'transaction.blocked')!;
    assert.equal(blocked.headers['x-vaultkeeper-delivery'], blockedRow.id);
    const paused = sink.messages.find((m) => m.subject.includes('paused'))!;
    assert.ok(!paused.html.includes('<img'));
    assert.ok(paused.html.includes('&lt;img src=x onerror=alert(1)&gt;'));
    const [attempt] = await attemptsOf(blockedRow.id);
    assert.equal(attempt!.statusCode, 250);
  });

  test('a refused e-mail is retried and the refusal recorded', async () => {
    sink.messages.length = 0;
    sink.failNext(1);
    const sub = await subscribe('mailto:owner@example.com');
    startWorker({ SMTP_URL: sink.url });
    await emit(sub, 'vault.resumed', { vault: sub.vault.address });
    const [delivery] = await settled(1);
    const attempts = await attemptsOf(delivery!.id);
    assert.deepEqual(
      attempts.map((a) => a.statusCode),
      [451, 250],
    );
    assert.equal(attempts[0]!.error, 'smtp_451');
    assert.equal(sink.messages.length, 1);
  });

  test('a delivery that cannot be built is a failed attempt and runs out of retries', async () => {
    sink.messages.length = 0;
    const sub = await subscribe('mailto:owner@example.com');
    await db()
      .insert(webhookDeliveries)
      .values({ webhookId: sub.webhook.id, event: 'vault.paused', payload: 'not json' });
    startWorker({ SMTP_URL: sink.url, WEBHOOK_RETRY_SCHEDULE: '0.05' });
    const [delivery] = await settled(1, 'failed');
    const attempts = await attemptsOf(delivery!.id);
    assert.equal(attempts.length, 2);
    assert.ok(attempts.every((a) => a.error === 'internal_error'));
    assert.equal(sink.messages.length, 0);
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
    const finished = await storage.storage.rows<{ n: number }>(
      sql`select count(*)::int as n from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
        where d.webhook_id <> ${sub.webhook.id}::uuid`,
    );
    assert.equal(finished[0]!.n, 0);
  });
});
