// SQL of the transaction list pages, newest first (timestamp desc, then id desc), each filter served
// by its own index. Numbers and times come back as text, ready for the API.

import { isoTimestamp } from '../../storage/prepared-rows.js';
import type { Commitment, TransactionStatus } from '../../storage/schema/transactions.js';

/** A page row as the SQL returns it. */
export interface PageRow {
  id: string;
  signature: string | null;
  vault_address: string;
  destination: string;
  amount: string;
  fee_collected: string | null;
  status: TransactionStatus;
  block_reason: string | null;
  commitment: Commitment;
  ts: string;
  /** The exact timestamp as PostgreSQL prints it: a keyset anchor's key (page-anchors.ts). */
  key_ts: string;
  nonce: string | null;
  override_transfer: string | null;
}

/** A vault page row: the vault's counters, then a transaction (its columns null when the window is empty). */
export type VaultPageRow = {
  [K in keyof PageRow]: K extends 'vault_address' ? string : PageRow[K] | null;
} & {
  transaction_count: number | string;
  executed_count: number | string;
  blocked_count: number | string;
};

export interface PageShape {
  /** Filter by status (one more parameter, last). */
  byStatus: boolean;
  /**
   * Later pages skip their offset on an index-only scan, then read the page's rows by id (a deferred
   * join): a direct scan would read every skipped row from the table. Page 1 reads directly.
   */
  deferred: boolean;
  /**
   * Seek past a keyset anchor (its timestamp and id) and count the offset from there: a deep page
   * skips only the rows between the nearest known anchor and its start.
   */
  anchored: boolean;
}

// The override's address is looked up only for rows that have one (few do), not joined for every row.
const columns = (vaultAddress: boolean) => `t.id, t.signature, t.destination, t.amount::text as amount,
  t.fee_collected::text as fee_collected, t.status, t.block_reason, t.commitment, ${isoTimestamp('t.timestamp')} as ts,
  t.timestamp::text as key_ts,
  case when t.override_id is not null
    then (select o.nonce::text from overrides o where o.id = t.override_id) end as nonce,
  case when t.override_id is not null
    then (select o.address_signature from overrides o where o.id = t.override_id) end as override_transfer
  ${vaultAddress ? ', (select v.address from vaults v where v.id = t.vault_id) as vault_address' : ''}`;

function window(
  where: string,
  limit: string,
  offset: string,
  shape: PageShape,
  vaultAddress: boolean,
): string {
  if (!shape.deferred) {
    return `
      select ${columns(vaultAddress)}
      from transactions t
      where ${where}
      order by t.timestamp desc, t.id desc
      limit ${limit} offset ${offset}`;
  }
  return `
    select ${columns(vaultAddress)}
    from (
      select t.id, t.timestamp from transactions t
      where ${where}
      order by t.timestamp desc, t.id desc
      limit ${limit} offset ${offset}
    ) page
    cross join lateral (select * from transactions t where t.id = page.id) t
    order by page.timestamp desc, page.id desc`;
}

/** After an anchor: rows whose (timestamp, id) sorts after it, newest first (one index range). */
const seek = (timestamp: string, id: string) =>
  `(t.timestamp, t.id) < (${timestamp}::timestamptz, ${id}::uuid)`;

/** Every vault's transactions: $1 limit, $2 offset[, $3 anchor timestamp, $4 anchor id], then status. */
export function pageSql(shape: PageShape): string {
  const filters = ['true'];
  let next = 3;
  if (shape.anchored) {
    filters.push(seek('$3', '$4'));
    next = 5;
  }
  if (shape.byStatus) filters.push(`t.status = $${next}`);
  return window(filters.join(' and '), '$1', '$2', shape, true);
}

/**
 * One vault's transactions in one round trip: the vault row (its counters give the total) and,
 * laterally, the window; a page past the vault's last transaction reads no index at all.
 * $1 vault address, $2 limit, $3 offset[, then anchored: $4 anchor timestamp, $5 anchor id and the
 * counters the anchor was read under, $6 transactions $7 executed $8 blocked], then status.
 * Anchored, the window is empty unless the vault's counters still equal those (the anchor holds).
 */
export function vaultPageSql(shape: PageShape): string {
  const filters = ['t.vault_id = v.id', '$3 < v.transaction_count'];
  let next = 4;
  if (shape.anchored) {
    filters.push(seek('$4', '$5'));
    filters.push('v.transaction_count = $6', 'v.executed_count = $7', 'v.blocked_count = $8');
    next = 9;
  }
  if (shape.byStatus) filters.push(`t.status = $${next}`);
  return `
    select v.address as vault_address, v.transaction_count, v.executed_count, v.blocked_count, p.*
    from vaults v
    left join lateral (${window(filters.join(' and '), '$2', '$3', shape, false)}) p on true
    where v.address = $1`;
}
