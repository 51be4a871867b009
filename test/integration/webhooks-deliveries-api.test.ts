// A subscription's deliveries through the API: the test event, the history with its attempts, a
// manual retry of one delivery, `?status=failing`, and `POST /api/webhooks/:id/recover` (send every
// failed one again now) with its bounds.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { and, eq, inArray } from 'drizzle-orm';
import {
  RECOVER_COOLDOWN_MS,
  RECOVER_MAX_PER_CALL,
  TEST_EVENTS_PER_WINDOW,
} from '../../src/domain/webhooks/delivery-limits.js';
import { claimDueDeliveries } from '../../src/jobs/delivery-claim.js';
import { webhookAttempts, webhookDeliveries, webhooks } from '../../src/storage/schema/index.js';
import { type JsonBody, useWebhookApi } from '../support/webhooks-api.js';

const api = useWebhookApi();

const HOUR = 3_600_000;

type Seed = {
  status: 'pending' | 'succeeded' | 'failed';
  lastError?: string;
  ageMs: number;
  lockedForMs?: number;
};

/** One delivery per seed, named by key; `ageMs` back from now is its createdAt. */
async function seed(webhookId: string, seeds: Record<string, Seed>): Promise<Record<string, string>> {
  const db = api.storage.storage.db;
  const now = Date.now();
  const ids: Record<string, string> = {};
  for (const [name, s] of Object.entries(seeds)) {
    const [row] = await db
      .insert(webhookDeliveries)
      .values({
        webhookId,
        event: 'vault.paused',
        payload: `{"id":"${name}","event":"vault.paused","timestamp":"2026-11-22T00:00:00.000Z","data":{}}`,
        status: s.status,
        attemptCount: s.status === 'pending' && s.lastError === undefined ? 0 : 3,
        nextAttemptAt: new Date(now + (s.status === 'pending' && s.lastError !== undefined ? HOUR : 0)),
        lockedUntil: s.lockedForMs === undefined ? null : new Date(now + s.lockedForMs),
        lastError: s.lastError ?? null,
        lastStatusCode: s.lastError === undefined ? null : 500,
        createdAt: new Date(now - s.ageMs),
        completedAt: s.status === 'pending' ? null : new Date(now - s.ageMs + 1000),
      })
      .returning();
    ids[name] = row!.id;
  }
  return ids;
}

const SEEDS: Record<string, Seed> = {
  exhausted: { status: 'failed', lastError: 'http_500', ageMs: 2 * HOUR },
  retrying: { status: 'pending', lastError: 'http_500', ageMs: HOUR },
  old: { status: 'failed', lastError: 'http_500', ageMs: 30 * HOUR },
  sent: { status: 'succeeded', ageMs: HOUR },
  fresh: { status: 'pending', ageMs: 60_000 },
  inFlight: { status: 'pending', lastError: 'http_500', ageMs: HOUR, lockedForMs: 60_000 },
};

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

describe('?status=failing', () => {
  test('lists deliveries whose last attempt failed, retrying or exhausted; failed stays exhausted only', async () => {
    const hook = await api.subscribe(api.owner);
    const ids = await seed(hook.id, SEEDS);
    const list = async (status: string) => {
      const answer = await api.call('GET', `/api/webhooks/${hook.id}/deliveries?status=${status}`, api.owner);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body!.deliveries.map((d: JsonBody) => d.id).sort();
    };
    assert.deepEqual(await list('failing'), [ids.exhausted, ids.retrying, ids.old, ids.inFlight].sort());
    assert.deepEqual(await list('failed'), [ids.exhausted, ids.old].sort());
    const wrong = await api.call('GET', `/api/webhooks/${hook.id}/deliveries?status=broken`, api.owner);
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body!.code, 'VALIDATION_ERROR');
  });
});

describe('POST /api/webhooks/:id/recover', () => {
  test('sends every failed delivery since the time again now; others, older ones and one in flight stay', async () => {
    const hook = await api.subscribe(api.owner);
    const other = await api.subscribe(api.owner);
    const ids = await seed(hook.id, SEEDS);
    const foreign = await seed(other.id, { failed: SEEDS.exhausted! });
    const db = api.storage.storage.db;
    const before = await db.select().from(webhookDeliveries);

    const since = new Date(Date.now() - 3 * HOUR).toISOString();
    const answer = await api.call('POST', `/api/webhooks/${hook.id}/recover`, api.owner, { since });
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { requeued: 2, remaining: 0, cooldownSeconds: 60 });

    const claimed = await claimDueDeliveries(db, {
      now: new Date(),
      limit: 20,
      leaseMs: 30_000,
      asyncCommit: false,
    });
    // `fresh` was already due; recover added exactly the two failed ones of this subscription.
    assert.deepEqual(claimed.map((c) => c.id).sort(), [ids.exhausted, ids.retrying, ids.fresh].sort());
    const untouched = [ids.old!, ids.sent!, ids.inFlight!, foreign.failed!];
    const after = await db.select().from(webhookDeliveries).where(inArray(webhookDeliveries.id, untouched));
    for (const row of after) {
      const was = before.find((b) => b.id === row.id)!;
      assert.deepEqual(
        [row.status, row.nextAttemptAt, row.completedAt, row.lockedUntil],
        [was.status, was.nextAttemptAt, was.completedAt, was.lockedUntil],
        row.id,
      );
    }
    const [exhausted] = await db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, ids.exhausted!));
    assert.deepEqual([exhausted!.status, exhausted!.completedAt], ['pending', null]);
  });

  test('a YYYY-MM-DD day is its UTC start; nothing failing answers 0', async () => {
    const hook = await api.subscribe(api.owner);
    const today = new Date().toISOString().slice(0, 10);
    const answer = await api.call('POST', `/api/webhooks/${hook.id}/recover`, api.owner, { since: today });
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { requeued: 0, remaining: 0, cooldownSeconds: 0 });
  });

  test('refuses a since that is not a date, more than 14 days back or in the future, naming the field', async () => {
    const hook = await api.subscribe(api.owner);
    await seed(hook.id, { exhausted: SEEDS.exhausted! });
    const url = `/api/webhooks/${hook.id}/recover`;
    const cases: [unknown, string][] = [
      [{ since: 'yesterday-ish' }, 'since: must be an ISO 8601 date or date-time'],
      [
        { since: new Date(Date.now() - 15 * 24 * HOUR).toISOString() },
        'since: must be within the last 14 days',
      ],
      [{ since: new Date(Date.now() + HOUR).toISOString() }, 'since: must not be in the future'],
      [{}, 'since: is required'],
      [{ since: new Date().toISOString(), all: true }, 'all: is not an accepted field'],
    ];
    for (const [body, message] of cases) {
      const answer = await api.call('POST', url, api.owner, body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(answer.body!.code, 'VALIDATION_ERROR');
      assert.equal(answer.body!.error, message);
    }
    const [row] = await api.storage.storage.db.select().from(webhookDeliveries);
    assert.equal(row!.status, 'failed');
  });

  test("another wallet's subscription is 403; a disabled one must be re-enabled first", async () => {
    const hook = await api.subscribe(api.owner);
    const since = new Date(Date.now() - HOUR).toISOString();
    const url = `/api/webhooks/${hook.id}/recover`;
    assert.equal((await api.call('POST', url, api.stranger, { since })).status, 403);
    assert.equal((await api.call('POST', url, null, { since })).status, 401);
    await api.call('PATCH', `/api/webhooks/${hook.id}`, api.owner, { active: false });
    const refused = await api.call('POST', url, api.owner, { since });
    assert.deepEqual([refused.status, refused.body!.code], [409, 'WEBHOOK_DISABLED']);
  });
});

describe('validation messages', () => {
  test('name the field in the envelope, for rules of the schema and of the domain alike', async () => {
    const hook = await api.subscribe(api.owner);
    const cases: [string, string, unknown, string][] = [
      [
        'POST',
        '/api/webhooks',
        { url: 'ftp://hooks.example.com', events: ['vault.paused'] },
        'url: must be an https:// or mailto: URL',
      ],
      ['POST', '/api/webhooks', { events: ['vault.paused'] }, 'url: is required'],
      [
        'POST',
        '/api/webhooks',
        { url: 'https://hooks.example.com', events: [] },
        'events: must not have fewer than 1 items',
      ],
      ['PATCH', `/api/webhooks/${hook.id}`, { colour: 'red' }, 'colour: is not an accepted field'],
      ['GET', `/api/webhooks/${hook.id}/deliveries?page=0`, undefined, 'page: must be >= 1'],
      ['GET', '/api/webhooks/not-a-uuid', undefined, 'id: must match format "uuid"'],
    ];
    for (const [method, url, body, message] of cases) {
      const answer = await api.call(method, url, api.owner, body);
      assert.equal(answer.status, 400, `${method} ${url}`);
      assert.equal(answer.body!.code, 'VALIDATION_ERROR');
      assert.equal(answer.body!.error, message, `${method} ${url}`);
      assert.ok(answer.body!.details.issues.length >= 1);
    }
  });
});

describe('bounded amplification', () => {
  const failures = (count: number): Record<string, Seed> =>
    Object.fromEntries(
      Array.from({ length: count }, (_, i) => [
        `f${i}`,
        { status: 'failed', lastError: 'http_500', ageMs: HOUR - i * 1000 },
      ]),
    );
  const requeuedNow = async (webhookId: string) =>
    (
      await api.storage.storage.db
        .select({ id: webhookDeliveries.id })
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.status, 'pending')))
    ).length;

  test(`recover queues at most ${RECOVER_MAX_PER_CALL} a call, oldest first, then refuses until its cooldown ends`, {
    timeout: 60_000,
  }, async () => {
    const hook = await api.subscribe(api.owner);
    const ids = await seed(hook.id, failures(RECOVER_MAX_PER_CALL + 20));
    const url = `/api/webhooks/${hook.id}/recover`;
    const since = new Date(Date.now() - 2 * HOUR).toISOString();
    const first = await api.call('POST', url, api.owner, { since });
    assert.equal(first.status, 202, JSON.stringify(first.body));
    assert.deepEqual(first.body, {
      requeued: RECOVER_MAX_PER_CALL,
      remaining: 20,
      cooldownSeconds: RECOVER_COOLDOWN_MS / 1000,
    });
    // The oldest (f0 is an hour old, the last the newest) went first.
    const [oldest] = await api.storage.storage.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, ids.f0!));
    assert.equal(oldest!.status, 'pending');
    const again = await api.call('POST', url, api.owner, { since });
    assert.equal(again.status, 429);
    assert.equal(again.body!.code, 'RATE_LIMIT_EXCEEDED');
    assert.equal(again.body!.details.limit, 1);
    assert.ok(again.body!.details.retryAfter >= 1 && again.body!.details.retryAfter <= 60);
    assert.equal(again.headers['retry-after'], String(again.body!.details.retryAfter));
    assert.equal(await requeuedNow(hook.id), RECOVER_MAX_PER_CALL, 'the refusal changed nothing');
    // Once the cooldown has passed, the rest goes.
    await api.storage.storage.db
      .update(webhooks)
      .set({ recoveredAt: new Date(Date.now() - RECOVER_COOLDOWN_MS) })
      .where(eq(webhooks.id, hook.id));
    const later = await api.call('POST', url, api.owner, { since });
    assert.equal(later.status, 202, JSON.stringify(later.body));
    assert.equal(later.body!.requeued, 20);
    assert.equal(await requeuedNow(hook.id), RECOVER_MAX_PER_CALL + 20);
  });

  test('a recover that finds nothing starts no cooldown; the cooldown is per subscription', async () => {
    const hook = await api.subscribe(api.owner);
    const other = await api.subscribe(api.owner);
    await seed(other.id, failures(2));
    const since = new Date(Date.now() - 2 * HOUR).toISOString();
    for (let i = 0; i < 2; i += 1) {
      const empty = await api.call('POST', `/api/webhooks/${hook.id}/recover`, api.owner, { since });
      assert.equal(empty.status, 202);
    }
    const answer = await api.call('POST', `/api/webhooks/${other.id}/recover`, api.owner, { since });
    assert.deepEqual([answer.status, answer.body!.requeued], [202, 2]);
  });

  test(`test sends ${TEST_EVENTS_PER_WINDOW} events per subscription per window, then 429 with Retry-After`, async () => {
    const hook = await api.subscribe(api.owner);
    const other = await api.subscribe(api.owner);
    const url = `/api/webhooks/${hook.id}/test`;
    for (let i = 0; i < TEST_EVENTS_PER_WINDOW; i += 1) {
      assert.equal((await api.call('POST', url, api.owner)).status, 202);
    }
    const refused = await api.call('POST', url, api.owner);
    assert.equal(refused.status, 429);
    assert.equal(refused.body!.code, 'RATE_LIMIT_EXCEEDED');
    assert.equal(refused.body!.details.limit, TEST_EVENTS_PER_WINDOW);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    const queued = await api.storage.storage.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhookId, hook.id));
    assert.equal(queued.length, TEST_EVENTS_PER_WINDOW, 'the refusal queued nothing');
    // Another subscription has its own share.
    assert.equal((await api.call('POST', `/api/webhooks/${other.id}/test`, api.owner)).status, 202);
  });
});
