import { isAddress } from '@solana/kit';

/** True for a base58 string that decodes to exactly 32 bytes. */
export function isSolanaAddress(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 32 && value.length <= 44 && isAddress(value);
}
