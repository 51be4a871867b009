// Public vault reads: the list (newest first) and the detail, cached for 5 minutes by vault tag.
import { asc, count, desc, eq, sql } from 'drizzle-orm';
import { CACHE_TTL, CROSS_VAULT_TAG, vaultTag } from '../../cache/tags.js';
import { AppError } from '../../errors.js';
import {
  isPastEnd,
  type PageRequest,
  type Pagination,
  pageOffset,
  toPageRequest,
  toPagination,
} from '../../lib/pagination.js';
import type { Database, Queryable } from '../../storage/database.js';
import { type VaultRow, vaults } from '../../storage/schema/vaults.js';
import type { ReadCache } from '../read-cache.js';
import { toVaultDetail, toVaultListItem, type VaultDetail, type VaultListItem } from './vault-resource.js';

export interface VaultListQuery {
  owner?: string | undefined;
  page?: number | undefined;
  limit?: number | undefined;
}

export interface VaultList {
  vaults: VaultListItem[];
  pagination: Pagination;
}

export interface VaultReadDeps {
  readonly db: Database;
  readonly readCache: ReadCache;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A vault by its address or its record uuid (a uuid's hyphens never occur in base58), or null. */
export async function findVault(db: Queryable, idOrAddress: string): Promise<VaultRow | null> {
  const column = UUID.test(idOrAddress) ? vaults.id : vaults.address;
  const [row] = await db.select().from(vaults).where(eq(column, idOrAddress)).limit(1);
  return row ?? null;
}

/** Like findVault, but an unknown vault is VAULT_NOT_FOUND. */
export async function getVaultRow(db: Queryable, idOrAddress: string): Promise<VaultRow> {
  const row = await findVault(db, idOrAddress);
  if (row === null) throw vaultNotFound(idOrAddress);
  return row;
}

export function vaultNotFound(idOrAddress: string): AppError {
  return new AppError('VAULT_NOT_FOUND', 'Vault not found', { vault: idOrAddress });
}

export function createVaultReadService(deps: VaultReadDeps) {
  const { db, readCache } = deps;
  const listColumns = {
    id: vaults.id,
    address: vaults.address,
    authority: vaults.authority,
    agentSigner: vaults.agentSigner,
    dailyLimit: vaults.dailyLimit,
    name: vaults.name,
    createdAt: vaults.createdAt,
    transactionCount: vaults.transactionCount,
    totalVolume: vaults.totalVolume,
  };
  const byAddress = db
    .select()
    .from(vaults)
    .where(eq(vaults.address, sql.placeholder('address')))
    .limit(1)
    .prepare('vk_vault_by_address');

  async function loadList(owner: string | undefined, request: PageRequest): Promise<VaultList> {
    const filter = owner === undefined ? undefined : eq(vaults.authority, owner);
    const [counted] = await db.select({ total: count() }).from(vaults).where(filter);
    const total = counted?.total ?? 0;
    const rows = isPastEnd(request, total)
      ? []
      : await db
          .select(listColumns)
          .from(vaults)
          .where(filter)
          .orderBy(desc(vaults.createdAt), asc(vaults.id))
          .limit(request.limit)
          .offset(pageOffset(request));
    return { vaults: rows.map(toVaultListItem), pagination: toPagination(request, total) };
  }

  async function loadDetail(idOrAddress: string): Promise<VaultDetail> {
    const row = UUID.test(idOrAddress)
      ? await findVault(db, idOrAddress)
      : ((await byAddress.execute({ address: idOrAddress }))[0] ?? null);
    if (row === null) throw vaultNotFound(idOrAddress);
    return toVaultDetail(row);
  }

  const detailKey = (idOrAddress: string) =>
    `vault:${UUID.test(idOrAddress) ? idOrAddress.toLowerCase() : idOrAddress}`;

  return {
    /** Vaults newest first (createdAt desc, then id), optionally of one owner. */
    listVaults(query: VaultListQuery): Promise<VaultList> {
      const request = toPageRequest(query);
      const key = `vaults:${query.owner ?? '*'}:${request.page}:${request.limit}`;
      return readCache.read(
        key,
        CACHE_TTL.vault,
        () => [CROSS_VAULT_TAG],
        () => loadList(query.owner, request),
      );
    },

    /** One vault by address or record uuid, with its stats; unknown is VAULT_NOT_FOUND. */
    getVault(idOrAddress: string): Promise<VaultDetail> {
      return readCache.read(
        detailKey(idOrAddress),
        CACHE_TTL.vault,
        (vault) => [vaultTag(vault.address)],
        () => loadDetail(idOrAddress),
      );
    },

    /** getVault as the response body `serialize` makes of it, cached as those bytes. */
    getVaultBody(idOrAddress: string, serialize: (vault: VaultDetail) => string): Promise<Buffer> {
      return readCache.readBody(
        detailKey(idOrAddress),
        CACHE_TTL.vault,
        (vault) => [vaultTag(vault.address)],
        () => loadDetail(idOrAddress),
        serialize,
      );
    },
  };
}

export type VaultReadService = ReturnType<typeof createVaultReadService>;
