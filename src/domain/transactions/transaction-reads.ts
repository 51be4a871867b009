// Public transaction reads: lists newest first (timestamp desc, then id) and the detail by id or signature.

import type { ReadCache } from '../../cache/read-cache.js';
import { CACHE_TTL, CROSS_VAULT_TAG, vaultTag } from '../../cache/tags.js';
import { AppError, validationError } from '../../errors.js';
import {
  isPastEnd,
  type PageRequest,
  type Pagination,
  pageOffset,
  toPageRequest,
  toPagination,
} from '../../lib/pagination.js';
import { isUuid } from '../../lib/uuid.js';
import type { Storage } from '../../storage/database.js';
import type { TransactionStatus } from '../../storage/schema/transactions.js';
import { vaultNotFound } from '../vaults/vault-reads.js';
import { createTransactionQueries, type TransactionCounters } from './transaction-queries.js';
import {
  type TransactionDetail,
  type TransactionLinks,
  type TransactionRecord,
  type TransactionResource,
  toTransactionDetail,
  toTransactionResource,
} from './transaction-resource.js';

export interface TransactionListQuery {
  vault?: string | undefined;
  status?: TransactionStatus | undefined;
  page?: number | undefined;
  limit?: number | undefined;
}

export interface TransactionList {
  transactions: TransactionResource[];
  pagination: Pagination;
}

export interface TransactionReadDeps {
  readonly storage: Storage;
  readonly readCache: ReadCache;
  readonly links: TransactionLinks;
}

/** How many transactions of a status the maintained counters hold (pending = the rest). */
function totalOf(counters: TransactionCounters, status: TransactionStatus | undefined): number {
  if (status === 'executed') return counters.executedCount;
  if (status === 'blocked') return counters.blockedCount;
  if (status === 'pending') return counters.transactionCount - counters.executedCount - counters.blockedCount;
  return counters.transactionCount;
}

export function createTransactionReadService(deps: TransactionReadDeps) {
  const { readCache, links } = deps;
  const queries = createTransactionQueries(deps.storage);

  const toList = (records: TransactionRecord[], request: PageRequest, total: number): TransactionList => ({
    transactions: records.map((record) => toTransactionResource(record, links)),
    pagination: toPagination(request, total),
  });

  async function loadList(query: TransactionListQuery, request: PageRequest): Promise<TransactionList> {
    const window = { limit: request.limit, offset: pageOffset(request) };
    if (query.vault !== undefined) {
      const page = await queries.vaultPage(query.vault, query.status, window);
      if (page === null) throw vaultNotFound(query.vault);
      return toList(page.records, request, totalOf(page.counters, query.status));
    }
    const counters = await queries.countAll();
    const total = totalOf(counters, query.status);
    const records = isPastEnd(request, total) ? [] : await queries.page(query.status, window, counters);
    return toList(records, request, total);
  }

  async function loadDetail(key: string, index: number | undefined): Promise<TransactionDetail> {
    const byId = isUuid(key);
    if (byId && index !== undefined) {
      throw validationError([{ path: 'query.index', message: 'applies to a signature, not an id' }]);
    }
    const record = byId ? await queries.byId(key) : await queries.bySignature(key, index);
    if (record === null) {
      throw new AppError(
        'TRANSACTION_NOT_FOUND',
        'Transaction not found',
        byId ? { id: key } : { signature: key, ...(index === undefined ? {} : { index }) },
      );
    }
    return toTransactionDetail(record, links);
  }

  const listKey = (query: TransactionListQuery, request: PageRequest) =>
    `transactions:${query.vault ?? '*'}:${query.status ?? '*'}:${request.page}:${request.limit}`;
  const listTags = (query: TransactionListQuery) => [
    query.vault === undefined ? CROSS_VAULT_TAG : vaultTag(query.vault),
  ];

  return {
    /** Transactions newest first, optionally of one vault (unknown: VAULT_NOT_FOUND) and one status. */
    listTransactions(query: TransactionListQuery): Promise<TransactionList> {
      const request = toPageRequest(query);
      const tags = listTags(query);
      return readCache.read(
        listKey(query, request),
        CACHE_TTL.transactionList,
        () => tags,
        () => loadList(query, request),
      );
    },

    /** listTransactions as the response body `serialize` makes of it, cached as those bytes. */
    listTransactionsBody(
      query: TransactionListQuery,
      serialize: (list: TransactionList) => string,
    ): Promise<Buffer> {
      const request = toPageRequest(query);
      const tags = listTags(query);
      return readCache.readBody(
        listKey(query, request),
        CACHE_TTL.transactionList,
        () => tags,
        () => loadList(query, request),
        serialize,
      );
    },

    /**
     * A transfer by a list item's id, or by signature: the first by event index, or the one at event
     * index `index` (signatures only).
     */
    getTransaction(key: string, index?: number): Promise<TransactionDetail> {
      return readCache.read(
        `transaction:${key}:${index ?? 'first'}`,
        CACHE_TTL.transactionList,
        (transaction) => [vaultTag(transaction.vault)],
        () => loadDetail(key, index),
      );
    },
  };
}

export type TransactionReadService = ReturnType<typeof createTransactionReadService>;
