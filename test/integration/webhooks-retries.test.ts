// When a receiver fails: the retry schedule with the same id and body, Retry-After, an outage, a
// refused address, and the subscription's health (410 Gone, five failing days, disabled, deleted).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { enqueueWebhookEvent } from '../../src/domain/webhooks/outbox.js';
import { FAILING_REASON, GONE_REASON, MAX_FAILING_MS } from '../../src/jobs/retry-policy.js';
import { webhookAttempts, webhookDeliveries, webhooks } from '../../src/storage/schema/index.js';
import { waitFor } from '../support/wait.js';
import { useWebhookFixtures } from '../support/webhooks.js';

const { apps, db, deliveries, receiver, startWorker, subscribe, emit, attemptsOf, settled, webhookRow } =
  useWebhookFixtures();

describe('retries', () => {
  test('with private URLs not allowed, a loopback receiver is refused at connect time', async () => {
    const target = await receiver();
    const sub = await subscribe(target.url);
    startWorker({ WEBHOOK_ALLOW_PRIVATE_URLS: 'false', WEBHOOK_RETRY_SCHEDULE: '0.05' });
    await emit(sub);
    const [delivery] = await settled(1, 'failed');
    const attempts = await attemptsOf(delivery!.id);
    assert.equal(attempts.length, 2);
    // The owner sees the class only; the address and its category stay in the server log.
    assert.deepEqual(
      attempts.map((a) => a.error),
      ['blocked_address', 'blocked_address'],
    );
    assert.equal(target.requests.length, 0);
  });

  test('failed attempts are retried on the schedule with the same id and body', async () => {
    const target = await receiver({
      responder: (_request, index) => (index < 2 ? { status: 500, body: 'boom' } : { status: 204 }),
    });
    const sub = await subscribe(target.url);
    startWorker({ WEBHOOK_RETRY_SCHEDULE: '0.1,0.2' });
    await emit(sub);
    const [delivery] = await settled(1);
    const attempts = await attemptsOf(delivery!.id);
    assert.deepEqual(
      attempts.map((a) => [a.attempt, a.statusCode, a.responseBody]),
      [
        [1, 500, 'boom'],
        [2, 500, 'boom'],
        [3, 204, null],
      ],
    );
    const gaps = [1, 2].map((i) => attempts[i]!.startedAt.getTime() - attempts[i - 1]!.startedAt.getTime());
    assert.ok(gaps[0]! >= 80, `first retry after ${gaps[0]} ms, scheduled 100 ms ± 20 %`);
    assert.ok(gaps[1]! >= 160, `second retry after ${gaps[1]} ms, scheduled 200 ms ± 20 %`);
    assert.deepEqual(new Set(target.requests.map((r) => r.headers['webhook-id'])), new Set([delivery!.id]));
    assert.deepEqual(new Set(target.requests.map((r) => r.body)).size, 1);
  });

  test('a delivery that fails every scheduled attempt ends failed and the subscription starts failing', async () => {
    const target = await receiver({ responder: () => ({ status: 503 }) });
    const sub = await subscribe(target.url);
    startWorker({ WEBHOOK_RETRY_SCHEDULE: '0.05,0.05' });
    await emit(sub);
    const [delivery] = await settled(1, 'failed');
    assert.equal(delivery!.attemptCount, 3);
    assert.equal(delivery!.lastStatusCode, 503);
    assert.equal(delivery!.lastError, 'http_503');
    assert.equal((await attemptsOf(delivery!.id)).length, 3);
    const webhook = await webhookRow(sub.webhook.id);
    assert.ok(webhook!.failingSince !== null);
    assert.equal(webhook!.active, true);
  });

  test('Retry-After is honoured only up to twice the scheduled delay', async () => {
    const target = await receiver({
      responder: (_request, index) =>
        index === 0 ? { status: 429, headers: { 'retry-after': '86400' } } : { status: 200 },
    });
    const sub = await subscribe(target.url);
    startWorker({ WEBHOOK_RETRY_SCHEDULE: '0.1' });
    await emit(sub);
    const [delivery] = await settled(1);
    const attempts = await attemptsOf(delivery!.id);
    assert.deepEqual(
      attempts.map((a) => a.statusCode),
      [429, 200],
    );
  });

  test('a receiver that is down for a while gets every delivery once it is back', async () => {
    const target = await receiver();
    await target.stop();
    const sub = await subscribe(target.url);
    startWorker({ WEBHOOK_RETRY_SCHEDULE: '0.05,0.1,0.2,0.3,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5' });
    for (let i = 0; i < 20; i += 1) await emit(sub);
    await waitFor(
      async () => {
        const rows = await deliveries();
        return rows.length === 20 && rows.every((r) => r.attemptCount >= 2);
      },
      { message: 'every delivery failed twice', timeoutMs: 15_000 },
    );
    const failures = await db().select().from(webhookAttempts);
    assert.ok(
      failures.every((a) => a.statusCode === null && a.error === 'refused'),
      JSON.stringify(failures[0]),
    );
    await target.start();
    const rows = await settled(20);
    const received = new Set(target.requests.map((r) => r.headers['webhook-id']));
    assert.deepEqual(received, new Set(rows.map((r) => r.id)));
    const webhook = await webhookRow(sub.webhook.id);
    assert.equal(webhook!.failingSince, null, 'a success ends the failing run');
  });
});

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
    const [count] = await apps.storage.rows<{ n: number }>(
      sql`select count(*)::int as n from webhook_attempts`,
    );
    assert.equal(count!.n, 1);
  });
});
