import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { lamports, timestamptz } from './columns.js';
import { vaults } from './vaults.js';

export const TRANSACTION_STATUSES = ['executed', 'blocked', 'pending'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/** How final the chain holds a row's transaction: `confirmed` as ingested, `finalized` once rooted. */
export const COMMITMENTS = ['confirmed', 'finalized'] as const;
export type Commitment = (typeof COMMITMENTS)[number];

/** One transfer attempt: executed, blocked by policy, or pending (an approved override's transfer). */
export const transactions = pgTable(
  'transactions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    vaultId: uuid('vault_id')
      .notNull()
      .references(() => vaults.id, { onDelete: 'cascade' }),
    /** Null for a pending transfer until it executes. */
    signature: text('signature'),
    /** Position of the event in its Solana transaction (several transfers may share one). */
    eventIndex: integer('event_index'),
    destination: text('destination').notNull(),
    amount: lamports('amount').notNull(),
    feeCollected: lamports('fee_collected'),
    status: text('status', { enum: TRANSACTION_STATUSES }).notNull(),
    blockReason: text('block_reason'),
    overrideId: uuid('override_id'),
    slot: bigint('slot', { mode: 'number' }),
    /** Moved to `finalized` by the finality reconciler (src/chain/finality-reconciler.ts). */
    commitment: text('commitment', { enum: COMMITMENTS }).notNull().default('confirmed'),
    timestamp: timestamptz('timestamp').notNull(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('transactions_signature_event_idx').on(t.signature, t.eventIndex),
    // `desc nulls first` is what a plain `order by … desc` means: only then can a list read the index in order.
    index('transactions_vault_timestamp_idx').on(
      t.vaultId,
      t.timestamp.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    index('transactions_vault_status_timestamp_idx').on(
      t.vaultId,
      t.status,
      t.timestamp.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    index('transactions_timestamp_idx').on(t.timestamp.desc().nullsFirst(), t.id.desc().nullsFirst()),
    index('transactions_status_timestamp_idx').on(
      t.status,
      t.timestamp.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    // A destination's transfers by time: the rollup recomputes one destination's day from it.
    index('transactions_destination_timestamp_idx').on(t.destination, t.timestamp),
    index('transactions_override_idx').on(t.overrideId),
    check('transactions_status_check', sql`${t.status} in ('executed', 'blocked', 'pending')`),
    check('transactions_commitment_check', sql`${t.commitment} in ('confirmed', 'finalized')`),
  ],
);

export type TransactionRow = typeof transactions.$inferSelect;
export type NewTransactionRow = typeof transactions.$inferInsert;
