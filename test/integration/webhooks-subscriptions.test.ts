// The subscription API: ownership on every route, URL rules, secrets shown once, rotation,
// changes and deletion; and the outbox that turns an event into one delivery per subscription.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { enqueueWebhookEvent } from '../../src/domain/webhooks/outbox.js';
import { WEBHOOK_EVENTS } from '../../src/domain/webhooks/webhook-events.js';
import { webhookDeliveries, webhooks } from '../../src/storage/schema/index.js';
import { createVault, randomAddress } from '../support/factories.js';
import { type JsonBody, useWebhookApi } from '../support/webhooks-api.js';

const api = useWebhookApi();

describe('POST /api/webhooks', () => {
  test('subscribes to an owned vault and shows the secret only in the answer', async () => {
    const vault = await createVault(api.storage.storage.db, { authority: api.owner.address });
    const created = await api.call('POST', '/api/webhooks', api.owner, {
      url: 'https://hooks.example.com/vk',
      events: ['transaction.blocked', 'vault.paused'],
      vault: vault.address,
    });
    assert.equal(created.status, 201);
    assert.equal(created.headers['cache-control'], 'no-store');
    const body = created.body!;
    assert.deepEqual(
      { url: body.url, events: body.events, vault: body.vault, active: body.active },
      {
        url: 'https://hooks.example.com/vk',
        events: ['transaction.blocked', 'vault.paused'],
        vault: vault.address,
        active: true,
      },
    );
    assert.match(body.id, /^[0-9a-f-]{36}$/);
    assert.match(body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.match(body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const read = await api.call('GET', `/api/webhooks/${body.id}`, api.owner);
    assert.equal(read.status, 200);
    assert.equal(read.body!.secret, undefined);
    const listed = await api.call('GET', '/api/webhooks', api.owner);
    assert.equal(listed.body!.webhooks[0].secret, undefined);
    assert.ok(!api.logs.lines.some((line) => line.includes(body.secret)), 'the secret reached a log line');
  });

  test('without a vault covers every vault of the signer', async () => {
    const created = await api.subscribe(api.owner);
    assert.equal(created.vault, null);
  });

  test('refuses a vault the signer does not own, and an unknown vault', async () => {
    const vault = await createVault(api.storage.storage.db, { authority: api.owner.address });
    const forbidden = await api.call('POST', '/api/webhooks', api.stranger, {
      url: 'https://hooks.example.com/',
      events: ['transaction.blocked'],
      vault: vault.address,
    });
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.body!.code, 'FORBIDDEN');
    const unknown = await api.call('POST', '/api/webhooks', api.owner, {
      url: 'https://hooks.example.com/',
      events: ['transaction.blocked'],
      vault: randomAddress(),
    });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body!.code, 'VAULT_NOT_FOUND');
  });

  test('needs wallet authentication', async () => {
    const response = await api.call('POST', '/api/webhooks', null, {
      url: 'https://a.example.com',
      events: ['vault.paused'],
    });
    assert.equal(response.status, 401);
    assert.equal(response.body!.code, 'UNAUTHORIZED');
    assert.match(response.body!.error, /API key \(Authorization: Bearer vk_…\) or a wallet signature/);
  });

  test('rejects empty, unknown or repeated events and unknown fields', async () => {
    for (const body of [
      { url: 'https://a.example.com', events: [] },
      { url: 'https://a.example.com', events: ['vault.exploded'] },
      { url: 'https://a.example.com', events: ['vault.paused', 'vault.paused'] },
      { url: 'https://a.example.com', events: ['vault.paused'], secret: 'mine' },
      { events: ['vault.paused'] },
    ]) {
      const response = await api.call('POST', '/api/webhooks', api.owner, body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.equal(response.body!.code, 'VALIDATION_ERROR');
      assert.ok(response.body!.details.issues.length > 0);
    }
  });

  test('an unknown event is refused naming every event a subscription can ask for', async () => {
    const response = await api.call('POST', '/api/webhooks', api.owner, {
      url: 'https://a.example.com',
      events: ['vault.paused', 'vault.exploded'],
    });
    assert.equal(response.status, 400);
    const expected = `must be one of ${WEBHOOK_EVENTS.join(', ')}`;
    assert.equal(response.body!.error, `events.1: ${expected}`);
    assert.deepEqual(response.body!.details.issues, [{ path: 'body.events.1', message: expected }]);
    assert.ok(WEBHOOK_EVENTS.includes('transaction.executed') && WEBHOOK_EVENTS.length > 5);
  });

  test('accepts only https public URLs unless private URLs are allowed, and mailto only with SMTP', async () => {
    const cases: [string, string][] = [
      ['http://hooks.example.com/', 'https'],
      ['https://127.0.0.1/', 'loopback'],
      ['https://169.254.169.254/latest', 'metadata'],
      ['https://user:pass@hooks.example.com/', 'credentials'],
      ['mailto:owner@example.com', 'SMTP_URL'],
      ['https://localhost./', 'dot'],
      ['https://metadata.google.internal./', 'dot'],
      ['https://localhost.localdomain/', 'public host'],
      ['https://app.localhost/', 'public host'],
    ];
    for (const [url, reason] of cases) {
      const response = await api.call(
        'POST',
        '/api/webhooks',
        api.owner,
        { url, events: ['vault.paused'] },
        api.strictApp,
      );
      assert.equal(response.status, 400, url);
      assert.equal(response.body!.details.issues[0].path, 'body.url');
      assert.match(response.body!.details.issues[0].message, new RegExp(reason), url);
    }
    assert.equal(
      (await api.subscribe(api.owner, { url: 'http://127.0.0.1:9/h' })).url,
      'http://127.0.0.1:9/h',
    );
    assert.equal(
      (await api.subscribe(api.owner, { url: 'mailto:owner@example.com' })).url,
      'mailto:owner@example.com',
    );
  });
});

describe('subscription routes', () => {
  test('lists only the signer’s subscriptions, newest first, paginated', async () => {
    const first = await api.subscribe(api.owner);
    const second = await api.subscribe(api.owner, { events: ['vault.paused'] });
    await api.subscribe(api.stranger);
    const page1 = await api.call('GET', '/api/webhooks?limit=1', api.owner);
    assert.equal(page1.status, 200);
    assert.deepEqual(page1.body!.pagination, { page: 1, limit: 1, total: 2, pages: 2 });
    const page2 = await api.call('GET', '/api/webhooks?limit=1&page=2', api.owner);
    const ids = [page1.body!.webhooks[0].id, page2.body!.webhooks[0].id];
    assert.deepEqual(new Set(ids), new Set([first.id, second.id]));
    assert.equal((await api.call('GET', '/api/webhooks?limit=101', api.owner)).status, 400);
  });

  test('every route of a subscription is for its api.owner only', async () => {
    const hook = await api.subscribe(api.owner);
    const [delivery] = await api.storage.storage.db
      .insert(webhookDeliveries)
      .values({
        webhookId: hook.id,
        event: 'vault.paused',
        payload: '{"id":"x","event":"vault.paused","timestamp":"2026-11-22T00:00:00.000Z","data":{}}',
      })
      .returning();
    const routes: [string, string][] = [
      ['GET', `/api/webhooks/${hook.id}`],
      ['PATCH', `/api/webhooks/${hook.id}`],
      ['DELETE', `/api/webhooks/${hook.id}`],
      ['POST', `/api/webhooks/${hook.id}/rotate-secret`],
      ['POST', `/api/webhooks/${hook.id}/test`],
      ['GET', `/api/webhooks/${hook.id}/deliveries`],
      ['POST', `/api/webhooks/${hook.id}/deliveries/${delivery!.id}/retry`],
    ];
    for (const [method, url] of routes) {
      const body = method === 'PATCH' ? { active: false } : undefined;
      const unauthenticated = await api.call(method, url, null, body);
      assert.equal(unauthenticated.status, 401, `${method} ${url}`);
      const forbidden = await api.call(method, url, api.stranger, body);
      assert.equal(forbidden.status, 403, `${method} ${url}`);
      assert.equal(forbidden.body!.code, 'FORBIDDEN');
      const unknown = await api.call(
        method,
        url.replace(hook.id, '00000000-0000-4000-8000-000000000000'),
        api.owner,
        body,
      );
      assert.equal(unknown.status, 404, `${method} ${url}`);
      assert.equal(unknown.body!.code, 'WEBHOOK_NOT_FOUND');
    }
    const [row] = await api.storage.storage.db.select().from(webhooks).where(eq(webhooks.id, hook.id));
    assert.equal(row!.active, true, 'a refused request changed the subscription');
    const missing = await api.call(
      'POST',
      `/api/webhooks/${hook.id}/deliveries/00000000-0000-4000-8000-000000000000/retry`,
      api.owner,
    );
    assert.equal(missing.status, 404);
    assert.equal(missing.body!.code, 'DELIVERY_NOT_FOUND');
    assert.equal((await api.call('GET', '/api/webhooks/not-a-uuid', api.owner)).status, 400);
  });

  test('rotating the secret answers a new one and keeps the old one for 24 hours', async () => {
    const hook = await api.subscribe(api.owner);
    const before = Date.now();
    const rotated = await api.call('POST', `/api/webhooks/${hook.id}/rotate-secret`, api.owner);
    assert.equal(rotated.status, 200);
    assert.match(rotated.body!.secret, /^whsec_/);
    assert.notEqual(rotated.body!.secret, hook.secret);
    const [row] = await api.storage.storage.db.select().from(webhooks).where(eq(webhooks.id, hook.id));
    assert.equal(row!.secret, rotated.body!.secret);
    assert.equal(row!.previousSecret, hook.secret);
    const overlap = row!.previousSecretExpiresAt!.getTime() - before;
    assert.ok(overlap > 23.9 * 3600_000 && overlap <= 24 * 3600_000 + 60_000, String(overlap));
    assert.ok(!api.logs.lines.some((line) => line.includes(rotated.body!.secret)));
  });

  test('PATCH validates like creation and needs at least one field', async () => {
    const hook = await api.subscribe(api.owner);
    assert.equal((await api.call('PATCH', `/api/webhooks/${hook.id}`, api.owner, {})).status, 400);
    assert.equal(
      (await api.call('PATCH', `/api/webhooks/${hook.id}`, api.owner, { url: 'ftp://x.example.com' })).status,
      400,
    );
    const changed = await api.call('PATCH', `/api/webhooks/${hook.id}`, api.owner, {
      events: ['vault.resumed'],
      url: 'https://new.example.com/h',
    });
    assert.deepEqual(
      [changed.body!.events, changed.body!.url],
      [['vault.resumed'], 'https://new.example.com/h'],
    );
  });

  test('DELETE removes the subscription and its deliveries', async () => {
    const hook = await api.subscribe(api.owner);
    await api.call('POST', `/api/webhooks/${hook.id}/test`, api.owner);
    const deleted = await api.call('DELETE', `/api/webhooks/${hook.id}`, api.owner);
    assert.equal(deleted.status, 204);
    assert.equal((await api.call('GET', `/api/webhooks/${hook.id}`, api.owner)).status, 404);
    const left = await api.storage.storage.db.select().from(webhookDeliveries);
    assert.equal(left.length, 0);
  });
});

describe('outbox', () => {
  test('enqueues one delivery per matching active subscription, once per cause, with the exact payload text', async () => {
    const db = api.storage.storage.db;
    const vault = await createVault(db, { authority: api.owner.address });
    const laterVault = await createVault(db, { authority: api.owner.address });
    const otherVault = await createVault(db, { authority: api.stranger.address });
    const forVault = await api.subscribe(api.owner, { vault: vault.address });
    const forOwner = await api.subscribe(api.owner, { events: ['transaction.blocked', 'vault.paused'] });
    await api.subscribe(api.owner, { events: ['vault.paused'] });
    const inactive = await api.subscribe(api.owner);
    await api.call('PATCH', `/api/webhooks/${inactive.id}`, api.owner, { active: false });
    await api.subscribe(api.stranger);

    const event = {
      event: 'transaction.blocked' as const,
      vaultId: vault.id,
      authority: api.owner.address,
      timestamp: '2026-11-22T01:27:42.000Z',
      data: { vault: vault.address, amount: '1500000000', blockReason: 'not_whitelisted', note: 'é"\\' },
      dedupeKey: 'sig1:0:transaction.blocked',
    };
    assert.equal(await db.transaction((tx) => enqueueWebhookEvent(tx, event)), 2);
    assert.equal(
      await db.transaction((tx) => enqueueWebhookEvent(tx, event)),
      0,
      'a replayed cause enqueued again',
    );
    assert.equal(await enqueueWebhookEvent(db, { ...event, vaultId: laterVault.id, dedupeKey: 'sig2:0' }), 1);
    assert.equal(
      await enqueueWebhookEvent(db, {
        ...event,
        vaultId: otherVault.id,
        authority: api.stranger.address,
        dedupeKey: 'sig3:0',
      }),
      1,
    );

    const rows = await db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.dedupeKey, event.dedupeKey));
    assert.deepEqual(new Set(rows.map((r) => r.webhookId)), new Set([forVault.id, forOwner.id]));
    for (const row of rows) {
      const { id, event: name, timestamp, data } = event as JsonBody;
      void id;
      assert.equal(row.payload, JSON.stringify({ id: row.id, event: name, timestamp, data }));
    }
  });

  test('a rolled-back transaction enqueues nothing', async () => {
    const db = api.storage.storage.db;
    const vault = await createVault(db, { authority: api.owner.address });
    await api.subscribe(api.owner);
    await assert.rejects(
      db.transaction(async (tx) => {
        await enqueueWebhookEvent(tx, {
          event: 'transaction.blocked',
          vaultId: vault.id,
          authority: api.owner.address,
          timestamp: new Date().toISOString(),
          data: {},
          dedupeKey: 'rolled-back',
        });
        throw new Error('ingestion failed');
      }),
    );
    const [count] = await api.storage.storage.rows<{ n: number }>(
      sql`select count(*)::int as n from webhook_deliveries`,
    );
    assert.equal(count!.n, 0);
  });
});
