// The recent `confirmed` blockhash that built transactions carry, fetched at most once per short period.
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { createSharedResult } from '../../lib/shared-result.js';

export interface LatestBlockhash {
  readonly blockhash: string;
  readonly lastValidBlockHeight: bigint;
}

export interface LatestBlockhashOptions {
  readonly clock: Clock;
  /** A blockhash stays usable for ~60 s; reusing one for this long spares the RPC node a call per request. */
  readonly reuseMs?: number;
  readonly timeoutMs?: number;
  /** Told about each failed fetch (the 503 body stays generic; operators need the cause). */
  readonly onError?: (error: unknown) => void;
}

/**
 * Wraps an RPC fetch: concurrent callers share one request, a result is reused for `reuseMs`, and any
 * failure or timeout becomes 503 RPC_UNAVAILABLE (never cached).
 */
export function createLatestBlockhashSource(
  fetchLatest: (signal: AbortSignal) => Promise<LatestBlockhash>,
  options: LatestBlockhashOptions,
) {
  const timeoutMs = options.timeoutMs ?? 5_000;
  async function fetchNow(): Promise<LatestBlockhash> {
    try {
      return await fetchLatest(AbortSignal.timeout(timeoutMs));
    } catch (error) {
      options.onError?.(error);
      throw new AppError(
        'RPC_UNAVAILABLE',
        'The Solana RPC node did not return a recent blockhash',
        {},
        {
          cause: error,
        },
      );
    }
  }
  const get = createSharedResult(fetchNow, {
    reuseMs: options.reuseMs ?? 2_000,
    now: () => options.clock.now().getTime(),
  });
  return { get };
}

export type LatestBlockhashSource = ReturnType<typeof createLatestBlockhashSource>;
