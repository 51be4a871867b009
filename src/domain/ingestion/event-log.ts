// The raw side of applying a batch: the applied-signature marks (idempotence) and the event log.
// Rows travel as one JSON parameter expanded by json_to_recordset: one short statement however
// large the batch, instead of thousands of bind parameters.
import { sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../storage/database.js';
import { takeFeedWriteLock } from '../live-feed/live-feed.js';
import type { ChainTransaction } from './types.js';

/** One JSON text of rows: bigints as decimal strings, dates as ISO text. */
export const jsonRows = (rows: readonly object[]): string =>
  JSON.stringify(rows, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));

/** Marks the batch applied; returns the transactions not applied before, in order. */
export async function markApplied(tx: Tx, batch: readonly ChainTransaction[]): Promise<ChainTransaction[]> {
  const rows = batch.map((t) => ({
    signature: t.signature,
    slot: t.slot,
    block_time: t.blockTime,
    failed: t.failed,
    event_count: t.events.length,
    truncated: t.truncated,
  }));
  const inserted = await queryRows<{ signature: string }>(
    tx,
    sql`
      insert into chain_signatures (signature, slot, block_time, failed, event_count, truncated)
      select r.signature, r.slot, r.block_time, r.failed, r.event_count, r.truncated
      from json_to_recordset(${jsonRows(rows)}::json) as r(
        signature text, slot bigint, block_time timestamptz, failed boolean, event_count int, truncated boolean)
      on conflict do nothing
      returning signature`,
  );
  const fresh = new Set(inserted.map((r) => r.signature));
  const seen = new Set<string>();
  // A signature listed twice in one batch counts once.
  return batch.filter((t) => fresh.has(t.signature) && !seen.has(t.signature) && seen.add(t.signature));
}

/** Every decoded event, projected or not (unknown ones raw), exactly once per (signature, index). */
export async function insertEvents(tx: Tx, fresh: readonly ChainTransaction[]): Promise<void> {
  const rows = fresh.flatMap((t) =>
    t.events.map((event) => ({
      signature: t.signature,
      event_index: event.index,
      slot: t.slot,
      block_time: t.blockTime,
      name: event.name,
      instruction: event.instruction,
      vault_address: event.name !== 'Unknown' && 'vault' in event.data ? event.data.vault : null,
      data:
        event.name === 'Unknown'
          ? {
              discriminator: event.discriminator,
              raw: event.raw,
              ...(event.error ? { error: event.error } : {}),
            }
          : event.data,
      // Kept for the record; of a failed transaction only TransactionBlocked is projected.
      transaction_failed: t.failed,
    })),
  );
  if (rows.length === 0) return;
  // Before drawing ids: the live feed waits for holders of this lock before passing their ids.
  await tx.execute(takeFeedWriteLock());
  await tx.execute(sql`
    insert into chain_events
      (signature, event_index, slot, block_time, name, instruction, vault_address, data, transaction_failed)
    select r.signature, r.event_index, r.slot, r.block_time, r.name, r.instruction, r.vault_address, r.data,
           r.transaction_failed
    from json_to_recordset(${jsonRows(rows)}::json) as r(
      signature text, event_index int, slot bigint, block_time timestamptz, name text, instruction text,
      vault_address text, data jsonb, transaction_failed boolean)
    on conflict do nothing`);
}
