import { index, pgTable, text } from 'drizzle-orm/pg-core';
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
