// The compute unit price of a built transaction: a percentile of recent prioritization fees over its
// writable accounts, capped so that the priority fee never exceeds the configured lamports.
import type { Config } from '../../config.js';

/** PRIORITY_FEE (mode), PRIORITY_FEE_PERCENTILE (nearest rank, zeros included), PRIORITY_FEE_MAX_LAMPORTS. */
export type PriorityFeeSettings = Config['priorityFee'];

/** Estimates are reused per writable-account set for at most this long. */
export const FEE_ESTIMATE_TTL_MS = 10_000;
const MICRO = 1_000_000n;

/** Nearest-rank percentile of the values (0 when there are none). */
export function getPercentile(values: readonly bigint[], percentile: number): bigint {
  if (values.length === 0) return 0n;
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((percentile / 100) * sorted.length)));
  return sorted[rank - 1] ?? 0n;
}

/** Lowers the price so that price × units / 10^6 stays within maxLamports. */
export function capPrice(price: bigint, units: number, maxLamports: bigint): bigint {
  const ceiling = (maxLamports * MICRO) / BigInt(Math.max(1, units));
  return price > ceiling ? ceiling : price;
}

/** The priority fee in lamports the runtime charges: ceil(price × units / 10^6). */
export function getPriorityFeeLamports(price: bigint | null, units: number): bigint {
  if (price === null) return 0n;
  return (price * BigInt(units) + MICRO - 1n) / MICRO;
}

/**
 * Per writable-account set: the estimate of the last 10 s, or a fresh one. A failing fee call answers
 * the last estimate of that set (or 0) and never throws.
 */
export function createPriorityFeeEstimator(deps: {
  readonly settings: PriorityFeeSettings;
  readonly fetchFees: (accounts: readonly string[]) => Promise<bigint[]>;
  readonly now: () => number;
  readonly onError: (error: unknown) => void;
}) {
  const estimates = new Map<string, { price: bigint; at: number }>();
  const inFlight = new Map<string, Promise<bigint>>();

  async function fetchEstimate(key: string, accounts: readonly string[]): Promise<bigint> {
    try {
      const price = getPercentile(await deps.fetchFees(accounts), deps.settings.percentile);
      estimates.set(key, { price, at: deps.now() });
      if (estimates.size > 10_000) estimates.delete(estimates.keys().next().value as string);
      return price;
    } catch (error) {
      deps.onError(error);
      return estimates.get(key)?.price ?? 0n;
    } finally {
      inFlight.delete(key);
    }
  }

  return {
    /** The uncapped price (µlamports per CU) for these writable accounts; null when priority fees are off. */
    async estimate(accounts: readonly string[]): Promise<bigint | null> {
      const { mode } = deps.settings;
      if (mode.kind === 'off') return null;
      if (mode.kind === 'fixed') return mode.microLamports;
      const key = [...new Set(accounts)].sort().join(',');
      const known = estimates.get(key);
      if (known !== undefined && deps.now() - known.at < FEE_ESTIMATE_TTL_MS) return known.price;
      let pending = inFlight.get(key);
      if (pending === undefined) {
        pending = fetchEstimate(key, accounts);
        inFlight.set(key, pending);
      }
      return pending;
    },
  };
}
