export const U64_MAX = 2n ** 64n - 1n;

/**
 * Parses a lamport amount given as a safe JSON integer or a decimal string; null when it is not a
 * whole number in 1..2^64-1 (or 0..2^64-1 with allowZero).
 */
export function parseLamports(value: unknown, options: { allowZero?: boolean } = {}): bigint | null {
  let parsed: bigint;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) return null;
    parsed = BigInt(value);
  } else if (typeof value === 'string' && /^\d{1,20}$/.test(value)) {
    parsed = BigInt(value);
  } else {
    return null;
  }
  const min = options.allowZero ? 0n : 1n;
  return parsed >= min && parsed <= U64_MAX ? parsed : null;
}

/** Lamports as SOL text ("1.5"): the client package's, so the pages and the server write amounts alike. */
export { formatSol } from '@vaultkeeper/client';
