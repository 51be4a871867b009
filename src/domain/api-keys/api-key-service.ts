// API keys: a wallet creates them (shown once, kept as a SHA-256 hash), lists and deletes its own; a
// key then authenticates requests as that wallet, within its scopes and vaults, until it is deleted or
// expires.
import { createHash, randomBytes } from 'node:crypto';
import { API_KEY_PATTERN, API_KEY_PREFIX, API_KEY_PREFIX_LENGTH } from '@vaultkeeper/client/wire';
import { and, asc, count, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { AppError, validationError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Database } from '../../storage/database.js';
import { apiKeys, vaults } from '../../storage/schema/index.js';
import { type AuditStamp, recordDone } from '../audit/audit-service.js';
import { type ApiKey, type ApiKeyWithKey, toApiKey } from './api-key-resource.js';
import {
  API_KEY_SCOPES,
  type ApiKeyGrant,
  type ApiKeyScope,
  MAX_API_KEY_LIFETIME_MS,
} from './api-key-scopes.js';

/** Live keys one wallet may hold at once. */
export const MAX_API_KEYS_PER_OWNER = 20;
/** lastUsedAt is written at most this often per key: a busy key costs one write a minute. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface ApiKeyServiceDeps {
  readonly db: Database;
  readonly clock: Clock;
}

export type ApiKeyFailureReason = 'invalid_key' | 'revoked_key' | 'expired_key';

const FAILURES: Readonly<Record<ApiKeyFailureReason, string>> = {
  invalid_key: 'This API key is not one the service issued',
  revoked_key: 'This API key was deleted',
  expired_key: 'This API key has expired',
};

export interface CreateApiKeyInput {
  readonly name: string;
  /** Default: every scope. */
  readonly scopes?: readonly ApiKeyScope[] | undefined;
  /** Default: every vault of the owner, now and later. */
  readonly vaults?: readonly string[] | undefined;
  /** ISO 8601; default: no expiry. */
  readonly expiresAt?: string | undefined;
}

const hashOf = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

function refused(reason: ApiKeyFailureReason): AppError {
  return new AppError('UNAUTHORIZED', FAILURES[reason], { reason });
}

const notFound = (id: string) => new AppError('API_KEY_NOT_FOUND', 'API key not found', { id });

export function createApiKeyService(deps: ApiKeyServiceDeps) {
  const { db, clock } = deps;
  return {
    /** A new key acting as `owner`; its text is in this answer only. */
    async createApiKey(
      owner: string,
      input: CreateApiKeyInput,
      audit?: AuditStamp | null,
    ): Promise<ApiKeyWithKey> {
      const expiresAt = parseExpiry(input.expiresAt, clock.now());
      const keyVaults = input.vaults === undefined ? null : await assertOwnVaults(db, owner, input.vaults);
      const scopes = API_KEY_SCOPES.filter((scope) => (input.scopes ?? API_KEY_SCOPES).includes(scope));
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
            scopes,
            vaults: keyVaults,
            expiresAt,
          })
          .returning();
        await recordDone(tx, audit, { target: `api_key:${created!.id}`, vault: null }, clock.now());
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
    async deleteApiKey(owner: string, id: string, audit?: AuditStamp | null): Promise<void> {
      await db.transaction(async (tx) => {
        const revoked = await tx
          .update(apiKeys)
          .set({ revokedAt: clock.now() })
          .where(and(eq(apiKeys.id, id), eq(apiKeys.owner, owner), isNull(apiKeys.revokedAt)))
          .returning({ id: apiKeys.id });
        if (revoked.length === 0) throw notFound(id);
        await recordDone(tx, audit, { target: `api_key:${id}`, vault: null }, clock.now());
      });
    },

    /** What a key may do and as which wallet, or UNAUTHORIZED (invalid_key, revoked_key, expired_key). */
    async authenticateApiKey(key: string): Promise<ApiKeyGrant> {
      if (!API_KEY_PATTERN.test(key)) throw refused('invalid_key');
      const [row] = await db
        .select()
        .from(apiKeys)
        .where(eq(apiKeys.keyHash, hashOf(key)));
      if (row === undefined) throw refused('invalid_key');
      if (row.revokedAt !== null) throw refused('revoked_key');
      const now = clock.now();
      if (row.expiresAt !== null && row.expiresAt <= now) {
        throw new AppError('UNAUTHORIZED', FAILURES.expired_key, {
          reason: 'expired_key',
          expiredAt: row.expiresAt.toISOString(),
        });
      }
      const due = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
      if (row.lastUsedAt === null || row.lastUsedAt < due) {
        await db
          .update(apiKeys)
          .set({ lastUsedAt: now })
          .where(and(eq(apiKeys.id, row.id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, due))));
      }
      return { id: row.id, owner: row.owner, scopes: row.scopes as ApiKeyScope[], vaults: row.vaults };
    },
  };
}

/** The expiry of a new key: in the future and at most a year away; null when none was asked for. */
function parseExpiry(text: string | undefined, now: Date): Date | null {
  if (text === undefined) return null;
  const at = new Date(text);
  const latest = now.getTime() + MAX_API_KEY_LIFETIME_MS;
  if (Number.isNaN(at.getTime()) || at <= now || at.getTime() > latest) {
    throw validationError([
      { path: 'body.expiresAt', message: 'must be a time in the future, at most one year from now' },
    ]);
  }
  return at;
}

/** The vaults a new key is limited to, each one of the owner's (a VALIDATION_ERROR names any other). */
async function assertOwnVaults(db: Database, owner: string, wanted: readonly string[]): Promise<string[]> {
  const unique = [...new Set(wanted)];
  const rows = await db
    .select({ address: vaults.address })
    .from(vaults)
    .where(and(eq(vaults.authority, owner), inArray(vaults.address, unique)));
  const owned = new Set(rows.map((r) => r.address));
  const others = unique.filter((address) => !owned.has(address));
  if (others.length > 0) {
    throw validationError(
      others.map((address) => ({ path: 'body.vaults', message: `${address} is not a vault of this wallet` })),
    );
  }
  return unique;
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
