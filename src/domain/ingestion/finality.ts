// Finality of applied signatures: which are still only `confirmed`, and moving them to `finalized`
// (chain_signatures and the transaction rows they wrote, together). Dropping one is drop-signature.ts.
import { sql } from 'drizzle-orm';
import { type Queryable, queryRows } from '../../storage/database.js';

/** An applied signature the cluster has not finalized yet (as far as we know). */
export interface UnfinalizedSignature {
  readonly signature: string;
  readonly slot: number;
}

/** Signatures still `confirmed` at or below `maxSlot`, oldest slot first (the partial index's order). */
export async function listUnfinalized(
  db: Queryable,
  options: { maxSlot: number; limit: number },
): Promise<UnfinalizedSignature[]> {
  const rows = await queryRows<{ signature: string; slot: number | string }>(
    db,
    sql`
      select signature, slot from chain_signatures
      where commitment = 'confirmed' and slot <= ${options.maxSlot}
      order by slot
      limit ${options.limit}`,
  );
  return rows.map((r) => ({ signature: r.signature, slot: Number(r.slot) }));
}

/** Signatures still `confirmed` in one slot (a slot reported dead, or finalized, by a stream). */
export async function listUnfinalizedInSlot(db: Queryable, slot: number): Promise<string[]> {
  const rows = await queryRows<{ signature: string }>(
    db,
    sql`select signature from chain_signatures where commitment = 'confirmed' and slot = ${slot}`,
  );
  return rows.map((r) => r.signature);
}

/**
 * Marks signatures and their transaction rows `finalized`; returns how many signatures moved and the
 * vaults whose transactions changed (their cached lists show the old commitment).
 */
export async function markFinalized(
  db: Queryable,
  signatures: readonly string[],
): Promise<{ moved: number; vaults: string[] }> {
  if (signatures.length === 0) return { moved: 0, vaults: [] };
  const list = JSON.stringify(signatures);
  const moved = await queryRows<{ signature: string }>(
    db,
    sql`
      update chain_signatures set commitment = 'finalized'
      where commitment = 'confirmed'
        and signature in (select value from json_array_elements_text(${list}::json))
      returning signature`,
  );
  const vaults = await queryRows<{ address: string }>(
    db,
    sql`
      with changed as (
        update transactions set commitment = 'finalized'
        where commitment = 'confirmed'
          and signature in (select value from json_array_elements_text(${list}::json))
        returning vault_id)
      select distinct v.address from changed c join vaults v on v.id = c.vault_id`,
  );
  return { moved: moved.length, vaults: vaults.map((v) => v.address) };
}

/** What is not final yet: how many signatures, and when the oldest of them was applied. */
export async function readUnfinalizedStats(
  db: Queryable,
): Promise<{ count: number; oldestAppliedAt: Date | null }> {
  const [row] = await queryRows<{ count: number | string; oldest: Date | string | null }>(
    db,
    sql`
      select count(*) as count, min(processed_at) as oldest
      from chain_signatures where commitment = 'confirmed'`,
  );
  return {
    count: Number(row?.count ?? 0),
    oldestAppliedAt: row?.oldest == null ? null : new Date(row.oldest),
  };
}

/** The vault addresses a signature's stored events name (read before a drop, to re-read their accounts). */
export async function findSignatureVaults(db: Queryable, signature: string): Promise<string[]> {
  const rows = await queryRows<{ vault_address: string }>(
    db,
    sql`
      select distinct vault_address from chain_events
      where signature = ${signature} and vault_address is not null`,
  );
  return rows.map((r) => r.vault_address);
}
