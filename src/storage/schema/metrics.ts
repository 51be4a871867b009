import { sql } from 'drizzle-orm';
import { date, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { lamports, timestamptz } from './columns.js';

/** Vault key of the global (all vaults) row. */
export const GLOBAL_METRICS_KEY = '*';

/** Per vault (by vault id) and global (`*`) figures of one UTC day. */
export const dailyMetrics = pgTable(
  'daily_metrics',
  {
    vaultKey: text('vault_key').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    executedCount: integer('executed_count').notNull().default(0),
    executedVolume: lamports('executed_volume').notNull().default(sql`0`),
    blockedCount: integer('blocked_count').notNull().default(0),
    blockedVolume: lamports('blocked_volume').notNull().default(sql`0`),
    fees: lamports('fees').notNull().default(sql`0`),
    overridesRequested: integer('overrides_requested').notNull().default(0),
    overridesApproved: integer('overrides_approved').notNull().default(0),
    overridesRejected: integer('overrides_rejected').notNull().default(0),
    overridesExecuted: integer('overrides_executed').notNull().default(0),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.vaultKey, t.day] })],
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
