// The delivery queue in PostgreSQL: what a claim leases (delivery-claim.ts), outcomes recorded in batches.
import { type SQL, sql } from 'drizzle-orm';
import type { WebhookFormat } from '../domain/webhooks/chat/destination.js';
import { type Database, queryRows } from '../storage/database.js';
import type { SendOutcome } from './http-sender.js';
import type { Lane } from './receiver-health.js';
import { type Decision, describeFailure, nextSubscriptionHealth } from './retry-policy.js';

export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  owner: string;
  /** Whether the owner owned an indexed vault when this was claimed (its share of slots depends on it). */
  ownsVault: boolean;
  /** The owner's cap on deliveries in flight when this was claimed, from its vaults' worth. */
  ownerCap: number;
  /** Owner and URL origin: what the slow lane judges. */
  receiver: string;
  /** The lane it was claimed in. */
  lane: Lane;
  event: string;
  /** JSON text of {id, event, timestamp, data}, signed as is. */
  payload: string;
  /** This attempt's number; also the lease token: only its holder records the outcome. */
  attempt: number;
  createdAt: Date;
  url: string;
  /** json, or the chat platform whose body is sent (to the URL in `sealedUrl`, not `url`). */
  format: WebhookFormat;
  sealedUrl: string | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  active: boolean;
  /** False while a `mailto:` recipient has not confirmed: such a delivery is not sent. */
  verified: boolean;
  failingSince: Date | null;
}

export interface AttemptRecord {
  delivery: ClaimedDelivery;
  startedAt: Date;
  durationMs: number;
  /** Null when nothing was sent (the subscription was disabled meanwhile). */
  outcome: SendOutcome | null;
  decision: Decision;
  /** For a delivery that was not sent: why. */
  note?: string;
}

/**
 * On PostgreSQL, claims and outcomes commit without waiting for the WAL flush (half the cost): a
 * server crash can lose only the latest of them, which re-sends a delivery (at-least-once holds)
 * and never loses one; the outbox rows are written durably in their cause's transaction. Not on
 * PGlite: it has no fsync to save, and a killed process there is a crashed server.
 */
export function commitMode(asyncCommit: boolean) {
  return asyncCommit ? sql`set_config('synchronous_commit', 'off', true)` : sql`null`;
}

const iso = (date: Date | null): string | null => (date === null ? null : date.toISOString());
export const toDate = (value: unknown): Date | null =>
  value === null || value === undefined ? null : value instanceof Date ? value : new Date(String(value));

/**
 * Writes attempts, delivery states and subscription health of a batch in one transaction. A delivery
 * deleted meanwhile, or re-leased by another worker after ours ran out, is left alone.
 */
export async function recordAttempts(
  db: Database,
  records: readonly AttemptRecord[],
  now: Date,
  options: { asyncCommit: boolean },
): Promise<void> {
  if (records.length === 0) return;
  await db.transaction(async (tx) => {
    if (options.asyncCommit) await tx.execute(sql`select ${commitMode(true)}`);
    const sent = records.filter((r) => r.outcome !== null);
    if (sent.length > 0) {
      const rows = sent.map(
        (r) => sql`(${r.delivery.id}::uuid, ${r.delivery.attempt}::int, ${iso(r.startedAt)}::timestamptz,
          ${r.durationMs}::int, ${r.outcome!.statusCode}::int, ${r.outcome!.error}::text, ${r.outcome!.responseBody}::text)`,
      );
      await tx.execute(sql`
        insert into webhook_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error, response_body)
        select v.* from (values ${sql.join(rows, sql`, `)}) as v(delivery_id, attempt, started_at, duration_ms, status_code, error, response_body)
        where exists (select 1 from webhook_deliveries d where d.id = v.delivery_id)
      `);
    }
    const states = records.map((r) => {
      const d = r.decision;
      const lastError = r.outcome === null ? (r.note ?? null) : describeFailure(r.outcome);
      const nextAt = d.status === 'pending' ? d.nextAttemptAt : null;
      const completedAt = d.status === 'pending' ? null : now;
      return sql`(${r.delivery.id}::uuid, ${r.delivery.attempt}::int, ${d.status}::text, ${iso(nextAt)}::timestamptz,
        ${lastError}::text, ${r.outcome !== null}::boolean, ${r.outcome?.statusCode ?? null}::int, ${iso(completedAt)}::timestamptz)`;
    });
    await tx.execute(sql`
      update webhook_deliveries d set
        status = v.status,
        next_attempt_at = coalesce(v.next_at, d.next_attempt_at),
        locked_until = null,
        last_error = v.last_error,
        last_status_code = case when v.sent then v.status_code else d.last_status_code end,
        completed_at = v.completed_at
      from (values ${sql.join(states, sql`, `)}) as v(id, attempt, status, next_at, last_error, sent, status_code, completed_at)
      where d.id = v.id and d.attempt_count = v.attempt
    `);
    await updateSubscriptionHealth(tx as unknown as Database, sent, now);
  });
}

/** Tracks each subscription's run of failures; disables it on 410 or after 5 failing days. */
async function updateSubscriptionHealth(
  db: Database,
  sent: readonly AttemptRecord[],
  now: Date,
): Promise<void> {
  const byWebhook = new Map<string, AttemptRecord[]>();
  for (const r of sent) {
    // A success on a healthy subscription changes nothing: skip the row lock on the hot path.
    if (r.outcome!.ok && r.delivery.failingSince === null) continue;
    byWebhook.set(r.delivery.webhookId, [...(byWebhook.get(r.delivery.webhookId) ?? []), r]);
  }
  if (byWebhook.size === 0) return;
  const ids = [...byWebhook.keys()].sort();
  // NO KEY UPDATE, not UPDATE: queueing a delivery holds a key-share lock on its subscription (the
  // foreign key) and must not wait for this, nor this for it (two such waits in opposite orders deadlock).
  const current = await queryRows<{ id: string; failing_since: unknown; active: boolean }>(
    db,
    sql`
    select id, failing_since, active from webhooks where id in (${sql.join(
      ids.map((id) => sql`${id}::uuid`),
      sql`, `,
    )})
    order by id for no key update
  `,
  );
  for (const row of current) {
    const before = toDate(row.failing_since);
    const results = byWebhook.get(row.id)!.map((r) => ({ startedAt: r.startedAt, result: r.outcome! }));
    const health = nextSubscriptionHealth(before, results, now);
    const changes: SQL[] = [];
    if (iso(health.failingSince) !== iso(before))
      changes.push(sql`failing_since = ${iso(health.failingSince)}::timestamptz`);
    if (health.disable !== null && row.active) {
      changes.push(sql`active = false`, sql`disabled_reason = ${health.disable}`);
    }
    if (changes.length === 0) continue;
    changes.push(sql`updated_at = ${now.toISOString()}::timestamptz`);
    await db.execute(sql`update webhooks set ${sql.join(changes, sql`, `)} where id = ${row.id}::uuid`);
    if (health.disable !== null && row.active) await failPendingDeliveries(db, row.id, health.disable, now);
  }
}

/** A disabled subscription's waiting deliveries fail at once; ones in flight fail when claimed again. */
async function failPendingDeliveries(
  db: Database,
  webhookId: string,
  reason: string,
  now: Date,
): Promise<void> {
  const at = now.toISOString();
  await db.execute(sql`
    update webhook_deliveries
    set status = 'failed', last_error = ${`subscription disabled: ${reason}`}, completed_at = ${at}::timestamptz
    where webhook_id = ${webhookId}::uuid and status = 'pending'
      and (locked_until is null or locked_until <= ${at}::timestamptz)
  `);
}
