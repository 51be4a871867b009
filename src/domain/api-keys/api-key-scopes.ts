// What an API key may do: its scopes (each route needs one), its vaults (null: all of the owner's) and
// when it stops working. A wallet signature holds every scope on every vault of its wallet.
import { AppError } from '../../errors.js';

export const API_KEY_SCOPES = ['read', 'webhooks', 'vaults:write', 'exports', 'audit'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** The longest an expiring key may live: a year from its creation. */
export const MAX_API_KEY_LIFETIME_MS = 365 * 24 * 60 * 60 * 1000;

/** The key a request carried, as the routes see it: its id, scopes and vaults. */
export interface ApiKeyGrant {
  readonly id: string;
  readonly owner: string;
  readonly scopes: readonly ApiKeyScope[];
  /** The vault addresses the key may act on; null: every vault of its owner. */
  readonly vaults: readonly string[] | null;
}

/** 403 INSUFFICIENT_SCOPE naming the scope the request needed (and the vault, when that was the limit). */
export function insufficientScope(scope: ApiKeyScope, vault?: string | null): AppError {
  if (vault === undefined) {
    return new AppError('INSUFFICIENT_SCOPE', `This API key lacks the \`${scope}\` scope this route needs`, {
      scope,
      reason: 'scope',
    });
  }
  const where = vault === null ? 'every vault of its owner' : `vault ${vault}`;
  return new AppError(
    'INSUFFICIENT_SCOPE',
    `This API key is limited to some vaults and may not use \`${scope}\` on ${where}`,
    { scope, reason: 'vault', vault },
  );
}

/** Throws INSUFFICIENT_SCOPE unless the key holds the scope. A wallet (no key) holds every scope. */
export function assertKeyScope(key: ApiKeyGrant | null, scope: ApiKeyScope): void {
  if (key !== null && !key.scopes.includes(scope)) throw insufficientScope(scope);
}

/**
 * Throws INSUFFICIENT_SCOPE unless the key may act on `vault`; `null` means the request acts on every
 * vault of the owner, which only an unlimited key may.
 */
export function assertKeyVault(key: ApiKeyGrant | null, scope: ApiKeyScope, vault: string | null): void {
  if (key === null || key.vaults === null) return;
  if (vault === null || !key.vaults.includes(vault)) throw insufficientScope(scope, vault);
}
