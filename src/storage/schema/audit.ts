import { index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { timestamptz } from './columns.js';

/**
 * The audit trail: who did what to an owner's records, from where, and whether it was done. Append-only:
 * no route changes or deletes a row; only the retention job removes rows older than
 * AUDIT_RETENTION_DAYS. `owner` is the wallet the actor acts as (for chain acts, the vault's authority);
 * `vault` the vault acted on, when one is. `dedupe_key` keeps a chain act re-read by ingestion from
 * being recorded twice (null for requests).
 */
export const auditEntries = pgTable(
  'audit_entries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    at: timestamptz('at').notNull(),
    owner: text('owner').notNull(),
    vault: text('vault'),
    /** `wallet:<address>`, `key:<id>` or `chain:<signature>`. */
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    target: text('target').notNull(),
    requestId: text('request_id'),
    /** The client's network: IPv4 /24 or IPv6 /48; null for chain acts. */
    client: text('client'),
    /** `ok`, or `refused:<error code>` / `failed:<error code>`. */
    outcome: text('outcome').notNull(),
    dedupeKey: text('dedupe_key'),
  },
  (t) => [
    index('audit_entries_owner_idx').on(t.owner, t.at, t.id),
    index('audit_entries_vault_idx').on(t.vault, t.at, t.id),
    index('audit_entries_at_idx').on(t.at),
    uniqueIndex('audit_entries_dedupe_key_idx').on(t.dedupeKey),
  ],
);
export type AuditEntryRow = typeof auditEntries.$inferSelect;
export type NewAuditEntryRow = typeof auditEntries.$inferInsert;
