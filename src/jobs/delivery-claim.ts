// Claiming due deliveries: one statement that leases them (FOR UPDATE SKIP LOCKED) within the fair
// shares of delivery-fairness.ts, for the worker's slots or for the slow lane.
import { type SQL, sql } from 'drizzle-orm';
import type { WebhookFormat } from '../domain/webhooks/chat/destination.js';
import { type Database, queryRows } from '../storage/database.js';
import { type ClaimedDelivery, commitMode, toDate } from './delivery.js';
import {
  type FairShareCaps,
  type HeldSlots,
  ownerCap,
  WORTH_LEVELS,
  WORTH_THRESHOLDS,
} from './delivery-fairness.js';
import type { Lane } from './receiver-health.js';

/**
 * How many due rows a claim looks at for each one it may take: room to rotate across subscriptions.
 * Only the rows it takes are locked (SKIP LOCKED, with the due conditions checked again on the
 * locked row), so concurrent workers do not skip each other's unclaimed candidates.
 */
const CANDIDATES_PER_SLOT = 4;

/** The receiver a subscription sends to, as the slow lane keys it: owner and lower-cased URL origin. */
const receiverOf = sql`w.owner || ' ' || lower(coalesce(substring(w.url from '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*'), w.url))`;

/** An owner's worth level (see delivery-fairness.ts) from its vaults' count `n`, `oldest` and `executed`. */
function worthLevelSql(now: string): SQL {
  const days = sql`extract(epoch from (${now}::timestamptz - v.oldest)) / 86400`;
  const reached = (value: SQL, steps: readonly number[]) =>
    sql.join(
      steps.map((step) => sql`(${value} >= ${step})::int`),
      sql` + `,
    );
  return sql`case when v.n = 0 then -1 else greatest(${reached(days, WORTH_THRESHOLDS.ageDays)},
    ${reached(sql`v.executed`, WORTH_THRESHOLDS.executedTransfers)}) end`;
}

export interface ClaimInput {
  now: Date;
  limit: number;
  leaseMs: number;
  asyncCommit: boolean;
  caps?: FairShareCaps;
  held?: HeldSlots;
  /** `fast` (default): deliveries to receivers not in `slow`; `slow`: one for each idle receiver in it. */
  lane?: Lane;
  /** Receivers in the slow lane. */
  slow?: readonly string[];
  /** Owners of a vault whose receivers answer: the top share whatever their worth. */
  trusted?: readonly string[];
}

/**
 * Leases up to `limit` due deliveries in one statement; a crashed holder's lease simply runs out.
 * Fair: subscriptions and owners this worker already holds at their cap are skipped, the rest get at
 * most their remaining share (an owner's by its vaults' worth), and the batch takes one delivery of
 * each in turn (owners first). Wallets that own no indexed vault have a smaller cap each and one pool
 * together; when the pool is full their rows are not even candidates, so they cannot crowd owners'
 * rows out of the window. Slow receivers' rows are never candidates of the fast lane.
 */
export async function claimDueDeliveries(db: Database, input: ClaimInput): Promise<ClaimedDelivery[]> {
  const now = input.now.toISOString();
  const leaseUntil = new Date(input.now.getTime() + input.leaseMs).toISOString();
  const caps = input.caps ?? unlimitedCaps(input.limit);
  const held = input.held ?? { subscriptions: [], owners: [], withoutVault: 0, fast: 0, slowReceivers: [] };
  const lane = input.lane ?? 'fast';
  const poolRoom = Math.max(0, caps.withoutVault - held.withoutVault);
  const ownsVault = sql`exists (select 1 from vaults v where v.authority = w.owner)`;
  const slow = JSON.stringify(input.slow ?? []);
  const busy = JSON.stringify(held.slowReceivers);
  // Subscriptions going to a slow receiver, found through their owners (an index), not per queued row.
  const laneFilter =
    lane === 'fast'
      ? sql`d.webhook_id not in (select id from slow_subs)`
      : sql`d.webhook_id in (select id from slow_subs where receiver not in (select value from json_array_elements_text(${busy}::json)))`;
  const topCap = ownerCap(caps, WORTH_LEVELS.length);
  const trusted = JSON.stringify(input.trusted ?? []);
  const ownerCapByLevel = sql`case w.level ${sql.join(
    caps.perOwnerByLevel.map((cap, level) => sql`when ${level}::int then ${cap}::int`),
    sql` `,
  )} when -1 then ${caps.perWalletWithoutVault}::int else ${topCap}::int end`;
  const ownerCapSql = sql`case when w.level >= 0 and b.owner in (select value from json_array_elements_text(${trusted}::json))
    then ${topCap}::int else ${ownerCapByLevel} end`;
  const claim = sql`
    with commit_mode as (select ${commitMode(input.asyncCommit)}),
    held_subs as (
      select * from json_to_recordset(${JSON.stringify(held.subscriptions)}::json) as h(id uuid, n int)
    ),
    slow_keys as (select value as receiver from json_array_elements_text(${slow}::json)),
    slow_subs as (
      select w.id, ${receiverOf} as receiver from webhooks w
      where w.owner in (select split_part(receiver, ' ', 1) from slow_keys)
        and ${receiverOf} in (select receiver from slow_keys)
    ),
    held_owners as (
      select * from json_to_recordset(${JSON.stringify(held.owners)}::json) as h(owner text, n int, "full" boolean)
    ),
    candidates as (
      select d.id, d.webhook_id, w.owner, d.next_attempt_at, ${receiverOf} as receiver
      from webhook_deliveries d
      join webhooks w on w.id = d.webhook_id
      where d.status = 'pending'
        and d.next_attempt_at <= ${now}::timestamptz
        and (d.locked_until is null or d.locked_until <= ${now}::timestamptz)
        and d.webhook_id not in (select id from held_subs where n >= ${caps.perSubscription})
        and w.owner not in (select owner from held_owners where "full")
        and (${poolRoom > 0}::boolean or ${ownsVault})
        and ${laneFilter}
      order by d.next_attempt_at
      limit ${input.limit * CANDIDATES_PER_SLOT}
    ),
    worth as (
      select o.owner, ${worthLevelSql(now)} as level
      from (select distinct owner from candidates) o
      cross join lateral (
        select count(*) as n, min(created_at) as oldest, coalesce(sum(executed_count), 0) as executed
        from vaults where authority = o.owner
      ) v
    ),
    by_subscription as (
      select c.*, coalesce(hs.n, 0)
        + row_number() over (partition by c.webhook_id order by c.next_attempt_at, c.id) as sub_slot,
        row_number() over (partition by c.receiver order by c.next_attempt_at, c.id) as receiver_slot
      from candidates c left join held_subs hs on hs.id = c.webhook_id
    ),
    by_owner as (
      select b.id, b.receiver, w.level, ${ownerCapSql} as owner_cap, b.next_attempt_at, coalesce(ho.n, 0)
        + row_number() over (partition by b.owner order by b.sub_slot, b.next_attempt_at, b.id) as owner_slot
      from by_subscription b
      join worth w on w.owner = b.owner
      left join held_owners ho on ho.owner = b.owner
      where b.sub_slot <= ${caps.perSubscription} and (${lane === 'fast'}::boolean or b.receiver_slot = 1)
    ),
    by_class as (
      select o.*, row_number() over (partition by o.level >= 0 order by o.owner_slot, o.next_attempt_at, o.id) as class_slot
      from by_owner o
      where o.owner_slot <= o.owner_cap
    ),
    due as (
      select d.id, b.level, b.owner_cap, b.receiver from webhook_deliveries d
      join by_class b on b.id = d.id
      where (b.level >= 0 or b.class_slot <= ${poolRoom}::int)
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
    returning d.id, d.webhook_id, w.owner, due.level, due.owner_cap, due.receiver, d.event, d.payload,
      d.attempt_count, d.created_at, w.url, w.format, w.sealed_url, w.secret, w.previous_secret,
      w.previous_secret_expires_at, w.active, w.verified, w.failing_since
  `;
  return (await queryRows(db, claim)).map((r) => toClaimed(r, lane));
}

/** Caps that never bind: a claim without fairness (tests of the queue itself). */
function unlimitedCaps(limit: number): FairShareCaps {
  return {
    perSubscription: limit,
    perOwnerByLevel: WORTH_LEVELS.map(() => limit),
    perWalletWithoutVault: limit,
    withoutVault: limit,
    slowLane: limit,
  };
}

function toClaimed(r: Record<string, unknown>, lane: Lane): ClaimedDelivery {
  return {
    id: String(r.id),
    webhookId: String(r.webhook_id),
    owner: String(r.owner),
    ownsVault: Number(r.level) >= 0,
    ownerCap: Number(r.owner_cap),
    receiver: String(r.receiver),
    lane,
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
  };
}
