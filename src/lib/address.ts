import { isBase58Address } from './base58.js';

/**
 * True for a base58 string that decodes to exactly 32 bytes: what @solana/kit's isAddress accepts
 * (base58.test.ts compares the two), without its BigInt decoding on every request.
 */
export function isSolanaAddress(value: unknown): value is string {
  return typeof value === 'string' && isBase58Address(value);
}
