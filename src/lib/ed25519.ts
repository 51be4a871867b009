import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { getBase58Encoder } from '@solana/kit';

const base58 = getBase58Encoder();
const keyCache = new Map<string, KeyObject>();
const KEY_CACHE_LIMIT = 10_000;

/** Decodes base58 text to bytes; null when it is not base58. */
export function decodeBase58(text: string): Uint8Array | null {
  if (!/^[1-9A-HJ-NP-Za-km-z]+$/.test(text)) return null;
  try {
    return new Uint8Array(base58.encode(text));
  } catch {
    return null;
  }
}

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

/** Verifies an ed25519 signature off the event loop's critical path (libuv thread pool). */
export function verifyEd25519(address: string, message: Uint8Array, signature: Uint8Array): Promise<boolean> {
  const key = publicKeyOf(address);
  if (key === null || signature.length !== 64) return Promise.resolve(false);
  return new Promise((resolve) => {
    verify(null, message, key, signature, (error, ok) => resolve(error === null && ok));
  });
}
