// A subscription's deliveries through the API (test event, history with attempts, manual retry),
// and the outbox the ingestor enqueues them through.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { enqueueWebhookEvent } from '../../src/domain/webhooks/outbox.js';
import { claimDueDeliveries } from '../../src/jobs/delivery.js';
import { webhookAttempts, webhookDeliveries, webhooks } from '../../src/storage/schema/index.js';
import { createVault } from '../support/factories.js';
import { type JsonBody, useWebhookApi } from '../support/webhooks-api.js';

const api = useWebhookApi();

describe('delivery routes', () => {
  test('the test endpoint enqueues a webhook.test delivery', async () => {
    const hook = await api.subscribe(api.owner);
    const sent = await api.call('POST', `/api/webhooks/${hook.id}/test`, api.owner);
    assert.equal(sent.status, 202);
    assert.equal(sent.body!.event, 'webhook.test');
    assert.equal(sent.body!.status, 'pending');
    assert.deepEqual(sent.body!.payload.data, {
      webhook: hook.id,
      vault: null,
      message: 'This is a test event from Vaultkeeper.',
    });
    assert.equal(sent.body!.payload.id, sent.body!.id);
    const listed = await api.call('GET', `/api/webhooks/${hook.id}/deliveries`, api.owner);
    assert.equal(listed.body!.deliveries[0].id, sent.body!.id);
  });

  test('lists deliveries newest first with their attempts, filtered by status', async () => {
    const hook = await api.subscribe(api.owner);
    const db = api.storage.storage.db;
    const payload = (id: string) =>
      JSON.stringify({
        id,
        event: 'vault.paused',
        timestamp: '2026-11-22T00:00:00.000Z',
        data: { vault: 'V' },
      });
    const [failed] = await db
      .insert(webhookDeliveries)
      .values({
        id: '00000000-0000-4000-8000-000000000001',
        webhookId: hook.id,
        event: 'vault.paused',
        payload: payload('00000000-0000-4000-8000-000000000001'),
        status: 'failed',
        attemptCount: 2,
        createdAt: new Date('2026-11-22T00:00:00.000Z'),
        lastError: 'status 500',
        lastStatusCode: 500,
      })
      .returning();
    await db.insert(webhookDeliveries).values({
      id: '00000000-0000-4000-8000-000000000002',
      webhookId: hook.id,
      event: 'vault.paused',
      payload: payload('00000000-0000-4000-8000-000000000002'),
      createdAt: new Date('2026-11-22T00:01:00.000Z'),
    });
    await db.insert(webhookAttempts).values([
      {
        deliveryId: failed!.id,
        attempt: 1,
        startedAt: new Date('2026-11-22T00:00:00.100Z'),
        durationMs: 12,
        statusCode: 500,
        responseBody: 'oops',
      },
      {
        deliveryId: failed!.id,
        attempt: 2,
        startedAt: new Date('2026-11-22T00:00:05.100Z'),
        durationMs: 10000,
        error: 'timed out after 10000 ms',
      },
    ]);
    const all = await api.call('GET', `/api/webhooks/${hook.id}/deliveries`, api.owner);
    assert.equal(all.status, 200);
    assert.deepEqual(
      all.body!.deliveries.map((d: JsonBody) => d.id),
      ['00000000-0000-4000-8000-000000000002', failed!.id],
    );
    const [, old] = all.body!.deliveries;
    assert.equal(old.nextAttemptAt, null);
    assert.deepEqual(
      old.attempts.map((a: JsonBody) => [a.attempt, a.statusCode, a.error, a.responseBody]),
      [
        [1, 500, null, 'oops'],
        [2, null, 'timed out after 10000 ms', null],
      ],
    );
    const onlyFailed = await api.call('GET', `/api/webhooks/${hook.id}/deliveries?status=failed`, api.owner);
    assert.deepEqual(onlyFailed.body!.pagination, { page: 1, limit: 50, total: 1, pages: 1 });
  });

  test('retry makes a finished delivery due now; a disabled subscription must be re-enabled first', async () => {
    const hook = await api.subscribe(api.owner);
    const db = api.storage.storage.db;
    const [delivery] = await db
      .insert(webhookDeliveries)
      .values({
        webhookId: hook.id,
        event: 'vault.paused',
        payload: '{"id":"a","event":"vault.paused","timestamp":"2026-11-22T00:00:00.000Z","data":{}}',
        status: 'failed',
        attemptCount: 8,
        nextAttemptAt: new Date('2026-01-01T00:00:00.000Z'),
        completedAt: new Date(),
      })
      .returning();
    const url = `/api/webhooks/${hook.id}/deliveries/${delivery!.id}/retry`;
    const retried = await api.call('POST', url, api.owner);
    assert.equal(retried.status, 202);
    assert.equal(retried.body!.status, 'pending');
    assert.ok(Math.abs(Date.parse(retried.body!.nextAttemptAt) - Date.now()) < 60_000);
    assert.equal(retried.body!.completedAt, null);

    const disabled = await api.call('PATCH', `/api/webhooks/${hook.id}`, api.owner, { active: false });
    assert.equal(disabled.body!.active, false);
    assert.equal(disabled.body!.disabledReason, 'disabled by owner');
    const refused = await api.call('POST', url, api.owner);
    assert.equal(refused.status, 409);
    assert.equal(refused.body!.code, 'WEBHOOK_DISABLED');
    assert.equal((await api.call('POST', `/api/webhooks/${hook.id}/test`, api.owner)).status, 409);
    await db.update(webhooks).set({ failingSince: new Date() }).where(eq(webhooks.id, hook.id));
    const enabled = await api.call('PATCH', `/api/webhooks/${hook.id}`, api.owner, { active: true });
    assert.deepEqual([enabled.body!.active, enabled.body!.disabledReason], [true, null]);
    const [row] = await db.select().from(webhooks).where(eq(webhooks.id, hook.id));
    assert.equal(row!.failingSince, null);
  });

  test('retry sends a delivery waiting for its next attempt now: a worker claims it at once', async () => {
    const hook = await api.subscribe(api.owner);
    const db = api.storage.storage.db;
    const later = new Date(Date.now() + 3_600_000);
    const [waiting] = await db
      .insert(webhookDeliveries)
      .values({
        webhookId: hook.id,
        event: 'vault.paused',
        payload: '{"id":"b","event":"vault.paused","timestamp":"2026-11-22T00:00:00.000Z","data":{}}',
        status: 'pending',
        attemptCount: 1,
        nextAttemptAt: later,
        lockedUntil: null,
        lastError: 'status 503',
        lastStatusCode: 503,
      })
      .returning();
    const retried = await api.call(
      'POST',
      `/api/webhooks/${hook.id}/deliveries/${waiting!.id}/retry`,
      api.owner,
    );
    assert.equal(retried.status, 202);
    assert.equal(retried.body!.status, 'pending');
    assert.ok(Date.parse(retried.body!.nextAttemptAt) <= Date.now(), retried.body!.nextAttemptAt);
    const claimed = await claimDueDeliveries(db, {
      now: new Date(),
      limit: 10,
      leaseMs: 30_000,
      asyncCommit: false,
    });
    assert.deepEqual(
      claimed.map((c) => [c.id, c.attempt]),
      [[waiting!.id, 2]],
    );
  });

  test('retry leaves a delivery being sent at this moment to its worker', async () => {
    const hook = await api.subscribe(api.owner);
    const db = api.storage.storage.db;
    const [inFlight] = await db
      .insert(webhookDeliveries)
      .values({
        webhookId: hook.id,
        event: 'vault.paused',
        payload: '{"id":"c","event":"vault.paused","timestamp":"2026-11-22T00:00:00.000Z","data":{}}',
        status: 'pending',
        attemptCount: 2,
        nextAttemptAt: new Date(Date.now() - 1000),
        lockedUntil: new Date(Date.now() + 60_000),
      })
      .returning();
    const retried = await api.call(
      'POST',
      `/api/webhooks/${hook.id}/deliveries/${inFlight!.id}/retry`,
      api.owner,
    );
    assert.equal(retried.status, 202);
    const [row] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, inFlight!.id));
    assert.deepEqual(
      [row!.attemptCount, row!.lockedUntil?.toISOString()],
      [2, inFlight!.lockedUntil!.toISOString()],
    );
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
