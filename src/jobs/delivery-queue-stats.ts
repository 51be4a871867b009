// The delivery queue as an operator watches it: how many deliveries wait, and how late the oldest due one is.
import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../storage/database.js';

export interface DeliveryQueueStats {
  /** Deliveries still to be sent (due now or scheduled for a retry). */
  pending: number;
  /** Seconds the oldest due delivery has waited past its due time (0 when none is due). */
  oldestDueSeconds: number;
}

/** One query on the partial index of pending deliveries. */
export async function readDeliveryQueueStats(db: Database, now: Date): Promise<DeliveryQueueStats> {
  const [row] = await queryRows<{ pending: number; oldest_due: string | Date | null }>(
    db,
    sql`
    select count(*)::int as pending, min(next_attempt_at) filter (where next_attempt_at <= ${now.toISOString()}::timestamptz) as oldest_due
    from webhook_deliveries where status = 'pending'
  `,
  );
  const oldest = row?.oldest_due == null ? null : new Date(row.oldest_due);
  return {
    pending: Number(row?.pending ?? 0),
    oldestDueSeconds: oldest === null ? 0 : Math.max(0, (now.getTime() - oldest.getTime()) / 1000),
  };
}
