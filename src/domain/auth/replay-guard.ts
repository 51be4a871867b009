// Single use of each accepted signature: the shared cache (Redis) while it answers, the database while
// it does not, and this process always.
import { createHash } from 'node:crypto';
import type { Cache } from '../../cache/cache.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { ClaimStore } from './replay-guard-store.js';

export interface ReplayGuard {
  /** True when this call is the first to claim `key` within ttlSeconds; false for a replay. */
  claim(key: string, ttlSeconds: number): Promise<boolean>;
}

/** How often the guard asks the database whether it still holds unexpired claims. */
const DATABASE_CHECK_INTERVAL_MS = 1_000;
/** How often expired database claims are deleted while any exist. */
const DATABASE_PURGE_INTERVAL_MS = 60_000;

export interface ReplayGuardDeps {
  readonly cache: Pick<Cache, 'setIfAbsent'>;
  readonly clock: Clock;
  /**
   * Claims shared through the database, for when the shared cache is unreachable (instances that share
   * Redis share the database too). Omitted: single-process protection only while the cache is away.
   */
  readonly claimStore?: ClaimStore | undefined;
  readonly onSharedStoreError?: (error: unknown) => void;
}

/**
 * Claims through `cache.setIfAbsent` (shared by every instance on Redis) and, always, in an exact
 * in-process set. While the shared cache fails, claims go to the database instead (ON CONFLICT DO
 * NOTHING), so two instances never both accept one signature; after it returns they keep going there
 * too for as long as the database holds unexpired claims, so a signature used during the outage stays
 * refused. A claim stands only when every store consulted accepts it.
 */
export function createReplayGuard(deps: ReplayGuardDeps): ReplayGuard {
  const local = createLocalClaims(deps.clock);
  const database = deps.claimStore === undefined ? null : createDatabaseClaims(deps.claimStore, deps.clock);
  return {
    async claim(key, ttlSeconds) {
      let shared = true;
      let sharedDown = false;
      try {
        shared = await deps.cache.setIfAbsent(key, ttlSeconds);
      } catch (error) {
        sharedDown = true;
        deps.onSharedStoreError?.(error);
      }
      let stored = true;
      // A signature Redis already refused is refused: the database need not hear of it.
      if (database !== null && (sharedDown || (shared && (await database.inUse())))) {
        stored = await database.claim(key, ttlSeconds);
      }
      const here = local.claim(key, ttlSeconds);
      return shared && stored && here;
    },
  };
}

/** The database side of the guard: whether it is in use, and claims through it. */
function createDatabaseClaims(store: ClaimStore, clock: Clock) {
  let claimsUntilMs = 0;
  let checkedAtMs = Number.NEGATIVE_INFINITY;
  let purgedAtMs = Number.NEGATIVE_INFINITY;

  async function refresh(nowMs: number): Promise<void> {
    checkedAtMs = nowMs;
    try {
      const latest = await store.latestExpiry();
      claimsUntilMs = Math.max(claimsUntilMs, latest?.getTime() ?? 0);
    } catch {
      // The database is consulted again within a second; until then, the last answer stands.
      return;
    }
    if (claimsUntilMs > 0 && nowMs - purgedAtMs >= DATABASE_PURGE_INTERVAL_MS) {
      purgedAtMs = nowMs;
      store.purgeExpired(new Date(nowMs)).catch(() => {});
    }
  }

  return {
    /** True while the database may hold a claim that has not expired (checked at most once a second). */
    async inUse(): Promise<boolean> {
      const nowMs = clock.now().getTime();
      if (nowMs - checkedAtMs >= DATABASE_CHECK_INTERVAL_MS) await refresh(nowMs);
      return claimsUntilMs > nowMs;
    },
    async claim(key: string, ttlSeconds: number): Promise<boolean> {
      const expiresAtMs = clock.now().getTime() + ttlSeconds * 1000;
      // Rows are keyed by a hash: fixed width, and no signature text at rest.
      const hashed = createHash('sha256').update(key).digest('hex');
      let stored: boolean;
      try {
        stored = await store.claim(hashed, new Date(expiresAtMs));
      } catch (error) {
        throw new AppError(
          'SERVICE_UNAVAILABLE',
          'Signature reuse cannot be checked right now; retry shortly',
          {},
          { cause: error },
        );
      }
      claimsUntilMs = Math.max(claimsUntilMs, expiresAtMs);
      return stored;
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
