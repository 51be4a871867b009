// The API key resource: its schema (served and documented) and how a row becomes it.
import { type Static, Type } from 'typebox';
import { StringEnum, Timestamp } from '../../lib/json-schema.js';
import type { ApiKeyRow } from '../../storage/schema/index.js';
import { API_KEY_SCOPES, type ApiKeyScope } from './api-key-scopes.js';

export const ApiKey = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String({ description: 'what the owner called it' }),
    prefix: Type.String({ description: 'the first 10 characters of the key, to tell keys apart' }),
    createdAt: Timestamp(),
    lastUsedAt: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      format: 'date-time',
      description: 'when a request last used it (kept to the minute); null when never',
    }),
    scopes: Type.Array(StringEnum(API_KEY_SCOPES), {
      description: 'what the key may do (docs/AUTH.md, Scopes): each route needs one of these',
    }),
    vaults: Type.Unsafe<string[] | null>({
      type: ['array', 'null'],
      items: { type: 'string' },
      description: 'the vault addresses the key may act on; null: every vault of its owner',
    }),
    expiresAt: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      format: 'date-time',
      description: 'when the key stops working (401 expired_key after it); null: until deleted',
    }),
  },
  { $id: 'ApiKey', description: 'An API key as listed: never the key itself' },
);
export type ApiKey = Static<typeof ApiKey>;

export type ApiKeyWithKey = ApiKey & { key: string };

export function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt === null ? null : row.lastUsedAt.toISOString(),
    scopes: row.scopes as ApiKeyScope[],
    vaults: row.vaults,
    expiresAt: row.expiresAt === null ? null : row.expiresAt.toISOString(),
  };
}
