import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { lamports, timestamptz, u64 } from './columns.js';
import { vaults } from './vaults.js';

export const OVERRIDE_STATUSES = ['pending', 'approved', 'rejected', 'executed'] as const;
export type OverrideStatus = (typeof OVERRIDE_STATUSES)[number];

/**
 * A request for the owner to let one blocked transfer through (or an override created on chain without
 * one). Addressed by (vault, nonce) when `address_signature` is null, else by (vault, nonce, that signature).
 */
export const overrides = pgTable(
  'overrides',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    vaultId: uuid('vault_id')
      .notNull()
      .references(() => vaults.id, { onDelete: 'cascade' }),
    /** The nonce its blocked transfer announced (for an override created on chain: its on-chain nonce). */
    nonce: u64('nonce').notNull(),
    /** The blocked transaction it asks to let through; null for an override created on chain without one. */
    transferSignature: text('transfer_signature'),
    /** Null for the first request addressed by its nonce; else the signature its address adds (`?transfer=`). */
    addressSignature: text('address_signature'),
    /** The nonce of its PendingOverride account once one was created on chain. */
    chainNonce: u64('chain_nonce'),
    destination: text('destination').notNull(),
    amount: lamports('amount').notNull(),
    /** The block reason of the attempt that asked for it, when known. */
    reason: text('reason'),
    status: text('status', { enum: OVERRIDE_STATUSES }).notNull().default('pending'),
    expiresAt: timestamptz('expires_at').notNull(),
    approvedAt: timestamptz('approved_at'),
    rejectedAt: timestamptz('rejected_at'),
    executedAt: timestamptz('executed_at'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('overrides_vault_nonce_idx').on(t.vaultId, t.nonce).where(sql`${t.addressSignature} is null`),
    uniqueIndex('overrides_vault_nonce_signature_idx')
      .on(t.vaultId, t.nonce, t.addressSignature)
      .where(sql`${t.addressSignature} is not null`),
    uniqueIndex('overrides_transfer_signature_idx')
      .on(t.transferSignature)
      .where(sql`${t.transferSignature} is not null`),
    uniqueIndex('overrides_vault_chain_nonce_idx')
      .on(t.vaultId, t.chainNonce)
      .where(sql`${t.chainNonce} is not null`),
    // `desc nulls first` is what a plain `order by … desc` means: only then can a list read the index in order.
    index('overrides_vault_created_idx').on(t.vaultId, t.createdAt.desc().nullsFirst(), t.id),
    index('overrides_status_created_idx').on(t.status, t.createdAt.desc().nullsFirst(), t.id),
    index('overrides_created_idx').on(t.createdAt.desc().nullsFirst(), t.id),
    // The expiry alerts' job reads pending overrides by expiry.
    index('overrides_pending_expiry_idx').on(t.expiresAt).where(sql`${t.status} = 'pending'`),
    check('overrides_status_check', sql`${t.status} in ('pending', 'approved', 'rejected', 'executed')`),
  ],
);

/** The Solana Action link of an override, with how often it was used. */
export const blinks = pgTable('blinks', {
  id: uuid('id').primaryKey().defaultRandom(),
  overrideId: uuid('override_id')
    .notNull()
    .unique()
    .references(() => overrides.id, { onDelete: 'cascade' }),
  url: text('url').notNull(),
  viewCount: integer('view_count').notNull().default(0),
  approveCount: integer('approve_count').notNull().default(0),
  rejectCount: integer('reject_count').notNull().default(0),
  lastUsedAt: timestamptz('last_used_at'),
  createdAt: timestamptz('created_at').notNull().defaultNow(),
});

/** Single-use nonces of the Actions sign-message (reject) flow. */
export const actionNonces = pgTable('action_nonces', {
  nonce: text('nonce').primaryKey(),
  overrideId: uuid('override_id')
    .notNull()
    .references(() => overrides.id, { onDelete: 'cascade' }),
  account: text('account').notNull(),
  expiresAt: timestamptz('expires_at').notNull(),
  usedAt: timestamptz('used_at'),
  createdAt: timestamptz('created_at').notNull().defaultNow(),
});

export type OverrideRow = typeof overrides.$inferSelect;
export type BlinkRow = typeof blinks.$inferSelect;
