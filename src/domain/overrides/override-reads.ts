// Public override reads: lists newest first (createdAt desc, then id) and one override by (vault, nonce).
import { and, asc, count, desc, eq, gt, type SQL } from 'drizzle-orm';
import type { ReadCache } from '../../cache/read-cache.js';
import { CACHE_TTL, CROSS_VAULT_TAG, vaultTag } from '../../cache/tags.js';
import { AppError, validationError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { parseLamports } from '../../lib/lamports.js';
import {
  isPastEnd,
  type PageRequest,
  type Pagination,
  pageOffset,
  toPageRequest,
  toPagination,
} from '../../lib/pagination.js';
import type { Database } from '../../storage/database.js';
import { type OverrideStatus, overrides } from '../../storage/schema/overrides.js';
import { vaults } from '../../storage/schema/vaults.js';
import { findVault, vaultNotFound } from '../vaults/vault-reads.js';
import {
  type OverrideResource,
  overrideAddressFilter,
  toOverrideResource,
  withCurrentExpiry,
} from './override-resource.js';

/** The 404 of an address that names no request (the vault exists). */
export function overrideNotFound(vault: string, nonce: bigint, transfer: string | undefined): AppError {
  return new AppError('OVERRIDE_NOT_FOUND', 'Override not found', {
    vault,
    nonce: nonce.toString(),
    ...(transfer === undefined ? {} : { transfer }),
  });
}

export interface OverrideListQuery {
  vault?: string | undefined;
  /** Only overrides of vaults this wallet owns; with status `pending`, only those not yet expired. */
  owner?: string | undefined;
  status?: OverrideStatus | undefined;
  page?: number | undefined;
  limit?: number | undefined;
}

export interface OverrideList {
  overrides: OverrideResource[];
  pagination: Pagination;
}

export interface OverrideReadDeps {
  readonly db: Database;
  readonly readCache: ReadCache;
  readonly clock: Clock;
  readonly publicBaseUrl: string;
}

/** The columns an OverrideRecord is read from (overrides joined with their vault). */
export const overrideRecordColumns = {
  id: overrides.id,
  vaultId: overrides.vaultId,
  vaultAddress: vaults.address,
  nonce: overrides.nonce,
  transferSignature: overrides.transferSignature,
  addressSignature: overrides.addressSignature,
  chainNonce: overrides.chainNonce,
  destination: overrides.destination,
  amount: overrides.amount,
  reason: overrides.reason,
  status: overrides.status,
  expiresAt: overrides.expiresAt,
  createdAt: overrides.createdAt,
  approvedAt: overrides.approvedAt,
  rejectedAt: overrides.rejectedAt,
  executedAt: overrides.executedAt,
};

/** The owner's pending overrides: not expired (an expired override can no longer be approved). */
const isOwnersOpenList = (query: OverrideListQuery) =>
  query.owner !== undefined && query.status === 'pending';

export function createOverrideReadService(deps: OverrideReadDeps) {
  const { db, readCache, clock, publicBaseUrl } = deps;

  async function loadList(query: OverrideListQuery, request: PageRequest): Promise<OverrideList> {
    const now = clock.now();
    const filters: SQL[] = [];
    if (query.vault !== undefined) {
      const vault = await findVault(db, query.vault);
      if (vault === null) throw vaultNotFound(query.vault);
      filters.push(eq(overrides.vaultId, vault.id));
    }
    if (query.owner !== undefined) filters.push(eq(vaults.authority, query.owner));
    if (query.status !== undefined) filters.push(eq(overrides.status, query.status));
    if (isOwnersOpenList(query)) filters.push(gt(overrides.expiresAt, now));
    const where = and(...filters);
    const counting = db.select({ total: count() }).from(overrides);
    const [counted] = await (query.owner === undefined
      ? counting.where(where)
      : counting.innerJoin(vaults, eq(vaults.id, overrides.vaultId)).where(where));
    const total = counted?.total ?? 0;
    const records = isPastEnd(request, total)
      ? []
      : await db
          .select(overrideRecordColumns)
          .from(overrides)
          .innerJoin(vaults, eq(vaults.id, overrides.vaultId))
          .where(where)
          .orderBy(desc(overrides.createdAt), asc(overrides.id))
          .limit(request.limit)
          .offset(pageOffset(request));
    return {
      overrides: records.map((record) => toOverrideResource(record, { publicBaseUrl, now })),
      pagination: toPagination(request, total),
    };
  }

  async function loadOne(vaultAddress: string, nonce: bigint, transfer?: string): Promise<OverrideResource> {
    const [record] = await db
      .select(overrideRecordColumns)
      .from(overrides)
      .innerJoin(vaults, eq(vaults.id, overrides.vaultId))
      .where(and(eq(vaults.address, vaultAddress), overrideAddressFilter(nonce, transfer)))
      .limit(1);
    if (record !== undefined) return toOverrideResource(record, { publicBaseUrl, now: clock.now() });
    if ((await findVault(db, vaultAddress)) === null) throw vaultNotFound(vaultAddress);
    throw overrideNotFound(vaultAddress, nonce, transfer);
  }

  return {
    /**
     * Overrides newest first, optionally of one vault (unknown: VAULT_NOT_FOUND), of one owner's vaults
     * and of one status. An owner's pending list holds only what can still be decided: it is read as of
     * now, never from the cache (a cached page would keep requests that expired since).
     */
    async listOverrides(query: OverrideListQuery): Promise<OverrideList> {
      const request = toPageRequest(query);
      if (isOwnersOpenList(query)) return loadList(query, request);
      const key = `overrides:${query.vault ?? '*'}:${query.owner ?? '*'}:${query.status ?? '*'}:${request.page}:${request.limit}`;
      const tags = [query.vault === undefined ? CROSS_VAULT_TAG : vaultTag(query.vault)];
      const list = await readCache.read(
        key,
        CACHE_TTL.transactionList,
        () => tags,
        () => loadList(query, request),
      );
      const now = clock.now();
      return { ...list, overrides: list.overrides.map((item) => withCurrentExpiry(item, now)) };
    },

    /**
     * One override by its address (nonce as u64 decimal text, and the transfer's signature for
     * all but the nonce's first override): VAULT_NOT_FOUND or OVERRIDE_NOT_FOUND when missing.
     */
    async getOverride(vaultAddress: string, nonceText: string, transfer?: string): Promise<OverrideResource> {
      const nonce = parseLamports(nonceText, { allowZero: true });
      if (nonce === null) {
        throw validationError([{ path: 'params.nonce', message: 'must be an integer from 0 to 2^64-1' }]);
      }
      const resource = await readCache.read(
        `override:${vaultAddress}:${nonce}:${transfer ?? ''}`,
        CACHE_TTL.transactionList,
        () => [vaultTag(vaultAddress)],
        () => loadOne(vaultAddress, nonce, transfer),
      );
      return withCurrentExpiry(resource, clock.now());
    },
  };
}

export type OverrideReadService = ReturnType<typeof createOverrideReadService>;
