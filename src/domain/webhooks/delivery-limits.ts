// What an owner's own calls may queue: `recover` re-sends a bounded batch, once per cooldown, and
// `test` sends a few events per window, per subscription. Each refusal is a 429 saying when to return.
import { and, count, eq, gte, sql } from 'drizzle-orm';
import { AppError } from '../../errors.js';
import type { Tx } from '../../storage/database.js';
import { webhookDeliveries, webhooks } from '../../storage/schema/index.js';
import { TEST_EVENT } from './webhook-events.js';

/** At most this many deliveries one `recover` call queues (the oldest first); call again for more. */
export const RECOVER_MAX_PER_CALL = 100;
/** After a `recover` that queued something, the subscription's next one waits this long. */
export const RECOVER_COOLDOWN_MS = 60_000;
/** `test` events one subscription may queue per window. */
export const TEST_EVENTS_PER_WINDOW = 5;
export const TEST_WINDOW_MS = 5 * 60_000;

const tooSoon = (limit: number, readyAtMs: number, now: Date, what: string) => {
  const retryAfter = Math.max(1, Math.ceil((readyAtMs - now.getTime()) / 1000));
  return new AppError('RATE_LIMIT_EXCEEDED', `${what}; retry after ${retryAfter} s`, { limit, retryAfter });
};

/**
 * Inside the recover transaction: locks the subscription row (concurrent calls queue here) and
 * throws 429 while its cooldown runs.
 */
export async function assertRecoverAllowed(tx: Tx, webhookId: string, now: Date): Promise<void> {
  const [row] = await tx
    .select({ recoveredAt: webhooks.recoveredAt })
    .from(webhooks)
    .where(eq(webhooks.id, webhookId))
    .for('no key update');
  const last = row?.recoveredAt?.getTime();
  if (last !== undefined && now.getTime() < last + RECOVER_COOLDOWN_MS) {
    throw tooSoon(
      1,
      last + RECOVER_COOLDOWN_MS,
      now,
      `A subscription may be recovered once every ${RECOVER_COOLDOWN_MS / 1000} s`,
    );
  }
}

export async function markRecovered(tx: Tx, webhookId: string, now: Date): Promise<void> {
  await tx.update(webhooks).set({ recoveredAt: now }).where(eq(webhooks.id, webhookId));
}

/**
 * Inside the test-event transaction: locks the subscription row and throws 429 when it queued its
 * share of test events in the last window.
 */
export async function assertTestAllowed(tx: Tx, webhookId: string, now: Date): Promise<void> {
  await tx.select({ id: webhooks.id }).from(webhooks).where(eq(webhooks.id, webhookId)).for('no key update');
  const since = new Date(now.getTime() - TEST_WINDOW_MS);
  const [sent] = await tx
    .select({
      n: count(),
      oldest: sql<number | null>`(extract(epoch from min(${webhookDeliveries.createdAt})) * 1000)::float8`,
    })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.webhookId, webhookId),
        eq(webhookDeliveries.event, TEST_EVENT),
        gte(webhookDeliveries.createdAt, since),
      ),
    );
  if ((sent?.n ?? 0) < TEST_EVENTS_PER_WINDOW) return;
  const oldest = Number(sent?.oldest ?? now.getTime());
  throw tooSoon(
    TEST_EVENTS_PER_WINDOW,
    oldest + TEST_WINDOW_MS,
    now,
    `A subscription may send ${TEST_EVENTS_PER_WINDOW} test events every ${TEST_WINDOW_MS / 60_000} minutes`,
  );
}
