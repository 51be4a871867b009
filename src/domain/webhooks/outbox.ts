// The outbox: deliveries are enqueued inside the caller's transaction, so an event and its
// notifications commit (or roll back) together, and a replayed cause enqueues nothing twice.
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Queryable } from '../../storage/database.js';
import type { WebhookEvent } from './webhook-events.js';

/** NOTIFY channel that wakes delivery workers when rows are enqueued (delivered at commit). */
export const DELIVERY_CHANNEL = 'vaultkeeper_deliveries';

export interface OutboxEvent {
  event: WebhookEvent;
  /** The vault the event is about (matches vault subscriptions and its owner's all-vault ones). */
  vaultId: string;
  /** The vault's authority (owner), for subscriptions that cover all of the owner's vaults. */
  authority: string;
  /** When the event happened (ISO text with milliseconds). */
  timestamp: string;
  data: Record<string, unknown>;
  /** Identifies the cause (e.g. `<signature>:<eventIndex>:<event>`); the same key never enqueues twice. */
  dedupeKey: string;
}

type WriteResult = { rowCount?: number | null; affectedRows?: number };

/**
 * The payload text after `{"id":"<uuid>",`: JSON.stringify({id, event, timestamp, data}) is exactly
 * `{"id":"<id>",` + this, so SQL can prefix each row's own id and the text stays byte-identical.
 */
function payloadTail(event: string, timestamp: string, data: Record<string, unknown>): string {
  return JSON.stringify({ event, timestamp, data }).slice(1);
}

/** Writes one pending delivery per active, verified matching subscription (an unconfirmed address gets nothing, not even later); returns how many were written. */
export async function enqueueWebhookEvent(db: Queryable, input: OutboxEvent): Promise<number> {
  const tail = payloadTail(input.event, input.timestamp, input.data);
  const result = (await db.execute(sql`
    with matching as (
      select id as webhook_id, gen_random_uuid() as id from webhooks
      where active and verified
        and ${input.event} = any(events)
        and (vault_id = ${input.vaultId} or (vault_id is null and owner = ${input.authority}))
    )
    insert into webhook_deliveries (id, webhook_id, event, payload, dedupe_key)
    select id, webhook_id, ${input.event}, '{"id":"' || id::text || '",' || ${tail}, ${input.dedupeKey}
    from matching
    on conflict (webhook_id, dedupe_key) do nothing
  `)) as unknown as WriteResult;
  const written = Number(result.rowCount ?? result.affectedRows ?? 0);
  if (written > 0) await notifyDeliveryWorkers(db);
  return written;
}

/** Enqueues one delivery for one subscription regardless of its event filter (the test event). */
export async function enqueueDelivery(
  db: Queryable,
  input: { webhookId: string; event: string; timestamp: string; data: Record<string, unknown> },
): Promise<string> {
  const id = randomUUID();
  const payload = JSON.stringify({ id, event: input.event, timestamp: input.timestamp, data: input.data });
  await db.execute(sql`
    insert into webhook_deliveries (id, webhook_id, event, payload)
    values (${id}, ${input.webhookId}, ${input.event}, ${payload})
  `);
  await notifyDeliveryWorkers(db);
  return id;
}

/** Wakes listening workers at commit; polling covers backends or moments without a listener. */
export async function notifyDeliveryWorkers(db: Queryable): Promise<void> {
  await db.execute(sql`select pg_notify(${DELIVERY_CHANNEL}, '')`);
}
