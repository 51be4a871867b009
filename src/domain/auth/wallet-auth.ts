// Wallet authentication: a signed, fresh, single-use message proves control of an address.
import type { Cache } from '../../cache/cache.js';
import { AppError } from '../../errors.js';
import { isSolanaAddress } from '../../lib/address.js';
import type { Clock } from '../../lib/clock.js';
import { decodeBase58, verifyEd25519 } from '../../lib/ed25519.js';

export const AUTH_MESSAGE_PREFIX = 'Sign this message to authenticate with Vaultkeeper.\n\nTimestamp: ';
const FUTURE_SKEW_MS = 60_000;

export type AuthFailureReason =
  | 'missing_headers'
  | 'malformed'
  | 'bad_signature'
  | 'wrong_message'
  | 'expired'
  | 'replayed';

export interface WalletAuthHeaders {
  address: string | undefined;
  signature: string | undefined;
  message: string | undefined;
}

export function unauthorized(reason: AuthFailureReason): AppError {
  const messages: Record<AuthFailureReason, string> = {
    missing_headers: 'Wallet authentication required: X-Wallet-Address, X-Signature and X-Message',
    malformed: 'Wallet authentication headers are malformed',
    bad_signature: 'Signature does not verify for this wallet and message',
    wrong_message: 'Signed message is not the Vaultkeeper authentication message',
    expired: 'Signed message timestamp is outside the accepted window',
    replayed: 'This signature was already used',
  };
  return new AppError('UNAUTHORIZED', messages[reason], { reason });
}

/** The message a wallet signs for one request. */
export function buildAuthMessage(timestampMs: number): string {
  return `${AUTH_MESSAGE_PREFIX}${timestampMs}`;
}

/**
 * Decodes X-Message: newlines written as the two characters `\n`, percent-encoding, or
 * `base64:` + base64 of the UTF-8 text. Null when it cannot be decoded.
 */
export function decodeMessageHeader(header: string): string | null {
  if (header.startsWith('base64:')) {
    const payload = header.slice(7);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(payload)) return null;
    const text = Buffer.from(payload, 'base64').toString('utf8');
    return text.includes('\uFFFD') ? null : text;
  }
  if (/%[0-9A-Fa-f]{2}/.test(header)) {
    try {
      return decodeURIComponent(header);
    } catch {
      return null;
    }
  }
  return header.replaceAll('\\n', '\n');
}

export interface WalletAuthDeps {
  readonly cache: Cache;
  readonly clock: Clock;
  readonly maxAgeSeconds: number;
}

export function createWalletAuth(deps: WalletAuthDeps) {
  // Used when the shared store (Redis) does not answer: replay protection must not lapse.
  const fallbackGuard = new Map<string, number>();

  async function markUsed(signature: string, ttlSeconds: number): Promise<boolean> {
    const key = `auth:sig:${signature}`;
    try {
      return await deps.cache.setIfAbsent(key, ttlSeconds);
    } catch {
      const now = deps.clock.now().getTime();
      for (const [k, expires] of fallbackGuard) if (expires < now) fallbackGuard.delete(k);
      if (fallbackGuard.has(key)) return false;
      fallbackGuard.set(key, now + ttlSeconds * 1000);
      return true;
    }
  }

  return {
    /** Returns the authenticated wallet address, or throws UNAUTHORIZED with details.reason. */
    async authenticate(headers: WalletAuthHeaders): Promise<string> {
      const { address, signature, message } = headers;
      if (!address || !signature || !message) throw unauthorized('missing_headers');
      if (!isSolanaAddress(address)) throw unauthorized('malformed');
      const signatureBytes = decodeBase58(signature);
      if (signatureBytes === null || signatureBytes.length !== 64) throw unauthorized('malformed');
      const text = decodeMessageHeader(message);
      if (text === null) throw unauthorized('malformed');
      if (!text.startsWith(AUTH_MESSAGE_PREFIX)) throw unauthorized('wrong_message');
      const stamp = text.slice(AUTH_MESSAGE_PREFIX.length);
      if (!/^\d{1,16}$/.test(stamp)) throw unauthorized('wrong_message');
      const valid = await verifyEd25519(address, Buffer.from(text, 'utf8'), signatureBytes);
      if (!valid) throw unauthorized('bad_signature');
      const age = deps.clock.now().getTime() - Number(stamp);
      if (age > deps.maxAgeSeconds * 1000 || age < -FUTURE_SKEW_MS) throw unauthorized('expired');
      // Remember the signature for as long as its message could still be accepted.
      const ttlSeconds = Math.ceil((deps.maxAgeSeconds * 1000 - age) / 1000) + 1;
      if (!(await markUsed(signature, ttlSeconds))) throw unauthorized('replayed');
      return address;
    },
  };
}

export type WalletAuth = ReturnType<typeof createWalletAuth>;
