// The owner console's list of API keys as rows (pure: no DOM): what each key may do, on which vaults,
// when it was last used and when it stops working. Never the key itself (the API does not return it).
import type { ApiKeyList } from '@vaultkeeper/client';
import { formatAgo, formatDateTime, shortAddress } from './format.js';

type ApiKey = ApiKeyList['apiKeys'][number];

export interface ApiKeyRow {
  readonly name: string;
  readonly prefix: string;
  readonly scopes: string;
  readonly vaults: string;
  readonly lastUsed: string;
  readonly expiry: string;
  /** Expired, or expiring within a week: shown as a warning. */
  readonly warn: boolean;
}

const ALL_SCOPES = 5;
const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

/** One key as the console shows it; `vault` is the page's vault, named "this vault" in the list. */
export function describeApiKey(key: ApiKey, vault: string, now = Date.now()): ApiKeyRow {
  const expiresMs = key.expiresAt === null ? null : new Date(key.expiresAt).getTime();
  const vaults =
    key.vaults === null
      ? 'every vault'
      : key.vaults.map((v) => (v === vault ? 'this vault' : shortAddress(v))).join(', ') || 'none';
  return {
    name: key.name,
    prefix: `${key.prefix}…`,
    scopes: key.scopes.length === ALL_SCOPES ? 'all' : key.scopes.join(', '),
    vaults,
    lastUsed: key.lastUsedAt === null ? 'never' : formatAgo(key.lastUsedAt, now),
    expiry:
      expiresMs === null
        ? 'never'
        : expiresMs <= now
          ? `expired ${formatDateTime(key.expiresAt!)}`
          : formatDateTime(key.expiresAt!),
    warn: expiresMs !== null && expiresMs - now < WEEK_MS,
  };
}
