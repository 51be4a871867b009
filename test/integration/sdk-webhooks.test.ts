// @vaultkeeper/webhooks against real deliveries of the worker: every one verifies, under both schemes and
// through the example receiver; tampered, stale, wrong-secret and incomplete ones are refused.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import {
  verifyWebhook,
  WebhookVerificationError,
  type WebhookVerificationErrorCode,
} from '@vaultkeeper/webhooks';
import type { ReceivedRequest } from '../../dev/support/webhook-receiver.js';
import { createReceiver } from '../../docs/examples/receive-webhook.mjs';
import { generateWebhookSecret } from '../../src/domain/webhooks/signatures.js';
import { waitFor } from '../support/wait.js';
import { useWebhookFixtures } from '../support/webhooks.js';

const fixtures = useWebhookFixtures();
const { onCleanup, receiver, startWorker, subscribe, emit, settled } = fixtures;

const headersOf = (request: ReceivedRequest) => request.headers as Record<string, string>;

async function refusal(promise: Promise<unknown>): Promise<WebhookVerificationErrorCode> {
  const error = await promise.then(
    () => assert.fail('the delivery was accepted'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof WebhookVerificationError, String(error));
  return error.code;
}

/** Real deliveries of several events to one subscription, as the receiver got them. */
async function deliver(options: Parameters<typeof subscribe>[1] = {}) {
  const target = await receiver();
  const sub = await subscribe(target.url, options);
  startWorker();
  await emit(sub, 'transaction.blocked');
  await emit(sub, 'vault.paused', { vault: sub.vault.address });
  await emit(sub, 'policy.updated', {
    vault: sub.vault.address,
    dailyLimit: '5',
    whitelistCount: 0,
    agentSigner: sub.vault.authority,
  });
  const rows = await settled(3);
  // Delivery is at least once: an attempt whose answer came after the worker's timeout (a loaded
  // machine) is sent again with the same id, so the receiver may hold more requests than deliveries.
  // Each delivery arrived; the last request of each is the one verified below.
  const byId = new Map<string, ReceivedRequest>();
  for (const request of target.requests) byId.set(headersOf(request)['webhook-id']!, request);
  assert.deepEqual([...byId.keys()].sort(), rows.map((r) => r.id).sort());
  return { sub, rows, requests: [...byId.values()] };
}

describe('verifyWebhook on real deliveries', () => {
  test('accepts every delivery under both schemes and returns its typed event', async () => {
    const { sub, rows, requests } = await deliver();
    for (const request of requests) {
      const headers = headersOf(request);
      const event = await verifyWebhook({ secret: sub.secret, rawBody: request.body, headers });
      const row = rows.find((r) => r.id === event.id);
      assert.ok(row, `delivery ${event.id} exists`);
      assert.equal(event.event, row.event);
      assert.deepEqual(event.data, JSON.parse(request.body).data);
      if (event.event === 'policy.updated') assert.equal(event.data.dailyLimit, '5');
      for (const scheme of ['standard', 'vaultkeeper'] as const) {
        const again = await verifyWebhook({ secret: sub.secret, rawBody: request.body, headers, scheme });
        assert.equal(again.id, event.id);
      }
      // Bytes and Fetch Headers, as a fetch-style runtime hands them over.
      const bytes = new TextEncoder().encode(request.body);
      const viaFetch = await verifyWebhook({
        secret: sub.secret,
        rawBody: bytes,
        headers: new Headers(headers),
      });
      assert.equal(viaFetch.id, event.id);
    }
  });

  test('refuses tampered bodies, ids and timestamps, and wrong secrets', async () => {
    const { sub, requests } = await deliver();
    const request = requests[0]!;
    const headers = headersOf(request);
    const tampered = request.body.replace('"amount":"1500000000"', '"amount":"9500000000"');
    assert.notEqual(tampered, request.body);
    for (const scheme of ['standard', 'vaultkeeper'] as const) {
      assert.equal(
        await refusal(verifyWebhook({ secret: sub.secret, rawBody: tampered, headers, scheme })),
        'bad_signature',
      );
      assert.equal(
        await refusal(
          verifyWebhook({ secret: generateWebhookSecret(), rawBody: request.body, headers, scheme }),
        ),
        'bad_signature',
      );
    }
    const otherId = { ...headers, 'webhook-id': requests[1]!.headers['webhook-id'] as string };
    assert.equal(
      await refusal(verifyWebhook({ secret: sub.secret, rawBody: request.body, headers: otherId })),
      'bad_signature',
    );
    const moved = { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) };
    assert.equal(
      await refusal(verifyWebhook({ secret: sub.secret, rawBody: request.body, headers: moved })),
      'bad_signature',
    );
    // The signature of another delivery does not carry over.
    const swapped = { ...headers, 'webhook-signature': requests[1]!.headers['webhook-signature'] as string };
    assert.equal(
      await refusal(verifyWebhook({ secret: sub.secret, rawBody: request.body, headers: swapped })),
      'bad_signature',
    );
  });

  test('refuses stale deliveries outside the tolerance, either way in time', async () => {
    const { sub, requests } = await deliver();
    const request = requests[0]!;
    const headers = headersOf(request);
    const sentAt = Number(headers['webhook-timestamp']) * 1000;
    const verifyAt = (offsetMs: number, toleranceSeconds?: number) =>
      verifyWebhook({
        secret: sub.secret,
        rawBody: request.body,
        headers,
        now: new Date(sentAt + offsetMs),
        ...(toleranceSeconds === undefined ? {} : { toleranceSeconds }),
      });
    assert.equal((await verifyAt(299_000)).id, headers['webhook-id']);
    assert.equal(await refusal(verifyAt(301_000)), 'stale');
    assert.equal(await refusal(verifyAt(-301_000)), 'stale');
    assert.equal(await refusal(verifyAt(61_000, 60)), 'stale');
    assert.equal((await verifyAt(3_000_000, 3600)).id, headers['webhook-id']);
  });

  test('during a rotation either secret verifies the Standard signature; the hex one only the new', async () => {
    const oldSecret = generateWebhookSecret();
    const { sub, requests } = await deliver({
      previousSecret: oldSecret,
      previousSecretExpiresAt: new Date(Date.now() + 3600_000),
    });
    const request = requests[0]!;
    const headers = headersOf(request);
    const rawBody = request.body;
    for (const secrets of [[oldSecret], [sub.secret], [generateWebhookSecret(), oldSecret]]) {
      assert.equal((await verifyWebhook({ secrets, rawBody, headers })).id, headers['webhook-id']);
    }
    assert.equal(
      await refusal(verifyWebhook({ secret: oldSecret, rawBody, headers, scheme: 'vaultkeeper' })),
      'bad_signature',
    );
    const event = await verifyWebhook({
      secrets: [oldSecret, sub.secret],
      rawBody,
      headers,
      scheme: 'vaultkeeper',
    });
    assert.equal(event.id, headers['webhook-id']);
  });

  test('refuses missing headers and malformed input with their own codes', async () => {
    const { sub, requests } = await deliver();
    const request = requests[0]!;
    const headers = headersOf(request);
    const rawBody = request.body;
    const without = (name: string) => Object.fromEntries(Object.entries(headers).filter(([k]) => k !== name));
    const secret = sub.secret;
    assert.equal(
      await refusal(verifyWebhook({ secret, rawBody, headers: without('webhook-signature') })),
      'missing_headers',
    );
    assert.equal(await refusal(verifyWebhook({ secret, rawBody, headers: {} })), 'missing_headers');
    assert.equal(
      await refusal(verifyWebhook({ secret, rawBody, headers: without('webhook-id'), scheme: 'standard' })),
      'missing_headers',
    );
    assert.equal(
      await refusal(
        verifyWebhook({
          secret,
          rawBody,
          headers: without('x-vaultkeeper-signature'),
          scheme: 'vaultkeeper',
        }),
      ),
      'missing_headers',
    );
    assert.equal(
      await refusal(verifyWebhook({ secret, rawBody, headers: { ...headers, 'webhook-timestamp': 'soon' } })),
      'malformed',
    );
    assert.equal(
      await refusal(
        verifyWebhook({ secret, rawBody, headers: { ...headers, 'webhook-signature': 'v2,abc' } }),
      ),
      'malformed',
    );
    assert.equal(
      await refusal(
        verifyWebhook({ secret, rawBody: rawBody.slice(0, -20), headers, scheme: 'vaultkeeper' }),
      ),
      'malformed',
    );
    await assert.rejects(verifyWebhook({ secrets: [], rawBody, headers }), TypeError);
  });
});

describe('the receiver example (docs/examples/receive-webhook.mjs)', () => {
  test('accepts real deliveries and answers 401 with the reason to a receiver with the wrong secret', async () => {
    const secret = generateWebhookSecret();
    const received: string[] = [];
    const server = createReceiver([secret], (event) => received.push(`${event.event} ${event.id}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onCleanup(() => new Promise((resolve) => server.close(resolve)));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    const sub = await subscribe(url, { secret });
    startWorker();
    await emit(sub, 'vault.paused', { vault: sub.vault.address });
    const [delivery] = await settled(1);
    assert.deepEqual(received, [`vault.paused ${delivery!.id}`]);

    const wrong = createReceiver([generateWebhookSecret()], () => assert.fail('accepted a forged delivery'));
    await new Promise<void>((resolve) => wrong.listen(0, '127.0.0.1', resolve));
    onCleanup(() => new Promise((resolve) => wrong.close(resolve)));
    const other = await subscribe(`http://127.0.0.1:${(wrong.address() as AddressInfo).port}/hooks`);
    await emit(other, 'vault.paused', { vault: other.vault.address });
    const attempt = await waitFor(
      async () => {
        const pending = (await fixtures.deliveries()).find((d) => d.webhookId === other.webhook.id);
        return pending === undefined ? null : ((await fixtures.attemptsOf(pending.id))[0] ?? null);
      },
      { message: 'the forged-looking delivery was attempted' },
    );
    assert.deepEqual([attempt.statusCode, attempt.responseBody], [401, 'bad_signature']);
  });
});
