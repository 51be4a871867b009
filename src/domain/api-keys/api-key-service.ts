// API keys: a wallet creates them (shown once, kept as a SHA-256 hash), lists and deletes its own; a
// key then authenticates requests as that wallet until it is deleted.
import { createHash, randomBytes } from 'node:crypto';
import { API_KEY_PATTERN, API_KEY_PREFIX, API_KEY_PREFIX_LENGTH } from '@vaultkeeper/client/wire';
import { and, asc, count, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Database } from '../../storage/database.js';
import { apiKeys } from '../../storage/schema/index.js';
import { type ApiKey, type ApiKeyWithKey, toApiKey } from './api-key-resource.js';

/** Live keys one wallet may hold at once. */
export const MAX_API_KEYS_PER_OWNER = 20;
/** lastUsedAt is written at most this often per key: a busy key costs one write a minute. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface ApiKeyServiceDeps {
  readonly db: Database;
  readonly clock: Clock;
}

export type ApiKeyFailureReason = 'invalid_key' | 'revoked_key';

const FAILURES: Readonly<Record<ApiKeyFailureReason, string>> = {
  invalid_key: 'This API key is not one the service issued',
  revoked_key: 'This API key was deleted',
};

const hashOf = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

function refused(reason: ApiKeyFailureReason): AppError {
  return new AppError('UNAUTHORIZED', FAILURES[reason], { reason });
}

const notFound = (id: string) => new AppError('API_KEY_NOT_FOUND', 'API key not found', { id });

export function createApiKeyService(deps: ApiKeyServiceDeps) {
  const { db, clock } = deps;
  return {
    /** A new key acting as `owner`; its text is in this answer only. */
    async createApiKey(owner: string, input: { name: string }): Promise<ApiKeyWithKey> {
      const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
      const row = await db.transaction(async (tx) => {
        // One creation per owner at a time, so concurrent requests cannot pass the limit together.
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`api-keys:${owner}`}))`);
        const [held] = await tx
          .select({ n: count() })
          .from(apiKeys)
          .where(and(eq(apiKeys.owner, owner), isNull(apiKeys.revokedAt)));
        if ((held?.n ?? 0) >= MAX_API_KEYS_PER_OWNER) {
          throw new AppError(
            'API_KEY_LIMIT_REACHED',
            `A wallet holds at most ${MAX_API_KEYS_PER_OWNER} API keys: delete one first`,
            { limit: MAX_API_KEYS_PER_OWNER },
          );
        }
        const [created] = await tx
          .insert(apiKeys)
          .values({
            owner,
            name: input.name,
            prefix: key.slice(0, API_KEY_PREFIX_LENGTH),
            keyHash: hashOf(key),
            createdAt: clock.now(),
          })
          .returning();
        return created!;
      });
      return { ...toApiKey(row), key };
    },

    /** The owner's live keys, oldest first, without the keys themselves. */
    async listApiKeys(owner: string): Promise<{ apiKeys: ApiKey[] }> {
      const rows = await db
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.owner, owner), isNull(apiKeys.revokedAt)))
        .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
      return { apiKeys: rows.map(toApiKey) };
    },

    /** Revokes one of the owner's keys at once; another wallet's key is not found, as an unknown one. */
    async deleteApiKey(owner: string, id: string): Promise<void> {
      const revoked = await db
        .update(apiKeys)
        .set({ revokedAt: clock.now() })
        .where(and(eq(apiKeys.id, id), eq(apiKeys.owner, owner), isNull(apiKeys.revokedAt)))
        .returning({ id: apiKeys.id });
      if (revoked.length === 0) throw notFound(id);
    },

    /** The wallet a key acts as, or UNAUTHORIZED with reason invalid_key or revoked_key. */
    async authenticateApiKey(key: string): Promise<string> {
      if (!API_KEY_PATTERN.test(key)) throw refused('invalid_key');
      const [row] = await db
        .select()
        .from(apiKeys)
        .where(eq(apiKeys.keyHash, hashOf(key)));
      if (row === undefined) throw refused('invalid_key');
      if (row.revokedAt !== null) throw refused('revoked_key');
      const now = clock.now();
      const due = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
      if (row.lastUsedAt === null || row.lastUsedAt < due) {
        await db
          .update(apiKeys)
          .set({ lastUsedAt: now })
          .where(and(eq(apiKeys.id, row.id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, due))));
      }
      return row.owner;
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
