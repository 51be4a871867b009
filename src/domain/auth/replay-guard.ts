// Single use of each accepted signature: the shared cache (Redis) when it answers, this process otherwise.
import type { Cache } from '../../cache/cache.js';
import type { Clock } from '../../lib/clock.js';

export interface ReplayGuard {
  /** True when this call is the first to claim `key` within ttlSeconds; false for a replay. */
  claim(key: string, ttlSeconds: number): Promise<boolean>;
}

/**
 * Claims through `cache.setIfAbsent` (shared by every instance on Redis) and, always, in an exact
 * in-process set. A claim stands only when neither refuses it, so protection never lapses inside one
 * instance: not while the shared store is down (its errors count as no objection), and not after it
 * comes back without the keys claimed meanwhile.
 */
export function createReplayGuard(deps: {
  readonly cache: Pick<Cache, 'setIfAbsent'>;
  readonly clock: Clock;
  readonly onSharedStoreError?: (error: unknown) => void;
}): ReplayGuard {
  const local = createLocalClaims(deps.clock);
  return {
    async claim(key, ttlSeconds) {
      let shared = true;
      try {
        shared = await deps.cache.setIfAbsent(key, ttlSeconds);
      } catch (error) {
        deps.onSharedStoreError?.(error);
      }
      const here = local.claim(key, ttlSeconds);
      return shared && here;
    },
  };
}

const BUCKET_MS = 1_000;

/**
 * An exact set of claimed keys that forgets each key only after its TTL: keys are filed in
 * one-second expiry buckets, and whole buckets are dropped once they are past (at most once a second).
 */
export function createLocalClaims(clock: Clock) {
  const expiresAt = new Map<string, number>();
  const buckets = new Map<number, string[]>();
  let sweptUntil = Math.floor(clock.now().getTime() / BUCKET_MS);

  function sweep(nowMs: number): void {
    const current = Math.floor(nowMs / BUCKET_MS);
    if (current <= sweptUntil) return;
    for (const [bucket, keys] of buckets) {
      if (bucket >= current) continue;
      for (const key of keys)
        if ((expiresAt.get(key) ?? Number.POSITIVE_INFINITY) <= nowMs) expiresAt.delete(key);
      buckets.delete(bucket);
    }
    sweptUntil = current;
  }

  return {
    claim(key: string, ttlSeconds: number): boolean {
      const nowMs = clock.now().getTime();
      sweep(nowMs);
      const existing = expiresAt.get(key);
      if (existing !== undefined && existing > nowMs) return false;
      const expiry = nowMs + ttlSeconds * 1000;
      expiresAt.set(key, expiry);
      const bucket = Math.floor(expiry / BUCKET_MS);
      const keys = buckets.get(bucket);
      if (keys === undefined) buckets.set(bucket, [key]);
      else keys.push(key);
      return true;
    },
    get size(): number {
      return expiresAt.size;
    },
  };
}
