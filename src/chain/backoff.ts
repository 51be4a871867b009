// Capped, jittered exponential backoff and an abortable sleep for the ingestion loops.

export interface Backoff {
  /** The next delay: base × 2^attempt, capped, with ±50 % jitter so restarts do not stampede. */
  next(): number;
  reset(): void;
}

export function createBackoff(options: { baseMs: number; capMs: number; random?: () => number }): Backoff {
  const random = options.random ?? Math.random;
  let attempt = 0;
  return {
    next() {
      const ceiling = Math.min(options.capMs, options.baseMs * 2 ** Math.min(attempt, 30));
      attempt += 1;
      return Math.round(ceiling * (0.5 + random() / 2));
    },
    reset() {
      attempt = 0;
    },
  };
}

/** Resolves after ms, or at once when the signal aborts (never rejects). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Runs fn, retrying failures with backoff; the last failure (or an abort) is thrown. */
export async function withRetry<T>(
  fn: () => Promise<T>,
  options: { attempts: number; baseMs?: number; capMs?: number; signal?: AbortSignal },
): Promise<T> {
  const backoff = createBackoff({ baseMs: options.baseMs ?? 100, capMs: options.capMs ?? 2_000 });
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (attempt >= options.attempts || options.signal?.aborted) throw error;
      await sleep(backoff.next(), options.signal);
    }
  }
}
