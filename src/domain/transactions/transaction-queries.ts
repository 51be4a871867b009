// The transaction read queries, as named prepared statements (one per filter combination, each
// served by its own index in newest-first order).
import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import type { Storage } from '../../storage/database.js';
import { prepareRows } from '../../storage/prepared-rows.js';
import { overrides } from '../../storage/schema/overrides.js';
import { type TransactionStatus, transactions } from '../../storage/schema/transactions.js';
import { vaults } from '../../storage/schema/vaults.js';
import { createPageAnchors, type PageAnchors } from './page-anchors.js';
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
  commitment: transactions.commitment,
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
    commitment: row.commitment,
    timestamp: row.ts,
    overrideNonce: row.nonce,
    overrideTransfer: row.override_transfer,
  };
}

/** The stamp a list's anchors hold under: the counters that change whenever its rows do. */
const stampOf = (counters: TransactionCounters) =>
  `${counters.transactionCount}:${counters.executedCount}:${counters.blockedCount}`;

const countersOf = (row: VaultPageRow): TransactionCounters => ({
  transactionCount: Number(row.transaction_count),
  executedCount: Number(row.executed_count),
  blockedCount: Number(row.blocked_count),
});

/** A vault page's transaction rows (a vault without rows in the window comes back once, all null). */
function pageRowsOf(rows: VaultPageRow[]): PageRow[] {
  const found: PageRow[] = [];
  for (const row of rows) {
    if (row.id === null || row.destination === null || row.amount === null) continue;
    if (row.status === null || row.ts === null || row.key_ts === null) continue;
    found.push(row as PageRow);
  }
  return found;
}

const shapeOf = (status: TransactionStatus | undefined, offset: number, anchored: boolean): PageShape => ({
  byStatus: status !== undefined,
  deferred: offset > 0,
  anchored,
});

/** One prepared page statement per shape, across every vault and of one vault. */
function preparePages(storage: Storage) {
  const suffix = (shape: PageShape) =>
    `${shape.byStatus ? '_status' : ''}${shape.deferred ? '_deferred' : ''}${shape.anchored ? '_anchored' : ''}`;
  const shapes = [false, true].flatMap((byStatus) =>
    [false, true].flatMap((deferred) => [false, true].map((anchored) => ({ byStatus, deferred, anchored }))),
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
  return {
    page: (shape: PageShape) => pages.get(suffix(shape))!.all,
    vaultPage: (shape: PageShape) => pages.get(suffix(shape))!.vault,
  };
}

/** The counters summed over every vault. */
function prepareCounterSums(db: Storage['db']) {
  return db
    .select({
      transactionCount: sql<number>`coalesce(sum(${vaults.transactionCount}), 0)`.mapWith(Number),
      executedCount: sql<number>`coalesce(sum(${vaults.executedCount}), 0)`.mapWith(Number),
      blockedCount: sql<number>`coalesce(sum(${vaults.blockedCount}), 0)`.mapWith(Number),
    })
    .from(vaults)
    .prepare('vk_transactions_counters');
}

/** The first transfer (by event index) that `where` matches, with its vault and override. */
async function firstRecord(db: Storage['db'], where: SQL | undefined): Promise<TransactionRecord | null> {
  const [record] = await db
    .select(recordColumns)
    .from(transactions)
    .innerJoin(vaults, eq(vaults.id, transactions.vaultId))
    .leftJoin(overrides, eq(overrides.id, transactions.overrideId))
    .where(where)
    .orderBy(asc(transactions.eventIndex), asc(transactions.id))
    .limit(1);
  return record ?? null;
}

export function createTransactionQueries(storage: Storage, anchors: PageAnchors = createPageAnchors()) {
  const { db } = storage;
  /** After a page is read: its last row is the anchor of the position that follows it. */
  const rememberEnd = (list: string, stamp: string, offset: number, rows: readonly PageRow[]) => {
    const last = rows.at(-1);
    if (last === undefined) return;
    anchors.remember(list, stamp, { position: offset + rows.length, timestamp: last.key_ts, id: last.id });
  };
  const statements = { ...preparePages(storage), counters: prepareCounterSums(db) };

  return {
    /** The counters summed over every vault. */
    async countAll(): Promise<TransactionCounters> {
      const [counters] = await statements.counters.execute();
      return counters!;
    },

    /**
     * A page across every vault, newest first; `counters` are the current sums (countAll), under
     * which anchors of this list hold.
     */
    async page(
      status: TransactionStatus | undefined,
      window: PageWindow,
      counters: TransactionCounters,
    ): Promise<TransactionRecord[]> {
      const list = `*|${status ?? ''}`;
      const stamp = stampOf(counters);
      const known = window.offset > 0 ? anchors.nearest(list, window.offset) : undefined;
      let rows: PageRow[];
      if (known !== undefined && known.stamp === stamp) {
        const offset = window.offset - known.anchor.position;
        const values: unknown[] = [window.limit, offset, known.anchor.timestamp, known.anchor.id];
        if (status !== undefined) values.push(status);
        rows = await statements.page(shapeOf(status, offset, true))(values);
      } else {
        const values: unknown[] = [window.limit, window.offset];
        if (status !== undefined) values.push(status);
        rows = await statements.page(shapeOf(status, window.offset, false))(values);
      }
      rememberEnd(list, stamp, window.offset, rows);
      return rows.map(toRecord);
    },

    /** A page of one vault with the vault's counters, or null when there is no such vault. */
    async vaultPage(
      address: string,
      status: TransactionStatus | undefined,
      window: PageWindow,
    ): Promise<{ counters: TransactionCounters; records: TransactionRecord[] } | null> {
      const list = `${address}|${status ?? ''}`;
      const known = window.offset > 0 ? anchors.nearest(list, window.offset) : undefined;
      const withStatus = (values: unknown[]) => (status === undefined ? values : [...values, status]);
      let rows: VaultPageRow[] | undefined;
      if (known !== undefined) {
        const offset = window.offset - known.anchor.position;
        const { timestamp, id } = known.anchor;
        const stamp = known.stamp.split(':').map(Number);
        const values = withStatus([address, window.limit, offset, timestamp, id, ...stamp]);
        rows = await statements.vaultPage(shapeOf(status, offset, true))(values);
        // The vault changed since the anchor was read: read by offset, as if it were never known.
        if (rows[0] !== undefined && stampOf(countersOf(rows[0])) !== known.stamp) {
          anchors.forget(list);
          rows = undefined;
        }
      }
      rows ??= await statements.vaultPage(shapeOf(status, window.offset, false))(
        withStatus([address, window.limit, window.offset]),
      );
      const [first] = rows;
      if (first === undefined) return null;
      const counters = countersOf(first);
      const found = pageRowsOf(rows);
      rememberEnd(list, stampOf(counters), window.offset, found);
      return { counters, records: found.map(toRecord) };
    },

    /** The transfer of a signature at an event index, or its first by event index. */
    async bySignature(signature: string, index: number | undefined): Promise<TransactionRecord | null> {
      const matches = eq(transactions.signature, signature);
      return firstRecord(
        db,
        index === undefined ? matches : and(matches, eq(transactions.eventIndex, index)),
      );
    },

    /** The transfer of a record id (what a list item's `id` names). */
    byId(id: string): Promise<TransactionRecord | null> {
      return firstRecord(db, eq(transactions.id, id));
    },
  };
}
