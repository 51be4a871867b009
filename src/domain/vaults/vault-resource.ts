// The vault resource: its schema (the API's and the webhooks' vault.created, vault.paused,
// vault.resumed), its type, and the row → resource mapping.
import { type Static, Type } from 'typebox';
import { Address, Lamports, NullableString, StringEnum, Timestamp } from '../../lib/json-schema.js';
import type { VaultRow } from '../../storage/schema/vaults.js';

/** VaultTier of the program, by its on-chain index. */
export const VAULT_TIERS = ['personal', 'team', 'enterprise'] as const;
export type VaultTier = (typeof VAULT_TIERS)[number];

const VaultAgentSigner = () =>
  Type.String({ description: 'the agent allowed to spend (empty until the account is read)' });

export const VaultListItem = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    address: Address('the vault address (VaultConfig PDA)'),
    authority: Address('the owner'),
    agentSigner: VaultAgentSigner(),
    dailyLimit: Lamports(),
    name: Type.String(),
    createdAt: Timestamp(),
    transactionCount: Type.Integer({ description: 'transactions of every status' }),
    totalVolume: Lamports('sum of executed amounts, lamports'),
  },
  { title: 'VaultListItem' },
);
export type VaultListItem = Static<typeof VaultListItem>;

const VaultStats = Type.Object({
  transactionCount: Type.Integer({ description: 'transactions of every status' }),
  totalVolume: Lamports('sum of executed amounts, lamports'),
  blockedCount: Type.Integer(),
  avgTransactionSize: Lamports('floor(totalVolume / executed count), "0" when none'),
});
type VaultStats = Static<typeof VaultStats>;

export const VaultDetail = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    address: Address('the vault address (VaultConfig PDA)'),
    depositAddress: Address('the vault-authority PDA that holds the SOL'),
    authority: Address('the owner'),
    agentSigner: VaultAgentSigner(),
    dailyLimit: Lamports(),
    spentToday: Lamports(),
    lastReset: NullableString({
      format: 'date-time',
      description: 'start of the daily window; null until read',
    }),
    name: Type.String(),
    paused: Type.Boolean(),
    whitelist: Type.Array(Address(), { description: 'destinations the agent may pay' }),
    whitelistCount: Type.Integer(),
    tier: StringEnum(VAULT_TIERS),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
    stats: VaultStats,
  },
  { title: 'Vault' },
);
export type VaultDetail = Static<typeof VaultDetail>;

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
function toVaultStats(
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
