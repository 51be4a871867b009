// mailto: subscriptions delivered through a local SMTP sink: the e-mail a recipient reads, refusals
// retried, and a delivery that cannot be built.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { webhookDeliveries } from '../../src/storage/schema/index.js';
import { randomAddress } from '../support/factories.js';
import { createSmtpSink, type SmtpSink } from '../support/smtp-sink.js';
import { useWebhookFixtures } from '../support/webhooks.js';

const { db, startWorker, subscribe, emit, attemptsOf, settled } = useWebhookFixtures();

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
    // The attempt that delivered it (on a loaded machine an earlier one may have timed out first).
    const attempt = (await attemptsOf(blockedRow.id)).at(-1);
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
