// Public vault reads: the list (newest first) and the detail, cached for 5 minutes by vault tag.
import { asc, count, desc, eq, sql } from 'drizzle-orm';
import type { ReadCache } from '../../cache/read-cache.js';
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
import { isUuid } from '../../lib/uuid.js';
import type { Database, Queryable } from '../../storage/database.js';
import { type VaultRow, vaults } from '../../storage/schema/vaults.js';
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

/** A vault by its address or its record uuid (a uuid's hyphens never occur in base58), or null. */
export async function findVault(db: Queryable, idOrAddress: string): Promise<VaultRow | null> {
  const column = isUuid(idOrAddress) ? vaults.id : vaults.address;
  const [row] = await db.select().from(vaults).where(eq(column, idOrAddress)).limit(1);
  return row ?? null;
}

/** Like findVault, but an unknown vault is VAULT_NOT_FOUND. */
export async function getVaultRow(db: Queryable, idOrAddress: string): Promise<VaultRow> {
  const row = await findVault(db, idOrAddress);
  if (row === null) throw vaultNotFound(idOrAddress);
  return row;
}

/** Why the chain has no vault at an address the database knows. */
export type VaultAccountProblem = 'account_not_found' | 'not_a_vault_account';

const VAULT_ACCOUNT_PROBLEMS: Record<VaultAccountProblem, string> = {
  account_not_found: 'The vault account does not exist on chain',
  not_a_vault_account: 'The vault address does not hold a vault account on chain',
};

/** Every VAULT_NOT_FOUND: `details.vault` names it, `details.reason` says when the chain lacks it. */
export function vaultNotFound(idOrAddress: string, onChain?: VaultAccountProblem, cause?: unknown): AppError {
  if (onChain === undefined)
    return new AppError('VAULT_NOT_FOUND', 'Vault not found', { vault: idOrAddress });
  const details = { vault: idOrAddress, reason: onChain };
  return new AppError(
    'VAULT_NOT_FOUND',
    VAULT_ACCOUNT_PROBLEMS[onChain],
    details,
    cause === undefined ? undefined : { cause },
  );
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
    const row = isUuid(idOrAddress)
      ? await findVault(db, idOrAddress)
      : ((await byAddress.execute({ address: idOrAddress }))[0] ?? null);
    if (row === null) throw vaultNotFound(idOrAddress);
    return toVaultDetail(row);
  }

  const detailKey = (idOrAddress: string) =>
    `vault:${isUuid(idOrAddress) ? idOrAddress.toLowerCase() : idOrAddress}`;

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
