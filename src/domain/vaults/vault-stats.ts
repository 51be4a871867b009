// The vault row's transaction counters (transaction_count, executed_count, blocked_count,
// total_volume): maintained in the transaction that writes transactions, so list items, detail
// stats and pagination totals never aggregate a vault's history per request.
import { sql } from 'drizzle-orm';
import type { Queryable } from '../../storage/database.js';
import type { TransactionStatus } from '../../storage/schema/transactions.js';

/**
 * One change to a vault's transactions. `previousStatus` is null for a newly inserted row, or the
 * status a row had before an update (an approved override's `pending` transfer that became `executed`).
 */
export interface TransactionStatsChange {
  readonly vaultId: string;
  readonly previousStatus: TransactionStatus | null;
  readonly status: TransactionStatus;
  readonly amount: bigint;
}

interface Delta {
  transactions: number;
  executed: number;
  blocked: number;
  volume: bigint;
}

/**
 * Applies changes to the counters, one UPDATE per vault. Call it inside the database transaction
 * that inserted or updated the rows, and only for rows actually written (not for an
 * `on conflict do nothing` that skipped a replayed event).
 */
export async function recordTransactionStats(
  db: Queryable,
  changes: readonly TransactionStatsChange[],
): Promise<void> {
  const byVault = new Map<string, Delta>();
  for (const change of changes) {
    const delta = byVault.get(change.vaultId) ?? { transactions: 0, executed: 0, blocked: 0, volume: 0n };
    if (change.previousStatus === null) delta.transactions += 1;
    else applyStatus(delta, change.previousStatus, change.amount, -1);
    applyStatus(delta, change.status, change.amount, 1);
    byVault.set(change.vaultId, delta);
  }
  for (const [vaultId, delta] of byVault) {
    if (delta.transactions === 0 && delta.executed === 0 && delta.blocked === 0 && delta.volume === 0n)
      continue;
    await db.execute(sql`
      update vaults set
        transaction_count = transaction_count + ${delta.transactions},
        executed_count = executed_count + ${delta.executed},
        blocked_count = blocked_count + ${delta.blocked},
        total_volume = total_volume + ${delta.volume.toString()}::numeric
      where id = ${vaultId}
    `);
  }
}

function applyStatus(delta: Delta, status: TransactionStatus, amount: bigint, sign: 1 | -1): void {
  if (status === 'executed') {
    delta.executed += sign;
    delta.volume += sign === 1 ? amount : -amount;
  } else if (status === 'blocked') {
    delta.blocked += sign;
  }
}

/**
 * Recomputes the counters from the transactions table (repair, bulk loads). Pass vault ids to limit
 * it to those vaults (each read through the (vault_id, …) index), or nothing for every vault.
 */
export async function rebuildVaultStats(db: Queryable, vaultIds?: readonly string[]): Promise<void> {
  if (vaultIds !== undefined && vaultIds.length === 0) return;
  const ids =
    vaultIds === undefined
      ? null
      : sql.join(
          vaultIds.map((id) => sql`${id}::uuid`),
          sql`, `,
        );
  await db.execute(sql`
    with s as (
      select vault_id,
             count(*) as transaction_count,
             count(*) filter (where status = 'executed') as executed_count,
             count(*) filter (where status = 'blocked') as blocked_count,
             coalesce(sum(amount) filter (where status = 'executed'), 0) as total_volume
      from transactions
      ${ids === null ? sql`` : sql`where vault_id in (${ids})`}
      group by vault_id
    )
    update vaults v set
      transaction_count = coalesce(s.transaction_count, 0),
      executed_count = coalesce(s.executed_count, 0),
      blocked_count = coalesce(s.blocked_count, 0),
      total_volume = coalesce(s.total_volume, 0)
    from vaults target left join s on s.vault_id = target.id
    where target.id = v.id ${ids === null ? sql`` : sql`and target.id in (${ids})`}
  `);
}
