import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { timestamptz } from './columns.js';
import { vaults } from './vaults.js';

/** An owner's alert settings for one vault (no row: the defaults). */
export const vaultAlertSettings = pgTable('vault_alert_settings', {
  vaultId: uuid('vault_id')
    .primaryKey()
    .references(() => vaults.id, { onDelete: 'cascade' }),
  /** Percentages of the daily limit, ascending; empty: budget alerts off. */
  budgetThresholds: integer('budget_thresholds').array().notNull(),
  /** Both null: velocity alerts off. */
  velocityWindowSeconds: integer('velocity_window_seconds'),
  velocityMaxTransfers: integer('velocity_max_transfers'),
  expiryWarningMinutes: integer('expiry_warning_minutes').notNull(),
  updatedAt: timestamptz('updated_at').notNull().defaultNow(),
});

/**
 * One row per alert already sent, so none is sent twice whichever process or replay sees its cause:
 * `budget:<last_reset>:<threshold>`, `expiring:<override id>`, `expired:<override id>`, and one
 * `velocity` row whose `at` is the block time of the vault's latest velocity alert.
 */
export const alertMarks = pgTable(
  'alert_marks',
  {
    vaultId: uuid('vault_id')
      .notNull()
      .references(() => vaults.id, { onDelete: 'cascade' }),
    mark: text('mark').notNull(),
    at: timestamptz('at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.vaultId, t.mark] })],
);

/**
 * Alerts as the live feed streams them. Ids come from chain_events' sequence, so the feed orders both
 * tables by one id (writers take the feed's write lock before drawing one, as ingestion does).
 */
export const alertEvents = pgTable(
  'alert_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().default(sql`nextval('chain_events_id_seq')`),
    name: text('name').notNull(),
    vaultAddress: text('vault_address').notNull(),
    /** The transaction that caused it, when one did (not for the expiry alerts). */
    signature: text('signature'),
    slot: bigint('slot', { mode: 'number' }),
    /** When it happened: the cause's block time, or the service's clock for the expiry alerts. */
    at: timestamptz('at').notNull(),
    data: jsonb('data').notNull(),
  },
  (t) => [index('alert_events_vault_idx').on(t.vaultAddress, t.id)],
);

export type VaultAlertSettingsRow = typeof vaultAlertSettings.$inferSelect;
