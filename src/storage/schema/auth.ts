import { sql } from 'drizzle-orm';
import { index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { timestamptz } from './columns.js';

/**
 * Signatures used while the shared cache (Redis) was unreachable: the replay guard's fallback that every
 * instance sharing the database sees. `key` is the SHA-256 (hex) of the claim; a row may go once
 * `expires_at` is past, when its message could no longer be accepted anyway.
 */
export const authClaims = pgTable(
  'auth_claims',
  {
    key: text('key').primaryKey(),
    expiresAt: timestamptz('expires_at').notNull(),
  },
  (t) => [index('auth_claims_expires_at_idx').on(t.expiresAt)],
);

/**
 * API keys: a key acts as the wallet that created it. Only the SHA-256 (hex) of the key is kept; a
 * deleted key keeps its row with `revoked_at` set, so a request still carrying it is told so. A key acts
 * only within its `scopes`, on its `vaults` (null: every vault of the owner), until `expires_at` (null:
 * until deleted); keys made before scopes existed hold all of them.
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    owner: text('owner').notNull(),
    name: text('name').notNull(),
    /** The key's first characters, shown to tell keys apart. */
    prefix: text('prefix').notNull(),
    keyHash: text('key_hash').notNull(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    lastUsedAt: timestamptz('last_used_at'),
    revokedAt: timestamptz('revoked_at'),
    scopes: text('scopes')
      .array()
      .notNull()
      .default(sql`'{read,webhooks,vaults:write,exports,audit}'::text[]`),
    vaults: text('vaults').array(),
    expiresAt: timestamptz('expires_at'),
  },
  (t) => [
    uniqueIndex('api_keys_key_hash_idx').on(t.keyHash),
    index('api_keys_owner_idx').on(t.owner, t.createdAt),
  ],
);
export type ApiKeyRow = typeof apiKeys.$inferSelect;
