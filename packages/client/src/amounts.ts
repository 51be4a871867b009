// Amounts as people read them. Exact: bigint arithmetic, never floating point.

/** Lamports as SOL text without floating point: 1500000000n → "1.5". */
export function formatSol(lamports: bigint): string {
  const whole = lamports / 1_000_000_000n;
  const fraction = (lamports % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return fraction === '' ? whole.toString() : `${whole}.${fraction}`;
}
