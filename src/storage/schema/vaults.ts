import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, numeric, pgTable, smallint, text, uuid } from 'drizzle-orm/pg-core';
import { lamports, timestamptz, u64 } from './columns.js';

/** A vault as the chain last told us (VaultConfig account + events), plus its off-chain display name. */
export const vaults = pgTable(
  'vaults',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    address: text('address').notNull().unique(),
    authority: text('authority').notNull(),
    agentSigner: text('agent_signer').notNull().default(''),
    depositAddress: text('deposit_address').notNull(),
    dailyLimit: lamports('daily_limit').notNull(),
    spentToday: lamports('spent_today').notNull().default(sql`0`),
    lastReset: timestamptz('last_reset'),
    name: text('name').notNull().default(''),
    /** Set when the owner renamed the vault through the API: account reads keep it. */
    nameOverridden: boolean('name_overridden').notNull().default(false),
    tier: smallint('tier').notNull().default(0),
    feeBasisPoints: integer('fee_basis_points').notNull().default(0),
    paused: boolean('paused').notNull().default(false),
    whitelist: text('whitelist').array().notNull().default(sql`'{}'::text[]`),
    whitelistCount: integer('whitelist_count').notNull().default(0),
    vaultNonce: u64('vault_nonce'),
    overrideNonce: u64('override_nonce'),
    createdSlot: bigint('created_slot', { mode: 'number' }),
    /** Slot of the newest chain state (event or account read) applied here; older state never overwrites it. */
    syncedSlot: bigint('synced_slot', { mode: 'number' }).notNull().default(0),
    /** Maintained counters (src/domain/vaults/vault-stats.ts), so reads never aggregate a vault's history. */
    transactionCount: bigint('transaction_count', { mode: 'number' }).notNull().default(0),
    executedCount: bigint('executed_count', { mode: 'number' }).notNull().default(0),
    blockedCount: bigint('blocked_count', { mode: 'number' }).notNull().default(0),
    /** Σ executed amounts; wider than u64 because a sum of u64 amounts can exceed it. */
    totalVolume: numeric('total_volume', { precision: 30, scale: 0, mode: 'bigint' })
      .notNull()
      .default(sql`0`),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
  },
  (t) => [
    // `desc nulls first` is what a plain `order by … desc` means: only then can a list read the index in order.
    index('vaults_authority_created_idx').on(t.authority, t.createdAt.desc().nullsFirst(), t.id),
    index('vaults_created_idx').on(t.createdAt.desc().nullsFirst(), t.id),
  ],
);

export type VaultRow = typeof vaults.$inferSelect;
export type NewVaultRow = typeof vaults.$inferInsert;
