// Vault row → API object; webhooks reuse these shapes (vault.created, vault.paused, vault.resumed).
import type { VaultRow } from '../../storage/schema/vaults.js';

/** VaultTier of the program, by its on-chain index. */
export const VAULT_TIERS = ['personal', 'team', 'enterprise'] as const;
export type VaultTier = (typeof VAULT_TIERS)[number];

export interface VaultListItem {
  id: string;
  address: string;
  authority: string;
  agentSigner: string;
  dailyLimit: string;
  name: string;
  createdAt: string;
  transactionCount: number;
  totalVolume: string;
}

export interface VaultStats {
  transactionCount: number;
  totalVolume: string;
  blockedCount: number;
  avgTransactionSize: string;
}

export interface VaultDetail {
  id: string;
  address: string;
  depositAddress: string;
  authority: string;
  agentSigner: string;
  dailyLimit: string;
  spentToday: string;
  /** Null until the VaultConfig account has been read. */
  lastReset: string | null;
  name: string;
  paused: boolean;
  whitelist: string[];
  whitelistCount: number;
  tier: VaultTier;
  createdAt: string;
  updatedAt: string;
  stats: VaultStats;
}

/** The columns the serializers read (a full VaultRow satisfies it). */
export type VaultRecord = Pick<
  VaultRow,
  | 'id'
  | 'address'
  | 'depositAddress'
  | 'authority'
  | 'agentSigner'
  | 'dailyLimit'
  | 'spentToday'
  | 'lastReset'
  | 'name'
  | 'paused'
  | 'whitelist'
  | 'whitelistCount'
  | 'tier'
  | 'createdAt'
  | 'updatedAt'
  | 'transactionCount'
  | 'executedCount'
  | 'blockedCount'
  | 'totalVolume'
>;

export function toVaultListItem(
  row: Pick<
    VaultRecord,
    | 'id'
    | 'address'
    | 'authority'
    | 'agentSigner'
    | 'dailyLimit'
    | 'name'
    | 'createdAt'
    | 'transactionCount'
    | 'totalVolume'
  >,
): VaultListItem {
  return {
    id: row.id,
    address: row.address,
    authority: row.authority,
    agentSigner: row.agentSigner,
    dailyLimit: row.dailyLimit.toString(),
    name: row.name,
    createdAt: row.createdAt.toISOString(),
    transactionCount: row.transactionCount,
    totalVolume: row.totalVolume.toString(),
  };
}

export function toVaultDetail(row: VaultRecord): VaultDetail {
  return {
    id: row.id,
    address: row.address,
    depositAddress: row.depositAddress,
    authority: row.authority,
    agentSigner: row.agentSigner,
    dailyLimit: row.dailyLimit.toString(),
    spentToday: row.spentToday.toString(),
    lastReset: row.lastReset?.toISOString() ?? null,
    name: row.name,
    paused: row.paused,
    whitelist: [...row.whitelist],
    whitelistCount: row.whitelistCount,
    // The program's codec admits only these three indexes; 0 is the column default.
    tier: VAULT_TIERS[row.tier] ?? 'personal',
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    stats: toVaultStats(row),
  };
}

/** Stats from the maintained counters: avgTransactionSize = floor(totalVolume / executed), "0" when none. */
export function toVaultStats(
  row: Pick<VaultRecord, 'transactionCount' | 'executedCount' | 'blockedCount' | 'totalVolume'>,
): VaultStats {
  const average = row.executedCount === 0 ? 0n : row.totalVolume / BigInt(row.executedCount);
  return {
    transactionCount: row.transactionCount,
    totalVolume: row.totalVolume.toString(),
    blockedCount: row.blockedCount,
    avgTransactionSize: average.toString(),
  };
}
