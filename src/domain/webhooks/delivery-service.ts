// A subscription's deliveries as its owner sees them: history with attempts, manual retry, test event.
import { and, count, desc, eq, gte, inArray, sql } from 'drizzle-orm';
import { AppError, validationError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { type Pagination, pageOffset, toPageRequest, toPagination } from '../../lib/pagination.js';
import type { Database } from '../../storage/database.js';
import {
  DELIVERY_STATUSES,
  type WebhookDeliveryRow,
  webhookAttempts,
  webhookDeliveries,
} from '../../storage/schema/index.js';
import { DAY_MS, dayStartMs, parseDateInput } from '../analytics/periods.js';
import { type AuditStamp, recordDone } from '../audit/audit-service.js';
import {
  assertRecoverAllowed,
  assertTestAllowed,
  markRecovered,
  RECOVER_COOLDOWN_MS,
  RECOVER_MAX_PER_CALL,
} from './delivery-limits.js';
import { enqueueDelivery, notifyDeliveryWorkers } from './outbox.js';
import { TEST_EVENT } from './webhook-events.js';
import type { Delivery, DeliveryAttempt, DeliveryPayload } from './webhook-resource.js';
import type { PageQuery, WebhookService } from './webhook-service.js';

export interface DeliveryServiceDeps {
  readonly db: Database;
  readonly clock: Clock;
  readonly webhooks: Pick<WebhookService, 'findOwned'>;
}

export function createDeliveryService(deps: DeliveryServiceDeps) {
  return {
    listDeliveries: (owner: string, webhookId: string, query: DeliveryQuery) =>
      listDeliveries(deps, owner, webhookId, query),
    /** Enqueues a `webhook.test` delivery, sent and retried like any other; a few per window. */
    sendTestEvent: (owner: string, webhookId: string, audit?: AuditStamp | null) =>
      sendTestEvent(deps, owner, webhookId, audit),
    /**
     * Sends a delivery again now, whatever its status: one more attempt once its schedule is spent.
     * A delivery being sent at this moment is left to finish.
     */
    retryDelivery: (owner: string, webhookId: string, deliveryId: string, audit?: AuditStamp | null) =>
      retryDelivery(deps, owner, webhookId, deliveryId, audit),
    /**
     * Sends again now the deliveries created since `since` (at most 14 days back) whose last attempt
     * failed, retrying or exhausted, oldest first and at most RECOVER_MAX_PER_CALL of them; ones being
     * sent at this moment are left to finish. A call that queued some starts a RECOVER_COOLDOWN_MS
     * cooldown for the subscription (429 until it ends).
     */
    recoverDeliveries: (
      owner: string,
      webhookId: string,
      input: { since: string },
      audit?: AuditStamp | null,
    ) => recoverDeliveries(deps, owner, webhookId, input, audit),
  };
}

/** How far back `recover` reaches. */
export const RECOVER_MAX_DAYS = 14;

/** `failing`: the last attempt failed, whether the delivery still retries or is exhausted. */
export const DELIVERY_FILTERS = [...DELIVERY_STATUSES, 'failing'] as const;
export type DeliveryFilter = (typeof DELIVERY_FILTERS)[number];

type DeliveryQuery = PageQuery & { status?: DeliveryFilter | undefined };

async function listDeliveries(
  deps: DeliveryServiceDeps,
  owner: string,
  webhookId: string,
  query: DeliveryQuery,
): Promise<{ deliveries: Delivery[]; pagination: Pagination }> {
  const { db } = deps;
  await deps.webhooks.findOwned(owner, webhookId);
  const page = toPageRequest(query);
  const where = and(eq(webhookDeliveries.webhookId, webhookId), statusCondition(query.status));
  const [total] = await db.select({ n: count() }).from(webhookDeliveries).where(where);
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(where)
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(page.limit)
    .offset(pageOffset(page));
  return { deliveries: await withAttempts(db, rows), pagination: toPagination(page, total?.n ?? 0) };
}

function statusCondition(status: DeliveryFilter | undefined) {
  if (status === undefined) return undefined;
  return status === 'failing' ? lastAttemptFailed() : eq(webhookDeliveries.status, status);
}

/** Exhausted, or waiting to retry after a failure (a success clears last_error). */
function lastAttemptFailed() {
  return sql`(${webhookDeliveries.status} = 'failed' or (${webhookDeliveries.status} = 'pending' and ${webhookDeliveries.lastError} is not null))`;
}

async function recoverDeliveries(
  deps: DeliveryServiceDeps,
  owner: string,
  webhookId: string,
  input: { since: string },
  audit?: AuditStamp | null,
): Promise<{ requeued: number; remaining: number; cooldownSeconds: number }> {
  const { db, clock } = deps;
  const webhook = await deps.webhooks.findOwned(owner, webhookId);
  const now = clock.now();
  const since = parseSince(input.since, now);
  assertActive(webhook);
  const failing = and(
    eq(webhookDeliveries.webhookId, webhookId),
    gte(webhookDeliveries.createdAt, since),
    lastAttemptFailed(),
    notInFlight(now),
    notDueYet(now),
  );
  const result = await db.transaction(async (tx) => {
    await assertRecoverAllowed(tx, webhookId, now);
    await recordDone(tx, audit, { target: `webhook:${webhookId}`, vault: webhook.vaultAddress }, now);
    const batch = tx
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(failing)
      .orderBy(webhookDeliveries.createdAt, webhookDeliveries.id)
      .limit(RECOVER_MAX_PER_CALL);
    const requeued = await tx
      .update(webhookDeliveries)
      .set({ status: 'pending', nextAttemptAt: now, completedAt: null })
      .where(inArray(webhookDeliveries.id, batch))
      .returning({ id: webhookDeliveries.id });
    if (requeued.length === 0) return { requeued: 0, remaining: 0 };
    await markRecovered(tx, webhookId, now);
    await notifyDeliveryWorkers(tx);
    const [left] = await tx.select({ n: count() }).from(webhookDeliveries).where(failing);
    return { requeued: requeued.length, remaining: left?.n ?? 0 };
  });
  return { ...result, cooldownSeconds: result.requeued === 0 ? 0 : RECOVER_COOLDOWN_MS / 1000 };
}

/** Not already waiting to be sent now (a previous recover, or a retry whose time has come). */
function notDueYet(now: Date) {
  return sql`not (${webhookDeliveries.status} = 'pending' and ${webhookDeliveries.nextAttemptAt} <= ${now.toISOString()}::timestamptz)`;
}

function parseSince(value: string, now: Date): Date {
  const parsed = parseDateInput(value);
  const fail = (message: string) => validationError([{ path: 'body.since', message }]);
  if (parsed === null) throw fail('must be an ISO 8601 date or date-time');
  const ms = parsed.kind === 'day' ? dayStartMs(parsed.day) : parsed.ms;
  if (ms < now.getTime() - RECOVER_MAX_DAYS * DAY_MS)
    throw fail(`must be within the last ${RECOVER_MAX_DAYS} days`);
  if (ms > now.getTime()) throw fail('must not be in the future');
  return new Date(ms);
}

async function sendTestEvent(
  deps: DeliveryServiceDeps,
  owner: string,
  webhookId: string,
  audit?: AuditStamp | null,
): Promise<Delivery> {
  const { db, clock } = deps;
  const webhook = await deps.webhooks.findOwned(owner, webhookId);
  assertActive(webhook);
  const now = clock.now();
  const id = await db.transaction(async (tx) => {
    await assertTestAllowed(tx, webhookId, now);
    await recordDone(tx, audit, { target: `webhook:${webhookId}`, vault: webhook.vaultAddress }, now);
    return enqueueDelivery(tx, {
      webhookId,
      event: TEST_EVENT,
      timestamp: now.toISOString(),
      data: {
        webhook: webhookId,
        vault: webhook.vaultAddress,
        message: 'This is a test event from Vaultkeeper.',
      },
    });
  });
  return (await withAttempts(db, [await findDelivery(db, webhookId, id)]))[0]!;
}

async function retryDelivery(
  deps: DeliveryServiceDeps,
  owner: string,
  webhookId: string,
  deliveryId: string,
  audit?: AuditStamp | null,
): Promise<Delivery> {
  const { db, clock } = deps;
  const webhook = await deps.webhooks.findOwned(owner, webhookId);
  await findDelivery(db, webhookId, deliveryId);
  assertActive(webhook);
  const now = clock.now();
  // The retry and its audit entry commit together; a delivery being sent now is left to finish.
  const updated = await db.transaction(async (tx) => {
    const [row] = await tx
      .update(webhookDeliveries)
      .set({ status: 'pending', nextAttemptAt: now, completedAt: null })
      .where(and(eq(webhookDeliveries.id, deliveryId), notInFlight(now)))
      .returning();
    await recordDone(tx, audit, { target: `delivery:${deliveryId}`, vault: webhook.vaultAddress }, now);
    return row;
  });
  if (updated !== undefined) await notifyDeliveryWorkers(db);
  return (await withAttempts(db, [updated ?? (await findDelivery(db, webhookId, deliveryId))]))[0]!;
}

/**
 * Not being sent at this moment: no live lease. A waiting delivery has no lease at all (NULL), which
 * must count as free, so the comparison is never left to a NULL.
 */
function notInFlight(now: Date) {
  return sql`(${webhookDeliveries.status} <> 'pending' or ${webhookDeliveries.lockedUntil} is null or ${webhookDeliveries.lockedUntil} <= ${now.toISOString()}::timestamptz)`;
}

async function withAttempts(db: Database, rows: WebhookDeliveryRow[]): Promise<Delivery[]> {
  if (rows.length === 0) return [];
  const attempts = await db
    .select()
    .from(webhookAttempts)
    .where(
      inArray(
        webhookAttempts.deliveryId,
        rows.map((r) => r.id),
      ),
    )
    .orderBy(webhookAttempts.deliveryId, webhookAttempts.attempt, webhookAttempts.id);
  const byDelivery = new Map<string, DeliveryAttempt[]>();
  for (const a of attempts) {
    const list = byDelivery.get(a.deliveryId) ?? [];
    list.push({
      attempt: a.attempt,
      startedAt: a.startedAt.toISOString(),
      durationMs: a.durationMs,
      statusCode: a.statusCode,
      error: a.error,
      responseBody: a.responseBody,
    });
    byDelivery.set(a.deliveryId, list);
  }
  return rows.map((row) => toDelivery(row, byDelivery.get(row.id) ?? []));
}

function toDelivery(row: WebhookDeliveryRow, attempts: DeliveryAttempt[]): Delivery {
  return {
    id: row.id,
    webhookId: row.webhookId,
    event: row.event,
    status: row.status,
    attemptCount: row.attemptCount,
    nextAttemptAt: row.status === 'pending' ? row.nextAttemptAt.toISOString() : null,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
    payload: JSON.parse(row.payload) as DeliveryPayload,
    attempts,
  };
}

async function findDelivery(
  db: Database,
  webhookId: string,
  deliveryId: string,
): Promise<WebhookDeliveryRow> {
  const [row] = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.webhookId, webhookId)))
    .limit(1);
  if (row === undefined) throw new AppError('DELIVERY_NOT_FOUND', 'Delivery not found', { id: deliveryId });
  return row;
}

/** Sendable: active, and confirmed by its recipient when it is an e-mail address. */
function assertActive(webhook: { active: boolean; verified: boolean; disabledReason: string | null }): void {
  if (!webhook.verified) {
    throw new AppError('WEBHOOK_NOT_VERIFIED', 'The e-mail address has not confirmed this subscription yet', {
      reason: 'not_verified',
    });
  }
  if (!webhook.active) {
    throw new AppError('WEBHOOK_DISABLED', 'Webhook is disabled; re-enable it first', {
      reason: webhook.disabledReason,
    });
  }
}

export type DeliveryService = ReturnType<typeof createDeliveryService>;
