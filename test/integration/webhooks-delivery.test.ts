// The delivery worker end to end, part 1: what a receiver gets (both signature schemes, rotation,
// the docs/WEBHOOKS.md example) and when it gets it again (the retry schedule, Retry-After, an outage).
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { createWebhookServer, verifyVaultkeeperSignature } from '../../docs/examples/verify-webhook.mjs';
import { generateWebhookSecret } from '../../src/domain/webhooks/signatures.js';
import { webhookAttempts, webhooks } from '../../src/storage/schema/index.js';
import { createTestStorage, type TestStorage } from '../support/database.js';
import { waitFor } from '../support/wait.js';
import { createWebhookFixtures } from '../support/webhooks.js';

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

describe('signed deliveries', () => {
  test('a receiver verifies both signature schemes on a real delivery', async () => {
    const target = await receiver();
    const sub = await subscribe(target.url);
    startWorker();
    await emit(sub);
    const [delivery] = await settled(1);
    const [request] = target.requests;
    const headers = request!.headers as Record<string, string>;
    const verified = new StandardWebhook(sub.secret).verify(request!.body, headers) as Record<
      string,
      unknown
    >;
    assert.equal(verified.id, delivery!.id);
    assert.equal(verifyVaultkeeperSignature(request!.body, headers, sub.secret), true);
    assert.equal(headers['webhook-id'], delivery!.id);
    assert.equal(headers['x-vaultkeeper-event'], 'transaction.blocked');
    assert.equal(headers['content-type'], 'application/json');
    assert.ok(Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000) < 60);
    const body = JSON.parse(request!.body);
    assert.deepEqual(Object.keys(body), ['id', 'event', 'timestamp', 'data', 'signature']);
    assert.deepEqual(Object.keys(body.data), [
      'vault',
      'destination',
      'amount',
      'blockReason',
      'blinkUrl',
      'approvalUrl',
      'signature',
    ]);
    assert.equal(body.signature, headers['x-vaultkeeper-signature']);
    const attempts = await attemptsOf(delivery!.id);
    assert.deepEqual(
      attempts.map((a) => [a.attempt, a.statusCode, a.error, a.responseBody]),
      [[1, 200, null, 'ok']],
    );
  });

  test('the docs/WEBHOOKS.md receiver example accepts real deliveries', async () => {
    const received: { id: string; event: string }[] = [];
    const secret = generateWebhookSecret();
    const server = createWebhookServer(secret, (event) => received.push(event));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onCleanup(() => new Promise((resolve) => server.close(resolve)));
    const { port } = server.address() as AddressInfo;
    const sub = await subscribe(`http://127.0.0.1:${port}/webhooks`, { secret });
    startWorker();
    await emit(sub, 'vault.paused', { vault: sub.vault.address });
    const [delivery] = await settled(1);
    assert.deepEqual(
      received.map((e) => [e.id, e.event]),
      [[delivery!.id, 'vault.paused']],
    );
  });

  test('after a rotation every delivery carries a signature for each secret until the old one expires', async () => {
    const target = await receiver();
    const oldSecret = generateWebhookSecret();
    const newSecret = generateWebhookSecret();
    const sub = await subscribe(target.url, {
      secret: newSecret,
      previousSecret: oldSecret,
      previousSecretExpiresAt: new Date(Date.now() + 3600_000),
    });
    startWorker();
    await emit(sub);
    await settled(1);
    const [request] = target.requests;
    const headers = request!.headers as Record<string, string>;
    assert.equal(headers['webhook-signature']!.split(' ').length, 2);
    assert.doesNotThrow(() => new StandardWebhook(oldSecret).verify(request!.body, headers));
    assert.doesNotThrow(() => new StandardWebhook(newSecret).verify(request!.body, headers));

    await db()
      .update(webhooks)
      .set({ previousSecretExpiresAt: new Date(Date.now() - 1) })
      .where(eq(webhooks.id, sub.webhook.id));
    await emit(sub);
    await settled(2);
    const late = target.requests[1]!;
    const lateHeaders = late.headers as Record<string, string>;
    assert.equal(lateHeaders['webhook-signature']!.split(' ').length, 1);
    assert.throws(() => new StandardWebhook(oldSecret).verify(late.body, lateHeaders));
    assert.doesNotThrow(() => new StandardWebhook(newSecret).verify(late.body, lateHeaders));
  });

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
});

describe('retries', () => {
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
