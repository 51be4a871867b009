import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { lamports, timestamptz, u64 } from './columns.js';
import { vaults } from './vaults.js';

export const OVERRIDE_STATUSES = ['pending', 'approved', 'rejected', 'executed'] as const;
export type OverrideStatus = (typeof OVERRIDE_STATUSES)[number];

/** A request for the owner to let a blocked transfer through; identified by (vault, nonce). */
export const overrides = pgTable(
  'overrides',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    vaultId: uuid('vault_id')
      .notNull()
      .references(() => vaults.id, { onDelete: 'cascade' }),
    nonce: u64('nonce').notNull(),
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
    uniqueIndex('overrides_vault_nonce_idx').on(t.vaultId, t.nonce),
    // `desc nulls first` is what a plain `order by … desc` means: only then can a list read the index in order.
    index('overrides_vault_created_idx').on(t.vaultId, t.createdAt.desc().nullsFirst(), t.id),
    index('overrides_status_created_idx').on(t.status, t.createdAt.desc().nullsFirst(), t.id),
    index('overrides_created_idx').on(t.createdAt.desc().nullsFirst(), t.id),
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
