import { LRUCache } from 'lru-cache';
import type { Cache } from './cache.js';

interface Entry {
  /** A JSON round trip of what was stored, frozen: hits share it without copying. */
  value: unknown;
  tags: readonly string[];
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** In-process cache: an LRU bounded by entry count, with per-entry TTLs and tag sets. */
export function createMemoryCache(options: { maxEntries?: number; now?: () => number } = {}): Cache {
  const tagIndex = new Map<string, Set<string>>();
  const entries = new LRUCache<string, Entry>({
    max: options.maxEntries ?? 50_000,
    ttlAutopurge: false,
    ttlResolution: 0,
    allowStale: false,
    ...(options.now ? { perf: { now: options.now } } : {}),
    dispose: (entry, key) => {
      for (const tag of entry.tags) {
        const keys = tagIndex.get(tag);
        keys?.delete(key);
        if (keys?.size === 0) tagIndex.delete(tag);
      }
    },
  });
  const markers = new LRUCache<string, number>({
    max: 200_000,
    ...(options.now ? { perf: { now: options.now } } : {}),
  });

  const store = (key: string, value: unknown, ttlSeconds: number, tags: readonly string[]) => {
    entries.set(key, { value, tags }, { ttl: ttlSeconds * 1000 });
    for (const tag of tags) {
      let keys = tagIndex.get(tag);
      if (keys === undefined) {
        keys = new Set();
        tagIndex.set(tag, keys);
      }
      keys.add(key);
    }
  };

  return {
    kind: 'memory',
    async get<T>(key: string) {
      const entry = entries.get(key);
      return entry?.value as T | undefined;
    },
    async set(key, value, ttlSeconds, tags = []) {
      // The round trip gives what Redis would give back (dates as strings, no undefined members).
      store(key, deepFreeze(JSON.parse(JSON.stringify(value)) as unknown), ttlSeconds, tags);
    },
    async getBody(key) {
      const value = entries.get(key)?.value;
      return Buffer.isBuffer(value) ? value : undefined;
    },
    async setBody(key, body, ttlSeconds, tags = []) {
      store(key, body, ttlSeconds, tags);
    },
    async delete(...keys) {
      for (const key of keys) entries.delete(key);
    },
    async deleteByTag(...tags) {
      for (const tag of tags) {
        for (const key of [...(tagIndex.get(tag) ?? [])]) entries.delete(key);
        tagIndex.delete(tag);
      }
    },
    async setIfAbsent(key, ttlSeconds) {
      if (markers.has(key)) return false;
      markers.set(key, 1, { ttl: ttlSeconds * 1000 });
      return true;
    },
    async increment(key, ttlSeconds) {
      const current = markers.get(key);
      if (current === undefined) {
        markers.set(key, 1, { ttl: ttlSeconds * 1000 });
        return 1;
      }
      markers.set(key, current + 1, { noUpdateTTL: true });
      return current + 1;
    },
    async purgeExpired() {
      const before = entries.size + markers.size;
      entries.purgeStale();
      markers.purgeStale();
      return before - (entries.size + markers.size);
    },
    localEntries() {
      return entries.size + markers.size;
    },
    async ping() {
      return true;
    },
    async close() {
      entries.clear();
      markers.clear();
    },
  };
}
