import { sql } from 'drizzle-orm';
import { bigserial, boolean, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { timestamptz } from './columns.js';
import { vaults } from './vaults.js';

/** json: the signed envelope; the others: that chat platform's own message body. */
export const WEBHOOK_FORMATS = ['json', 'slack', 'discord', 'telegram'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** A subscription: deliver these events of one vault (or of every vault the owner has) to a URL. */
export const webhooks = pgTable(
  'webhooks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    owner: text('owner').notNull(),
    /** Null: every vault whose authority is `owner`, now and later. */
    vaultId: uuid('vault_id').references(() => vaults.id, { onDelete: 'cascade' }),
    /** The URL; for a chat format only its masked form (origin and last 4 characters). */
    url: text('url').notNull(),
    /** How deliveries are shaped: `json` (signed envelope) or a chat platform's own body. */
    format: text('format', { enum: WEBHOOK_FORMATS }).notNull().default('json'),
    /** A chat destination's full URL (it holds the destination's secret), sealed like `secret`. */
    sealedUrl: text('sealed_url'),
    events: text('events').array().notNull(),
    secret: text('secret').notNull(),
    /** After a rotation the old secret keeps signing until it expires. */
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: timestamptz('previous_secret_expires_at'),
    active: boolean('active').notNull().default(true),
    /** False for a `mailto:` address until its recipient confirms; nothing is sent to it before. */
    verified: boolean('verified').notNull().default(true),
    disabledReason: text('disabled_reason'),
    /** Start of the current run of failed attempts; null after a success. */
    failingSince: timestamptz('failing_since'),
    /** SHA-256 (hex) of the client key that created it, for the per-client cap; null before 0006. */
    createdFrom: text('created_from'),
    /** Last `recover` call, for its per-subscription cooldown. */
    recoveredAt: timestamptz('recovered_at'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('webhooks_owner_idx').on(t.owner),
    index('webhooks_vault_idx').on(t.vaultId),
    index('webhooks_created_from_idx').on(t.createdFrom),
  ],
);

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The outbox: one row per (subscription, event), written in the transaction that caused it. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    webhookId: uuid('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    event: text('event').notNull(),
    /** Exact JSON text of {id, event, timestamp, data}: signed as is, identical on every retry. */
    payload: text('payload').notNull(),
    /** What caused it (e.g. `<signature>:<eventIndex>`), so a replayed cause enqueues nothing new. */
    dedupeKey: text('dedupe_key'),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull().default('pending'),
    attemptCount: integer('attempt_count').notNull().default(0),
    nextAttemptAt: timestamptz('next_attempt_at').notNull().defaultNow(),
    /** Lease of the worker sending it; a crashed worker's lease runs out and the row is claimed again. */
    lockedUntil: timestamptz('locked_until'),
    lastError: text('last_error'),
    lastStatusCode: integer('last_status_code'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    completedAt: timestamptz('completed_at'),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_dedupe_idx').on(t.webhookId, t.dedupeKey),
    index('webhook_deliveries_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index('webhook_deliveries_webhook_created_idx').on(t.webhookId, t.createdAt.desc()),
  ],
);

/**
 * Confirmation e-mails of `mailto:` subscriptions: the link's token is stored hashed. Rows outlive
 * their subscription (webhook_id set null) so the per-address daily limit cannot be reset by deleting.
 */
export const webhookConfirmations = pgTable(
  'webhook_confirmations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tokenHash: text('token_hash').notNull(),
    webhookId: uuid('webhook_id').references(() => webhooks.id, { onDelete: 'set null' }),
    /** The address the mail went to; lower-cased for the per-address limit. */
    address: text('address').notNull(),
    createdAt: timestamptz('created_at').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
    usedAt: timestamptz('used_at'),
  },
  (t) => [
    uniqueIndex('webhook_confirmations_token_idx').on(t.tokenHash),
    index('webhook_confirmations_address_idx').on(t.address, t.createdAt),
  ],
);

/** Every HTTP (or SMTP) attempt of a delivery. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deliveryId: uuid('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    startedAt: timestamptz('started_at').notNull(),
    durationMs: integer('duration_ms').notNull(),
    statusCode: integer('status_code'),
    error: text('error'),
    responseBody: text('response_body'),
  },
  (t) => [index('webhook_attempts_delivery_idx').on(t.deliveryId, t.attempt)],
);

export type WebhookRow = typeof webhooks.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
