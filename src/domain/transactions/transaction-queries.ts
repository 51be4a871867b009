// The transaction read queries, as named prepared statements (one per filter combination, each
// served by its own index in newest-first order).
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Storage } from '../../storage/database.js';
import { overrides } from '../../storage/schema/overrides.js';
import { type TransactionStatus, transactions } from '../../storage/schema/transactions.js';
import { vaults } from '../../storage/schema/vaults.js';
import { prepareRows } from '../prepared-rows.js';
import {
  type PageRow,
  type PageShape,
  pageSql,
  type VaultPageRow,
  vaultPageSql,
} from './transaction-page-sql.js';
import type { TransactionRecord } from './transaction-resource.js';

/** The maintained counters of a vault (or their sums over every vault). */
export interface TransactionCounters {
  transactionCount: number;
  executedCount: number;
  blockedCount: number;
}

export type PageWindow = {
  limit: number;
  offset: number;
};

const recordColumns = {
  id: transactions.id,
  signature: transactions.signature,
  vaultAddress: vaults.address,
  destination: transactions.destination,
  amount: transactions.amount,
  feeCollected: transactions.feeCollected,
  status: transactions.status,
  blockReason: transactions.blockReason,
  timestamp: transactions.timestamp,
  overrideNonce: overrides.nonce,
  overrideTransfer: overrides.addressSignature,
};

function toRecord(row: PageRow): TransactionRecord {
  return {
    id: row.id,
    signature: row.signature,
    vaultAddress: row.vault_address,
    destination: row.destination,
    amount: row.amount,
    feeCollected: row.fee_collected,
    status: row.status,
    blockReason: row.block_reason,
    timestamp: row.ts,
    overrideNonce: row.nonce,
    overrideTransfer: row.override_transfer,
  };
}

export function createTransactionQueries(storage: Storage) {
  const { db } = storage;
  const shapeOf = (status: TransactionStatus | undefined, window: PageWindow): PageShape => ({
    byStatus: status !== undefined,
    deferred: window.offset > 0,
  });
  const suffix = (shape: PageShape) =>
    `${shape.byStatus ? '_status' : ''}${shape.deferred ? '_deferred' : ''}`;
  const shapes = [false, true].flatMap((byStatus) =>
    [false, true].map((deferred) => ({ byStatus, deferred })),
  );
  const pages = new Map(
    shapes.map((shape) => [
      suffix(shape),
      {
        all: prepareRows<PageRow>(storage, `vk_transactions_page${suffix(shape)}`, pageSql(shape)),
        vault: prepareRows<VaultPageRow>(
          storage,
          `vk_transactions_vault_page${suffix(shape)}`,
          vaultPageSql(shape),
        ),
      },
    ]),
  );
  const statements = {
    page: (shape: PageShape) => pages.get(suffix(shape))!.all,
    vaultPage: (shape: PageShape) => pages.get(suffix(shape))!.vault,
    counters: db
      .select({
        transactionCount: sql<number>`coalesce(sum(${vaults.transactionCount}), 0)`.mapWith(Number),
        executedCount: sql<number>`coalesce(sum(${vaults.executedCount}), 0)`.mapWith(Number),
        blockedCount: sql<number>`coalesce(sum(${vaults.blockedCount}), 0)`.mapWith(Number),
      })
      .from(vaults)
      .prepare('vk_transactions_counters'),
  };

  return {
    /** The counters summed over every vault. */
    async countAll(): Promise<TransactionCounters> {
      const [counters] = await statements.counters.execute();
      return counters!;
    },

    /** A page across every vault, newest first. */
    async page(status: TransactionStatus | undefined, window: PageWindow): Promise<TransactionRecord[]> {
      const values = [window.limit, window.offset, ...(status === undefined ? [] : [status])];
      const rows = await statements.page(shapeOf(status, window))(values);
      return rows.map(toRecord);
    },

    /** A page of one vault with the vault's counters, or null when there is no such vault. */
    async vaultPage(
      address: string,
      status: TransactionStatus | undefined,
      window: PageWindow,
    ): Promise<{ counters: TransactionCounters; records: TransactionRecord[] } | null> {
      const values = [address, window.limit, window.offset, ...(status === undefined ? [] : [status])];
      const rows = await statements.vaultPage(shapeOf(status, window))(values);
      const [first] = rows;
      if (first === undefined) return null;
      const records: TransactionRecord[] = [];
      for (const row of rows) {
        // A vault without rows in the window comes back once, with the page columns null.
        if (row.id === null || row.destination === null || row.amount === null) continue;
        if (row.status === null || row.ts === null) continue;
        records.push(
          toRecord({
            ...row,
            id: row.id,
            destination: row.destination,
            amount: row.amount,
            status: row.status,
            ts: row.ts,
          }),
        );
      }
      const counters = {
        transactionCount: Number(first.transaction_count),
        executedCount: Number(first.executed_count),
        blockedCount: Number(first.blocked_count),
      };
      return { counters, records };
    },

    /** The transfer of a signature at an event index, or its first by event index. */
    async bySignature(signature: string, index: number | undefined): Promise<TransactionRecord | null> {
      const matches = eq(transactions.signature, signature);
      const [record] = await db
        .select(recordColumns)
        .from(transactions)
        .innerJoin(vaults, eq(vaults.id, transactions.vaultId))
        .leftJoin(overrides, eq(overrides.id, transactions.overrideId))
        .where(index === undefined ? matches : and(matches, eq(transactions.eventIndex, index)))
        .orderBy(asc(transactions.eventIndex), asc(transactions.id))
        .limit(1);
      return record ?? null;
    },
  };
}
