// Capped exponential backoff (jittered by default) and an abortable sleep: the one retry delay of
// every loop that waits for something to come back (the database at start, RPC endpoints, ingestion),
// and withRetry for a call that may fail a few times before it answers.

export interface BackoffOptions {
  baseMs: number;
  capMs: number;
  /** ±50 % jitter so restarts do not stampede (default true); false gives the bare doubling. */
  jitter?: boolean;
  random?: () => number;
}

/** The ceiling of the nth retry's delay (n from 0): base × 2^n, capped. */
export function backoffDelay(attempt: number, options: { baseMs: number; capMs: number }): number {
  return Math.min(options.capMs, options.baseMs * 2 ** Math.min(attempt, 30));
}

export interface Backoff {
  /** The next delay: base × 2^attempt, capped, with ±50 % jitter unless turned off. */
  next(): number;
  reset(): void;
}

export function createBackoff(options: BackoffOptions): Backoff {
  const random = options.random ?? Math.random;
  const jitter = options.jitter ?? true;
  let attempt = 0;
  return {
    next() {
      const ceiling = backoffDelay(attempt, options);
      attempt += 1;
      return jitter ? Math.round(ceiling * (0.5 + random() / 2)) : ceiling;
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
