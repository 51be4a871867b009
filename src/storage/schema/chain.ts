import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { timestamptz } from './columns.js';

/** The raw event log: every decoded program event, exactly once. Projections are derived from it. */
export const chainEvents = pgTable(
  'chain_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    signature: text('signature').notNull(),
    eventIndex: integer('event_index').notNull(),
    slot: bigint('slot', { mode: 'number' }).notNull(),
    blockTime: timestamptz('block_time'),
    name: text('name').notNull(),
    /** The instruction that emitted it (Anchor's `Instruction: <Name>` log), when known. */
    instruction: text('instruction'),
    vaultAddress: text('vault_address'),
    /** Decoded fields, u64 values as decimal strings; raw base64 for unknown discriminators. */
    data: jsonb('data').notNull(),
    transactionFailed: boolean('transaction_failed').notNull().default(false),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('chain_events_signature_index_idx').on(t.signature, t.eventIndex),
    index('chain_events_vault_idx').on(t.vaultAddress, t.id),
    index('chain_events_slot_idx').on(t.slot),
  ],
);

/** Every program signature already applied (idempotence, gap detection), events or not. */
export const chainSignatures = pgTable(
  'chain_signatures',
  {
    signature: text('signature').primaryKey(),
    slot: bigint('slot', { mode: 'number' }).notNull(),
    blockTime: timestamptz('block_time'),
    failed: boolean('failed').notNull().default(false),
    eventCount: integer('event_count').notNull().default(0),
    truncated: boolean('truncated').notNull().default(false),
    /** `confirmed` as ingested; the finality reconciler moves it to `finalized` (or drops the signature). */
    commitment: text('commitment', { enum: ['confirmed', 'finalized'] })
      .notNull()
      .default('confirmed'),
    processedAt: timestamptz('processed_at').notNull().defaultNow(),
  },
  (t) => [
    index('chain_signatures_slot_idx').on(t.slot),
    // The reconciler's work list: only signatures not yet finalized, oldest slot first.
    index('chain_signatures_unfinalized_idx').on(t.slot).where(sql`${t.commitment} = 'confirmed'`),
    check('chain_signatures_commitment_check', sql`${t.commitment} in ('confirmed', 'finalized')`),
  ],
);

/** Ingestion cursors by name: the newest signature below which history is complete. */
export const chainCursors = pgTable('chain_cursors', {
  name: text('name').primaryKey(),
  signature: text('signature'),
  slot: bigint('slot', { mode: 'number' }),
  updatedAt: timestamptz('updated_at').notNull().defaultNow(),
});

/** Liveness of the active ingestor, written on a timer so any process (API-only too) can report it. */
export const chainHeartbeats = pgTable('chain_heartbeats', {
  name: text('name').primaryKey(),
  /** `connected` (log subscription up), `connecting` (re-subscribing) or `disconnected` (stopped). */
  status: text('status').notNull(),
  /** The live source in use: `grpc` (Yellowstone stream) or `websocket` (log subscription); null when stopped. */
  source: text('source'),
  /** Which process holds the ingestor lock (host:pid), for operators. */
  instance: text('instance').notNull(),
  /** When the oldest known but not yet applied signature was first seen; null when caught up. */
  behindSince: timestamptz('behind_since'),
  beatAt: timestamptz('beat_at').notNull().defaultNow(),
});
