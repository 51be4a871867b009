import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { verifyStandardWebhook, verifyVaultkeeperSignature } from '../../../docs/examples/verify-webhook.mjs';
import {
  activePreviousSecret,
  buildSignedDelivery,
  generateWebhookSecret,
  signStandard,
} from './signatures.js';

const payload = JSON.stringify({
  id: '0b6f5a3e-7c1d-4f47-9c55-0f3a3b7d2a10',
  event: 'transaction.blocked',
  timestamp: '2026-11-22T01:27:42.000Z',
  data: { vault: 'V', amount: '1500000000', note: 'ünïcode ✓' },
});

describe('webhook signatures', () => {
  it('issues whsec_ secrets holding 32 random bytes', () => {
    const secret = generateWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
    assert.notEqual(generateWebhookSecret(), secret);
  });

  it('sends the payload text with the hex HMAC of exactly that text appended', () => {
    const secret = generateWebhookSecret();
    const { body, headers } = buildSignedDelivery({
      deliveryId: 'd1',
      event: 'transaction.blocked',
      payload,
      secrets: { secret, previousSecret: null },
      attemptAt: new Date(),
    });
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(payload).digest('hex');
    assert.ok(body.startsWith(payload.slice(0, -1)));
    assert.deepEqual(JSON.parse(body), { ...JSON.parse(payload), signature: expected });
    assert.equal(headers['x-vaultkeeper-signature'], expected);
    assert.equal(headers['x-vaultkeeper-event'], 'transaction.blocked');
    assert.equal(headers['content-type'], 'application/json');
  });

  it('is accepted by the standardwebhooks library and by the docs/WEBHOOKS.md example', () => {
    const secret = generateWebhookSecret();
    const { body, headers } = buildSignedDelivery({
      deliveryId: 'msg_1',
      event: 'transaction.blocked',
      payload,
      secrets: { secret, previousSecret: null },
      attemptAt: new Date(),
    });
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
    assert.equal(verifyStandardWebhook(body, headers, secret), true);
    assert.equal(verifyVaultkeeperSignature(body, headers, secret), true);
    const other = generateWebhookSecret();
    assert.throws(() => new Webhook(other).verify(body, headers));
    assert.equal(verifyStandardWebhook(body, headers, other), false);
    assert.equal(verifyVaultkeeperSignature(body, headers, other), false);
    assert.equal(
      verifyVaultkeeperSignature(body.replace('1500000000', '2500000000'), headers, secret),
      false,
    );
  });

  it('signs with both secrets during a rotation, each verifying on its own', () => {
    const oldSecret = generateWebhookSecret();
    const newSecret = generateWebhookSecret();
    const { body, headers } = buildSignedDelivery({
      deliveryId: 'msg_2',
      event: 'vault.paused',
      payload,
      secrets: { secret: newSecret, previousSecret: oldSecret },
      attemptAt: new Date(),
    });
    assert.equal(headers['webhook-signature']!.split(' ').length, 2);
    assert.doesNotThrow(() => new Webhook(oldSecret).verify(body, headers));
    assert.doesNotThrow(() => new Webhook(newSecret).verify(body, headers));
  });

  it('matches the Standard Webhooks reference vector', () => {
    // From the Standard Webhooks specification's test suite.
    const signature = signStandard(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    assert.equal(signature, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('drops the previous secret when its overlap ends', () => {
    const now = new Date('2026-11-22T00:00:00.000Z');
    assert.equal(activePreviousSecret('whsec_a', new Date(now.getTime() + 1), now), 'whsec_a');
    assert.equal(activePreviousSecret('whsec_a', now, now), null);
    assert.equal(activePreviousSecret(null, null, now), null);
  });

  it('is the example docs/WEBHOOKS.md quotes, verbatim', () => {
    const example = readFileSync(
      new URL('../../../docs/examples/verify-webhook.mjs', import.meta.url),
      'utf8',
    );
    const guide = readFileSync(new URL('../../../docs/WEBHOOKS.md', import.meta.url), 'utf8');
    assert.ok(
      guide.includes(`\`\`\`js\n${example.trimEnd()}\n\`\`\``),
      'docs/WEBHOOKS.md quotes an outdated receiver example',
    );
  });
});
