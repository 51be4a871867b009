// Writing alerts: each is a mark (claimed first, so a second claim of the same alert writes nothing), a
// row of the live feed and the webhook outbox's deliveries, all in the caller's transaction.
import type { AlertEventName } from '@vaultkeeper/webhooks';
import { sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../storage/database.js';
import { jsonRows } from '../ingestion/event-log.js';
import { takeFeedWriteLock } from '../live-feed/live-feed.js';
import { enqueueWebhookEvent } from '../webhooks/outbox.js';

/** One alert to send, with the mark that makes it unique per vault. */
export interface AlertEvent {
  /** An alert, or a dropped transaction (the feed and webhooks carry both alike). */
  name: AlertEventName | 'transaction.dropped';
  vaultId: string;
  vault: string;
  authority: string;
  /** `budget:<last_reset>:<threshold>`, `expiring:<override id>`, `velocity:<unix time>` (see alert_marks). */
  mark: string;
  signature: string | null;
  slot: number | null;
  at: Date;
  data: Record<string, unknown>;
}

/** Claims the marks of `alerts` (those already claimed are dropped) and writes the rest; returns them. */
export async function claimAndWriteAlerts(tx: Tx, alerts: readonly AlertEvent[]): Promise<AlertEvent[]> {
  if (alerts.length === 0) return [];
  const claimed = await queryRows<{ vault_id: string; mark: string }>(
    tx,
    sql`
      insert into alert_marks (vault_id, mark, at)
      select r.vault_id, r.mark, r.at
      from json_to_recordset(${jsonRows(alerts.map((a) => ({ vault_id: a.vaultId, mark: a.mark, at: a.at })))}::json)
        as r(vault_id uuid, mark text, at timestamptz)
      on conflict do nothing
      returning vault_id, mark`,
  );
  const won = new Set(claimed.map((c) => `${c.vault_id}|${c.mark}`));
  const fresh = alerts.filter((a) => won.has(`${a.vaultId}|${a.mark}`));
  await writeAlerts(tx, fresh);
  return fresh;
}

/** Writes alerts already claimed: feed rows (under the feed's write lock) and webhook deliveries. */
export async function writeAlerts(tx: Tx, alerts: readonly AlertEvent[]): Promise<void> {
  if (alerts.length === 0) return;
  // Before drawing ids from the feed's sequence: the live feed waits for this lock's holders.
  await tx.execute(takeFeedWriteLock());
  const rows = alerts.map((a) => ({
    name: a.name,
    vault_address: a.vault,
    signature: a.signature,
    slot: a.slot,
    at: a.at,
    data: a.data,
  }));
  await tx.execute(sql`
    insert into alert_events (name, vault_address, signature, slot, at, data)
    select r.name, r.vault_address, r.signature, r.slot, r.at, r.data
    from json_to_recordset(${jsonRows(rows)}::json)
      as r(name text, vault_address text, signature text, slot bigint, at timestamptz, data jsonb)`);
  for (const a of alerts) {
    await enqueueWebhookEvent(tx, {
      event: a.name,
      vaultId: a.vaultId,
      authority: a.authority,
      timestamp: a.at.toISOString(),
      data: a.data,
      dedupeKey: `alert:${a.vaultId}:${a.mark}`,
    });
  }
}
