// The delivery queue in PostgreSQL: claim due rows under a lease (SKIP LOCKED), record outcomes in batches.
import { type SQL, sql } from 'drizzle-orm';
import type { WebhookFormat } from '../domain/webhooks/chat/destination.js';
import type { Database } from '../storage/database.js';
import type { FairShareCaps, HeldSlots } from './delivery-fairness.js';
import type { SendOutcome } from './http-sender.js';
import { type Decision, describeFailure, nextSubscriptionHealth } from './retry-policy.js';

export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  owner: string;
  /** Whether the owner owned an indexed vault when this was claimed (its share of slots depends on it). */
  ownsVault: boolean;
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
function commitMode(asyncCommit: boolean) {
  return asyncCommit ? sql`set_config('synchronous_commit', 'off', true)` : sql`null`;
}

const iso = (date: Date | null): string | null => (date === null ? null : date.toISOString());
const toDate = (value: unknown): Date | null =>
  value === null || value === undefined ? null : value instanceof Date ? value : new Date(String(value));

/**
 * How many due rows a claim looks at for each one it may take: room to rotate across subscriptions.
 * Only the rows it takes are locked (SKIP LOCKED, with the due conditions checked again on the
 * locked row), so concurrent workers do not skip each other's unclaimed candidates.
 */
const CANDIDATES_PER_SLOT = 4;

/**
 * Leases up to `limit` due deliveries in one statement; a crashed holder's lease simply runs out.
 * Fair: subscriptions and owners this worker already holds at their cap are skipped, the rest get at
 * most their remaining share, and the batch takes one delivery of each in turn (owners first).
 * Wallets that own no indexed vault have a smaller cap each and one pool together; when the pool is
 * full their rows are not even candidates, so they cannot crowd owners' rows out of the window.
 */
export async function claimDueDeliveries(
  db: Database,
  input: {
    now: Date;
    limit: number;
    leaseMs: number;
    asyncCommit: boolean;
    caps?: FairShareCaps;
    held?: HeldSlots;
  },
): Promise<ClaimedDelivery[]> {
  const now = input.now.toISOString();
  const leaseUntil = new Date(input.now.getTime() + input.leaseMs).toISOString();
  const caps = input.caps ?? {
    perSubscription: input.limit,
    perOwner: input.limit,
    perWalletWithoutVault: input.limit,
    withoutVault: input.limit,
  };
  const held = input.held ?? { subscriptions: [], owners: [], withoutVault: 0 };
  const poolRoom = Math.max(0, caps.withoutVault - held.withoutVault);
  const ownsVault = sql`exists (select 1 from vaults v where v.authority = w.owner)`;
  const result = (await db.execute(sql`
    with commit_mode as (select ${commitMode(input.asyncCommit)}),
    held_subs as (
      select * from json_to_recordset(${JSON.stringify(held.subscriptions)}::json) as h(id uuid, n int)
    ),
    held_owners as (
      select * from json_to_recordset(${JSON.stringify(held.owners)}::json) as h(owner text, n int, "full" boolean)
    ),
    candidates as (
      select d.id, d.webhook_id, w.owner, d.next_attempt_at, ${ownsVault} as owns
      from webhook_deliveries d
      join webhooks w on w.id = d.webhook_id
      where d.status = 'pending'
        and d.next_attempt_at <= ${now}::timestamptz
        and (d.locked_until is null or d.locked_until <= ${now}::timestamptz)
        and d.webhook_id not in (select id from held_subs where n >= ${caps.perSubscription})
        and w.owner not in (select owner from held_owners where "full")
        and (${poolRoom > 0}::boolean or ${ownsVault})
      order by d.next_attempt_at
      limit ${input.limit * CANDIDATES_PER_SLOT}
    ),
    by_subscription as (
      select c.*, coalesce(hs.n, 0)
        + row_number() over (partition by c.webhook_id order by c.next_attempt_at, c.id) as sub_slot
      from candidates c left join held_subs hs on hs.id = c.webhook_id
    ),
    by_owner as (
      select b.id, b.owns, b.next_attempt_at, coalesce(ho.n, 0)
        + row_number() over (partition by b.owner order by b.sub_slot, b.next_attempt_at, b.id) as owner_slot
      from by_subscription b left join held_owners ho on ho.owner = b.owner
      where b.sub_slot <= ${caps.perSubscription}
    ),
    by_class as (
      select o.*, row_number() over (partition by o.owns order by o.owner_slot, o.next_attempt_at, o.id) as class_slot
      from by_owner o
      where o.owner_slot <= case when o.owns then ${caps.perOwner}::int else ${caps.perWalletWithoutVault}::int end
    ),
    due as (
      select d.id, b.owns from webhook_deliveries d
      join by_class b on b.id = d.id
      where (b.owns or b.class_slot <= ${poolRoom}::int)
        and d.status = 'pending'
        and (d.locked_until is null or d.locked_until <= ${now}::timestamptz)
      order by b.owner_slot, b.next_attempt_at
      limit ${input.limit}
      for update of d skip locked
    )
    update webhook_deliveries d
    set locked_until = ${leaseUntil}::timestamptz, attempt_count = d.attempt_count + 1
    from due, webhooks w, commit_mode
    where d.id = due.id and w.id = d.webhook_id
    returning d.id, d.webhook_id, w.owner, due.owns, d.event, d.payload, d.attempt_count, d.created_at, w.url, w.format,
      w.sealed_url, w.secret, w.previous_secret, w.previous_secret_expires_at, w.active, w.verified, w.failing_since
  `)) as unknown as { rows: Record<string, unknown>[] };
  return result.rows.map((r) => ({
    id: String(r.id),
    webhookId: String(r.webhook_id),
    owner: String(r.owner),
    ownsVault: Boolean(r.owns),
    event: String(r.event),
    payload: String(r.payload),
    attempt: Number(r.attempt_count),
    createdAt: toDate(r.created_at)!,
    url: String(r.url),
    format: String(r.format) as WebhookFormat,
    sealedUrl: (r.sealed_url as string | null) ?? null,
    secret: String(r.secret),
    previousSecret: (r.previous_secret as string | null) ?? null,
    previousSecretExpiresAt: toDate(r.previous_secret_expires_at),
    active: Boolean(r.active),
    verified: Boolean(r.verified),
    failingSince: toDate(r.failing_since),
  }));
}

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
  const current = (await db.execute(sql`
    select id, failing_since, active from webhooks where id in (${sql.join(
      ids.map((id) => sql`${id}::uuid`),
      sql`, `,
    )})
    order by id for no key update
  `)) as unknown as { rows: { id: string; failing_since: unknown; active: boolean }[] };
  for (const row of current.rows) {
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
