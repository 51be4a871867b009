// Webhook security: confirmed e-mail recipients, the per-owner cap under concurrency, the caps for
// wallets without a vault, and secrets sealed at rest with key rotation.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import { enqueueWebhookEvent } from '../../src/domain/webhooks/outbox.js';
import { keyId } from '../../src/domain/webhooks/secret-box.js';
import { WEBHOOK_LIMITS } from '../../src/domain/webhooks/subscription-caps.js';
import { MAX_WEBHOOKS_PER_OWNER } from '../../src/domain/webhooks/webhook-service.js';
import { deleteOldWebhookConfirmations } from '../../src/jobs/cache-cleanup.js';
import { webhookConfirmations, webhooks } from '../../src/storage/schema/index.js';
import { createVault } from '../support/factories.js';
import { createSmtpSink, type ReceivedMail, type SmtpSink } from '../support/smtp-sink.js';
import { waitFor } from '../support/wait.js';
import { useWebhookFixtures } from '../support/webhooks.js';

const KEY_1 = Buffer.alloc(32, 1).toString('base64');
const KEY_2 = Buffer.alloc(32, 2).toString('base64');
const BASE = 'https://vk.example.com';
/** The Domain line of signed messages: PUBLIC_BASE_URL's host. */
const DOMAIN = new URL(BASE).host;

let sink: SmtpSink;
let app: FastifyInstance;
const fixtures = useWebhookFixtures();
const { db, receiver, startWorker, subscribe, emit, settled } = fixtures;

before(async () => {
  sink = await createSmtpSink();
});
// The file's one app, built before the first test: top-level before hooks run side by side, and this
// one needs the database that useWebhookFixtures opens.
beforeEach(async () => {
  sink.messages.length = 0;
  if (app !== undefined) return;
  const env = {
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    SMTP_URL: sink.url,
    PUBLIC_BASE_URL: BASE,
    RATE_LIMIT_ENABLED: 'false',
    WEBHOOK_SECRETS_KEY: KEY_1,
  };
  app = (await fixtures.apps.startForFile({ env })).app;
});
after(async () => {
  await sink.close();
});

async function call(method: string, url: string, wallet: TestWallet | null, body?: unknown) {
  const response = await app.inject({
    method: method as 'POST',
    url,
    headers:
      wallet === null ? {} : wallet.authHeaders({ request: { method, path: url, body, domain: DOMAIN } }),
    ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
  });
  return {
    status: response.statusCode,
    body: response.body,
    headers: response.headers,
    json: () => response.json(),
  };
}

const createMailto = (wallet: TestWallet, address: string) =>
  call('POST', '/api/webhooks', wallet, { url: `mailto:${address}`, events: ['vault.paused'] });

function confirmationLink(mail: ReceivedMail): string {
  const link = new RegExp(`${BASE}/webhooks/confirm/[A-Za-z0-9_-]+`).exec(mail.text)?.[0];
  assert.ok(link, mail.text);
  return link.slice(BASE.length);
}

describe('mailto: confirmation', () => {
  test('a new address gets one confirmation mail; GET shows a button and confirms nothing, POST confirms once', async () => {
    const owner = createTestWallet();
    const created = await createMailto(owner, 'Reader@example.net');
    assert.equal(created.status, 201, created.body);
    const hook = created.json();
    assert.equal(hook.verified, false);
    await waitFor(() => sink.messages.length === 1);
    const [mail] = sink.messages;
    assert.deepEqual(mail!.to, ['Reader@example.net']);
    assert.equal(mail!.subject, '[Vaultkeeper] Confirm e-mail notifications');
    // Nothing the subscriber chose, not even their wallet, appears in it.
    assert.ok(!mail!.raw.includes(owner.address));
    const path = confirmationLink(mail!);
    const [row] = await db().select().from(webhookConfirmations);
    assert.ok(!path.includes(row!.tokenHash) && row!.tokenHash.length === 64, 'the token is stored hashed');
    assert.ok(row!.expiresAt.getTime() - row!.createdAt.getTime() === 24 * 3600_000);

    // Nothing is sent before confirmation: no test event, no event deliveries.
    const test409 = await call('POST', `/api/webhooks/${hook.id}/test`, owner);
    assert.equal(test409.status, 409);
    assert.equal(test409.json().code, 'WEBHOOK_NOT_VERIFIED');
    const vault = await createVault(db(), { authority: owner.address });
    const enqueue = () =>
      enqueueWebhookEvent(db(), {
        event: 'vault.paused',
        vaultId: vault.id,
        authority: owner.address,
        timestamp: new Date().toISOString(),
        data: { vault: vault.address },
        dedupeKey: randomUUID(),
      });
    assert.equal(await enqueue(), 0);

    for (let i = 0; i < 2; i += 1) {
      const page = await call('GET', path, null);
      assert.equal(page.status, 200);
      assert.match(String(page.headers['content-type']), /text\/html/);
      assert.match(page.body, /<form method="post"><button type="submit">Confirm<\/button><\/form>/);
      assert.match(String(page.headers['content-security-policy']), /form-action 'self'/);
    }
    assert.equal((await call('GET', `/api/webhooks/${hook.id}`, owner)).json().verified, false);

    const confirm = await app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    assert.equal(confirm.statusCode, 200, confirm.body);
    assert.equal((await call('GET', `/api/webhooks/${hook.id}`, owner)).json().verified, true);
    assert.equal((await call('POST', path, null)).status, 404, 'a link works once');
    const used = await call('GET', path, null);
    assert.equal(used.status, 404);
    assert.equal(used.json().details.reason, 'confirmation_unusable');
    assert.equal((await call('POST', `/api/webhooks/${hook.id}/test`, owner)).status, 202);
    assert.equal(await enqueue(), 1);
    assert.equal(sink.messages.length, 1, 'one confirmation mail only');
  });

  test('an https subscription is verified; changing it to an address asks that address again', async () => {
    const owner = createTestWallet();
    const created = await call('POST', '/api/webhooks', owner, {
      url: 'https://hooks.example.com/vk',
      events: ['vault.paused'],
    });
    assert.equal(created.json().verified, true);
    const changed = await call('PATCH', `/api/webhooks/${created.json().id}`, owner, {
      url: 'mailto:someone@example.net',
    });
    assert.equal(changed.status, 200);
    assert.equal(changed.json().verified, false);
    await waitFor(() => sink.messages.length === 1);
    assert.equal((await call('POST', `/api/webhooks/${created.json().id}/test`, owner)).status, 409);
  });

  test('at most 3 confirmation mails per address a day, whoever asks; the 4th create is refused', async () => {
    for (let i = 0; i < 3; i += 1) {
      assert.equal((await createMailto(createTestWallet(), 'victim@example.net')).status, 201);
    }
    const owner = createTestWallet();
    const fourth = await createMailto(owner, 'VICTIM@example.net');
    assert.equal(fourth.status, 429, fourth.body);
    assert.equal(fourth.json().code, 'RATE_LIMIT_EXCEEDED');
    assert.equal((await call('GET', '/api/webhooks', owner)).json().webhooks.length, 0);
    // Deleting a subscription does not reset the count.
    const deleter = createTestWallet();
    await waitFor(() => sink.messages.length === 3);
    assert.equal((await createMailto(deleter, 'other@example.net')).status, 201);
    assert.equal((await createMailto(deleter, 'victim@example.net')).status, 429);
    await waitFor(() => sink.messages.length === 4);
    assert.equal(sink.messages.filter((m) => m.to[0]!.toLowerCase() === 'victim@example.net').length, 3);
  });
  test('confirmations older than two days are deleted by the cleanup job; newer ones are kept', async () => {
    const now = new Date();
    const row = (ageHours: number, n: number) => ({
      tokenHash: `${ageHours}-${n}`.padEnd(64, '0'),
      address: 'old@example.net',
      createdAt: new Date(now.getTime() - ageHours * 3600_000),
      expiresAt: new Date(now.getTime() - ageHours * 3600_000 + 24 * 3600_000),
    });
    await db()
      .insert(webhookConfirmations)
      .values([row(49, 1), row(49, 2), row(30, 1)]);
    assert.equal(await deleteOldWebhookConfirmations(db(), now), 2);
    assert.equal((await db().select().from(webhookConfirmations)).length, 1);
  });
});

describe('per-owner cap', () => {
  test(`${MAX_WEBHOOKS_PER_OWNER + 30} concurrent creates store exactly ${MAX_WEBHOOKS_PER_OWNER}`, {
    timeout: 120_000,
  }, async () => {
    const owner = createTestWallet();
    await createVault(db(), { authority: owner.address });
    const results = await Promise.all(
      Array.from({ length: MAX_WEBHOOKS_PER_OWNER + 30 }, (_, i) =>
        call('POST', '/api/webhooks', owner, {
          url: `https://hooks.example.com/${i}`,
          events: ['vault.paused'],
        }),
      ),
    );
    const stored = await db()
      .select({ id: webhooks.id })
      .from(webhooks)
      .where(eq(webhooks.owner, owner.address));
    assert.equal(stored.length, MAX_WEBHOOKS_PER_OWNER);
    assert.equal(results.filter((r) => r.status === 201).length, MAX_WEBHOOKS_PER_OWNER);
    assert.equal(results.filter((r) => r.status === 409).length, 30);
    assert.deepEqual(JSON.parse(results.find((r) => r.status === 409)!.body).details, {
      scope: 'wallet',
      limit: MAX_WEBHOOKS_PER_OWNER,
    });
  });
});

describe('caps for wallets without a vault, per client address and overall', () => {
  const create = (wallet: TestWallet, remoteAddress = '127.0.0.1', body: Record<string, unknown> = {}) => {
    const payload = { url: 'https://hooks.example.com/vk', events: ['vault.created'], ...body };
    return app.inject({
      method: 'POST',
      url: '/api/webhooks',
      remoteAddress,
      headers: wallet.authHeaders({
        request: { method: 'POST', path: '/api/webhooks', body: payload, domain: DOMAIN },
      }),
      payload,
    });
  };
  const stored = async () => (await db().select({ id: webhooks.id }).from(webhooks)).length;
  const refusedWith = (response: Awaited<ReturnType<typeof create>>, scope: string, limit: number) => {
    assert.equal(response.statusCode, 409, response.body);
    const body = response.json();
    assert.equal(body.code, 'WEBHOOK_LIMIT_REACHED');
    assert.deepEqual(body.details, { scope, limit });
    assert.ok(body.error.length > 20, body.error);
  };

  test(`a wallet without a vault holds ${WEBHOOK_LIMITS.perWalletWithoutVault}, and no vault it does not own; once it owns one, ${WEBHOOK_LIMITS.perOwner}`, async () => {
    const wallet = createTestWallet();
    for (let i = 0; i < WEBHOOK_LIMITS.perWalletWithoutVault; i += 1) {
      assert.equal((await create(wallet)).statusCode, 201);
    }
    refusedWith(await create(wallet), 'wallet', WEBHOOK_LIMITS.perWalletWithoutVault);
    const someoneElses = await createVault(db());
    assert.equal((await create(wallet, '127.0.0.1', { vault: someoneElses.address })).statusCode, 403);
    assert.equal(await stored(), WEBHOOK_LIMITS.perWalletWithoutVault);
    await createVault(db(), { authority: wallet.address });
    assert.equal((await create(wallet)).statusCode, 201);
  });

  test(`one client address creates ${WEBHOOK_LIMITS.perClientWithoutVault} for wallets without a vault; others and owners are not affected`, async () => {
    const wallets = Array.from({ length: 4 }, () => createTestWallet());
    let created = 0;
    for (const wallet of wallets) {
      for (let i = 0; i < WEBHOOK_LIMITS.perWalletWithoutVault; i += 1) {
        const response = await create(wallet, '198.51.100.7');
        if (created < WEBHOOK_LIMITS.perClientWithoutVault) {
          assert.equal(response.statusCode, 201, response.body);
          created += 1;
        } else refusedWith(response, 'client', WEBHOOK_LIMITS.perClientWithoutVault);
      }
    }
    assert.equal(await stored(), WEBHOOK_LIMITS.perClientWithoutVault);
    // Stored as a hash, never the address.
    const [row] = await db().select({ createdFrom: webhooks.createdFrom }).from(webhooks).limit(1);
    assert.equal(row!.createdFrom, createHash('sha256').update('198.51.100.7').digest('hex'));
    assert.equal((await create(createTestWallet(), '198.51.100.8')).statusCode, 201);
    const owner = createTestWallet();
    await createVault(db(), { authority: owner.address });
    assert.equal((await create(owner, '198.51.100.7')).statusCode, 201);
  });

  test(`the service holds ${WEBHOOK_LIMITS.allWithoutVault} of wallets without a vault and ${WEBHOOK_LIMITS.all} in all`, {
    timeout: 120_000,
  }, async () => {
    const fill = (count: number) =>
      fixtures.apps.storage.rows(sql`
        insert into webhooks (owner, url, events, secret)
        select 'filler' || n, 'https://hooks.example.com/f', array['vault.created'], 'whsec_x'
        from generate_series(1, ${count}::int) as n`);
    await fill(WEBHOOK_LIMITS.allWithoutVault);
    refusedWith(await create(createTestWallet()), 'service', WEBHOOK_LIMITS.allWithoutVault);
    const owner = createTestWallet();
    await createVault(db(), { authority: owner.address });
    assert.equal((await create(owner)).statusCode, 201);
    await fill(WEBHOOK_LIMITS.all - WEBHOOK_LIMITS.allWithoutVault - 1);
    refusedWith(await create(owner), 'service', WEBHOOK_LIMITS.all);
    assert.equal(await stored(), WEBHOOK_LIMITS.all);
  });
});

describe('secrets at rest', () => {
  test('the stored secret is sealed, deliveries still verify, and a key rotation keeps old rows readable', async () => {
    const target = await receiver();
    const owner = createTestWallet();
    const vault = await createVault(db(), { authority: owner.address });
    const created = (
      await call('POST', '/api/webhooks', owner, {
        url: target.url,
        events: ['vault.paused'],
        vault: vault.address,
      })
    ).json();
    const [row] = await db().select().from(webhooks).where(eq(webhooks.id, created.id));
    assert.match(row!.secret, new RegExp(`^enc:v1:${keyId(Buffer.from(KEY_1, 'base64'))}:`));
    assert.ok(!row!.secret.includes(created.secret) && !row!.secret.includes(created.secret.slice(6)));

    // Rotation: the worker runs with a new key and the old one as previous; it re-seals at start.
    startWorker({ WEBHOOK_SECRETS_KEY: KEY_2, WEBHOOK_SECRETS_KEY_PREVIOUS: KEY_1 });
    const sub = { webhook: row!, vault: { ...vault, authority: owner.address }, secret: created.secret };
    await waitFor(async () => {
      const [current] = await db().select().from(webhooks).where(eq(webhooks.id, created.id));
      return current!.secret.startsWith(`enc:v1:${keyId(Buffer.from(KEY_2, 'base64'))}:`);
    });
    await emit(sub, 'vault.paused', { vault: vault.address });
    await settled(1);
    const request = target.requests[0]!;
    assert.doesNotThrow(() =>
      new StandardWebhook(created.secret).verify(request.body, request.headers as Record<string, string>),
    );
  });

  test('plaintext rows from before a key was set keep delivering and are sealed by the worker', async () => {
    const target = await receiver();
    const sub = await subscribe(target.url);
    assert.match(sub.webhook.secret, /^whsec_/);
    startWorker({ WEBHOOK_SECRETS_KEY: KEY_1 });
    await waitFor(async () => (await fixtures.webhookRow(sub.webhook.id)).secret.startsWith('enc:v1:'));
    await emit(sub);
    await settled(1);
    const request = target.requests[0]!;
    assert.doesNotThrow(() =>
      new StandardWebhook(sub.secret).verify(request.body, request.headers as Record<string, string>),
    );
  });
});
