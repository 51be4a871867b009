// Read-through caching of public API reads (docs/API.md, Caching), with hit/miss metrics and single-flight loads.

import type { Metrics } from '../lib/metrics.js';
import type { Cache } from './cache.js';

/** Bump when a cached shape changes, so instances sharing Redis never serve an older shape. */
const KEY_PREFIX = 'read:v1:';
/** Stored response bodies (readBody): bump when a route's response schema changes. */
const BODY_KEY_PREFIX = 'read:body:v1:';

export interface ReadCache {
  /**
   * The cached value of `key`, or `load()` stored for ttlSeconds under the tags `tagsOf` names.
   * A load that throws (e.g. a *_NOT_FOUND error) is not cached.
   */
  read<T>(
    key: string,
    ttlSeconds: number,
    tagsOf: (value: T) => readonly string[],
    load: () => Promise<T>,
  ): Promise<T>;
  /**
   * Like read, but what is cached is the response body: `serialize(load())` (the route's own
   * serializer, so its response schema applies) as UTF-8 bytes, stored once on a miss. A hit hands
   * back the stored bytes as they are: no object is rebuilt, nothing is serialized or encoded again.
   */
  readBody<T>(
    key: string,
    ttlSeconds: number,
    tagsOf: (value: T) => readonly string[],
    load: () => Promise<T>,
    serialize: (value: T) => string,
  ): Promise<Buffer>;
}

export interface ReadCacheDeps {
  readonly cache: Cache;
  readonly metrics: Pick<Metrics, 'cacheRequests'>;
  /** False: every read goes to the database (READ_CACHE=false). */
  readonly enabled: boolean;
}

export function createReadCache(deps: ReadCacheDeps): ReadCache {
  const hits = deps.metrics.cacheRequests.labels('hit');
  const misses = deps.metrics.cacheRequests.labels('miss');
  // Concurrent misses of one key share one load instead of stampeding the database.
  const inflight = new Map<string, Promise<unknown>>();
  /** What `lookup` finds under fullKey (a hit), else one shared `loadAndStore` per key (a miss). */
  const through = async <R>(
    fullKey: string,
    lookup: () => Promise<R | undefined>,
    loadAndStore: () => Promise<R>,
  ): Promise<R> => {
    const cached = await lookup();
    if (cached !== undefined) {
      hits.inc();
      return cached;
    }
    misses.inc();
    const running = inflight.get(fullKey) as Promise<R> | undefined;
    if (running !== undefined) return running;
    const loading = loadAndStore().finally(() => inflight.delete(fullKey));
    inflight.set(fullKey, loading);
    return loading;
  };

  return {
    read(key, ttlSeconds, tagsOf, load) {
      if (!deps.enabled) return load();
      const fullKey = KEY_PREFIX + key;
      return through(
        fullKey,
        () => deps.cache.get(fullKey),
        async () => {
          const value = await load();
          await deps.cache.set(fullKey, value, ttlSeconds, tagsOf(value));
          return value;
        },
      );
    },

    readBody(key, ttlSeconds, tagsOf, load, serialize) {
      if (!deps.enabled) return load().then((value) => Buffer.from(serialize(value)));
      const fullKey = BODY_KEY_PREFIX + key;
      return through(
        fullKey,
        () => deps.cache.getBody(fullKey),
        async () => {
          const value = await load();
          const body = Buffer.from(serialize(value));
          await deps.cache.setBody(fullKey, body, ttlSeconds, tagsOf(value));
          return body;
        },
      );
    },
  };
}
