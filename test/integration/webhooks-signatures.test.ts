// Signed deliveries end to end: what a receiver gets under both signature schemes (and through the
// docs/WEBHOOKS.md example), and the signatures it carries while a secret is being rotated.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { createWebhookServer, verifyVaultkeeperSignature } from '../../docs/examples/verify-webhook.mjs';
import { generateWebhookSecret } from '../../src/domain/webhooks/signatures.js';
import { webhooks } from '../../src/storage/schema/index.js';
import { useWebhookFixtures } from '../support/webhooks.js';

const { db, onCleanup, receiver, startWorker, subscribe, emit, attemptsOf, settled } = useWebhookFixtures();

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
});
