// ed25519 signature checks with node:crypto, and the base58 decoding wallet headers need.
import { createPublicKey, type KeyObject, verify } from 'node:crypto';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;
/** 58^1..58^5: up to five digits are folded into 16-bit limbs per pass without losing precision. */
const POWERS = [1, 58, 58 ** 2, 58 ** 3, 58 ** 4, 58 ** 5];
const MAX_BASE58_CHARS = 200;

const keyCache = new Map<string, KeyObject>();
const KEY_CACHE_LIMIT = 10_000;

/**
 * Decodes base58 (Bitcoin alphabet) text to bytes; null when it is not base58. About 10× faster
 * than a BigInt decoder, which matters because every authenticated request decodes a signature.
 */
export function decodeBase58(text: string): Uint8Array | null {
  if (text.length === 0 || text.length > MAX_BASE58_CHARS) return null;
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 49 /* '1' */) zeros++;
  // Little-endian 16-bit limbs of the number the remaining digits spell.
  const limbs = new Uint32Array(Math.ceil((text.length * 0.7322) / 2) + 1);
  let used = 0;
  for (let i = zeros; i < text.length; ) {
    const take = Math.min(5, text.length - i);
    let chunk = 0;
    for (let j = 0; j < take; j++, i++) {
      const code = text.charCodeAt(i);
      const digit = code < 128 ? DIGIT[code]! : -1;
      if (digit < 0) return null;
      chunk = chunk * 58 + digit;
    }
    const multiplier = POWERS[take]!;
    let carry = chunk;
    for (let k = 0; k < used; k++) {
      const value = limbs[k]! * multiplier + carry;
      limbs[k] = value % 65_536;
      carry = Math.floor(value / 65_536);
    }
    while (carry > 0) {
      limbs[used++] = carry % 65_536;
      carry = Math.floor(carry / 65_536);
    }
  }
  let significant = used * 2;
  if (used > 0 && limbs[used - 1]! < 256) significant--;
  const out = new Uint8Array(zeros + significant);
  for (let b = 0; b < significant; b++) {
    const limb = limbs[b >> 1]!;
    out[out.length - 1 - b] = b & 1 ? limb >> 8 : limb & 0xff;
  }
  return out;
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
