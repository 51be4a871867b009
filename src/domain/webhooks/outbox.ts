// The outbox: deliveries are enqueued inside the caller's transaction, so an event and its
// notifications commit (or roll back) together, and a replayed cause enqueues nothing twice.
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Queryable } from '../../storage/database.js';
import type { WebhookEvent } from './events.js';

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

/** Writes one pending delivery per active matching subscription; returns how many were written. */
export async function enqueueWebhookEvent(db: Queryable, input: OutboxEvent): Promise<number> {
  const subscriptions = (await db.execute(sql`
    select id from webhooks
    where active
      and ${input.event} = any(events)
      and (vault_id = ${input.vaultId} or (vault_id is null and owner = ${input.authority}))
  `)) as unknown as { rows: { id: string }[] };
  let written = 0;
  for (const { id: webhookId } of subscriptions.rows) {
    const deliveryId = randomUUID();
    const payload = JSON.stringify({
      id: deliveryId,
      event: input.event,
      timestamp: input.timestamp,
      data: input.data,
    });
    const result = (await db.execute(sql`
      insert into webhook_deliveries (id, webhook_id, event, payload, dedupe_key)
      values (${deliveryId}, ${webhookId}, ${input.event}, ${payload}, ${input.dedupeKey})
      on conflict (webhook_id, dedupe_key) do nothing
    `)) as unknown as { rowCount?: number | null; affectedRows?: number };
    written += Number(result.rowCount ?? result.affectedRows ?? 0);
  }
  return written;
}
