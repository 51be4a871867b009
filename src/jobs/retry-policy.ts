// The retry policy as data plus pure functions: what happens after each delivery attempt.

/** Each scheduled delay varies by ±20 % so retries of many deliveries spread out. */
export const RETRY_JITTER = 0.2;
/** A subscription whose attempts failed without a success for this long is disabled. */
export const MAX_FAILING_MS = 5 * 24 * 60 * 60 * 1000;
export const GONE_REASON = 'endpoint answered 410 Gone';
export const FAILING_REASON = 'deliveries failed continuously for 5 days';

export interface AttemptResult {
  /** HTTP status (or SMTP reply code); null when no response came. */
  statusCode: number | null;
  /** Why the attempt failed before a response (refused address, timeout, connection error). */
  error: string | null;
  /** The receiver's Retry-After header, if any. */
  retryAfter: string | null;
  /** True when the channel counts it delivered (HTTP 2xx, SMTP accepted). */
  ok: boolean;
  /** A chat platform's 429 wait (body `retry_after` or header), honoured in full: never retried sooner. */
  platformWaitMs?: number | null;
}

export type Decision =
  | { status: 'succeeded' }
  | { status: 'pending'; nextAttemptAt: Date }
  | { status: 'failed'; reason: 'exhausted' | 'gone' | 'disabled' };

/** Delay before the next attempt once attempt number `failedAttempt` (1-based) failed; null when spent. */
export function retryDelayMs(
  scheduleSeconds: readonly number[],
  failedAttempt: number,
  random: () => number = Math.random,
): number | null {
  const seconds = scheduleSeconds[failedAttempt - 1];
  if (seconds === undefined) return null;
  return Math.round(seconds * 1000 * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random()));
}

/** Retry-After as milliseconds from `now`: delta seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfterMs(value: string | null | undefined, now: Date): number | null {
  if (value === null || value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

/** The receiver's wish is honoured only within [delay, 2 × delay]: never sooner, never much later. */
export function applyRetryAfter(delayMs: number, retryAfterMs: number | null): number {
  if (retryAfterMs === null) return delayMs;
  return Math.min(Math.max(retryAfterMs, delayMs), 2 * delayMs);
}

export function isGone(result: AttemptResult): boolean {
  return !result.ok && result.error === null && result.statusCode === 410;
}

/** What becomes of a delivery after attempt number `attempt` ended at `finishedAt`. */
export function decideAfterAttempt(input: {
  attempt: number;
  result: AttemptResult;
  scheduleSeconds: readonly number[];
  finishedAt: Date;
  random?: () => number;
}): Decision {
  const { result } = input;
  if (result.ok) return { status: 'succeeded' };
  if (isGone(result)) return { status: 'failed', reason: 'gone' };
  const delayMs = retryDelayMs(input.scheduleSeconds, input.attempt, input.random);
  if (delayMs === null) return { status: 'failed', reason: 'exhausted' };
  const waitMs =
    result.platformWaitMs === null || result.platformWaitMs === undefined
      ? applyRetryAfter(delayMs, parseRetryAfterMs(result.retryAfter, input.finishedAt))
      : Math.max(delayMs, result.platformWaitMs);
  return { status: 'pending', nextAttemptAt: new Date(input.finishedAt.getTime() + waitMs) };
}

/** One line for `last_error`: the failure class, or `http_<status>` for a status that was not a success. */
export function describeFailure(result: AttemptResult): string | null {
  if (result.ok) return null;
  if (result.error !== null) return result.error;
  return result.statusCode === null ? 'no response' : `http_${result.statusCode}`;
}

export interface SubscriptionHealth {
  /** Start of the current run of failures; null when the last attempt succeeded. */
  failingSince: Date | null;
  /** Why the subscription must now be disabled, or null. */
  disable: string | null;
}

/** Folds a batch of attempt results (any order) into a subscription's failure record. */
export function nextSubscriptionHealth(
  failingSince: Date | null,
  results: readonly { startedAt: Date; result: AttemptResult }[],
  now: Date,
): SubscriptionHealth {
  let since = failingSince;
  let gone = false;
  const ordered = [...results].sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
  for (const { startedAt, result } of ordered) {
    if (result.ok) since = null;
    else since ??= startedAt;
    gone ||= isGone(result);
  }
  const failingTooLong = since !== null && now.getTime() - since.getTime() >= MAX_FAILING_MS;
  return { failingSince: since, disable: gone ? GONE_REASON : failingTooLong ? FAILING_REASON : null };
}
