// ed25519 signature checks with node:crypto.
import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { decodeBase58 } from './base58.js';

/** Re-exported for the modules that import it from here; the decoder lives in base58.ts. */
export { decodeBase58 };

const keyCache = new Map<string, KeyObject>();
const KEY_CACHE_LIMIT = 10_000;

/** The ed25519 public key of a base58 address, imported through JWK (fast) and kept for reuse. */
export function publicKeyOf(address: string): KeyObject | null {
  const cached = keyCache.get(address);
  if (cached !== undefined) return cached;
  const bytes = decodeBase58(address);
  if (bytes === null || bytes.length !== 32) return null;
  let key: KeyObject;
  try {
    key = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(bytes).toString('base64url') },
      format: 'jwk',
    });
  } catch {
    return null;
  }
  if (keyCache.size >= KEY_CACHE_LIMIT) keyCache.delete(keyCache.keys().next().value as string);
  keyCache.set(address, key);
  return key;
}

/** Verifies an ed25519 signature on the libuv thread pool, so verification uses every core. */
export function verifyEd25519(
  address: string | KeyObject,
  message: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  const key = typeof address === 'string' ? publicKeyOf(address) : address;
  if (key === null || signature.length !== 64) return Promise.resolve(false);
  return new Promise((resolve) => {
    verify(null, message, key, signature, (error, ok) => resolve(error === null && ok));
  });
}
