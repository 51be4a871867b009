import { sql } from 'drizzle-orm';
import { date, integer, numeric, pgTable, primaryKey, smallint, text } from 'drizzle-orm/pg-core';
import { timestamptz } from './columns.js';

/** A sum of u64 amounts: wider than u64, since a day's or a block's total can exceed it. */
const volume = (name: string) => numeric(name, { precision: 30, scale: 0, mode: 'bigint' });

/** Vault key of the global (all vaults) row. */
export const GLOBAL_METRICS_KEY = '*';

/** Per vault (by vault id) and global (`*`) figures of one UTC day. */
export const dailyMetrics = pgTable(
  'daily_metrics',
  {
    vaultKey: text('vault_key').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    executedCount: integer('executed_count').notNull().default(0),
    executedVolume: volume('executed_volume').notNull().default(sql`0`),
    blockedCount: integer('blocked_count').notNull().default(0),
    blockedVolume: volume('blocked_volume').notNull().default(sql`0`),
    fees: volume('fees').notNull().default(sql`0`),
    overridesRequested: integer('overrides_requested').notNull().default(0),
    overridesApproved: integer('overrides_approved').notNull().default(0),
    overridesRejected: integer('overrides_rejected').notNull().default(0),
    overridesExecuted: integer('overrides_executed').notNull().default(0),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.vaultKey, t.day] })],
);

/**
 * Executed transfers per destination, per vault (and global `*`) per UTC day: analytics ranks top
 * destinations from these instead of scanning transactions.
 */
export const dailyDestinationMetrics = pgTable(
  'daily_destination_metrics',
  {
    vaultKey: text('vault_key').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    destination: text('destination').notNull(),
    executedCount: integer('executed_count').notNull(),
    executedVolume: volume('executed_volume').notNull(),
  },
  (t) => [primaryKey({ columns: [t.vaultKey, t.day, t.destination] })],
);

/**
 * The same summed over aligned blocks of 2^level days (level 1..10; block n of a level covers epoch
 * days n·2^level … (n+1)·2^level − 1), kept by the rollup: any range is a handful of blocks per
 * destination, so ranking destinations over a year reads about 14 rows each, not 365.
 */
export const destinationBlockMetrics = pgTable(
  'destination_block_metrics',
  {
    vaultKey: text('vault_key').notNull(),
    level: smallint('level').notNull(),
    startDay: date('start_day', { mode: 'string' }).notNull(),
    destination: text('destination').notNull(),
    executedCount: integer('executed_count').notNull(),
    executedVolume: volume('executed_volume').notNull(),
  },
  (t) => [primaryKey({ columns: [t.vaultKey, t.level, t.startDay, t.destination] })],
);

/** Days whose figures changed since the last rollup; written in the transaction that changed them. */
export const dailyMetricsDirty = pgTable(
  'daily_metrics_dirty',
  {
    vaultKey: text('vault_key').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    markedAt: timestamptz('marked_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.vaultKey, t.day] })],
);

/**
 * Destinations whose executed transfers of a vault's (or the global) day changed since the last
 * rollup, written in the same transaction as the day's mark: the rollup recomputes only these
 * destinations' day rows and blocks, so its work follows what changed, not how much a day holds.
 */
export const destinationMetricsDirty = pgTable(
  'destination_metrics_dirty',
  {
    vaultKey: text('vault_key').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    destination: text('destination').notNull(),
  },
  (t) => [primaryKey({ columns: [t.vaultKey, t.day, t.destination] })],
);
