// Retries for the ingestion loops, on the shared backoff and abortable sleep.
import { createBackoff, sleep } from '../lib/backoff.js';

export { type Backoff, createBackoff, sleep } from '../lib/backoff.js';

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
