import type { Redis } from 'ioredis';
import { loadOnUse } from '../lib/load-on-use.js';
import type { Cache } from './cache.js';

export interface RedisCache extends Cache {
  readonly kind: 'redis';
  /** The connection, shared with rate limiting. */
  readonly client: Redis;
  /** Prefix of every key this cache writes. */
  readonly prefix: string;
}

/**
 * Redis-backed cache. Commands fail fast while Redis is unreachable (no offline queue) and every
 * failure reads as a miss or a no-op, so an outage degrades to uncached reads, never to errors.
 */
export function createRedisCache(
  url: string,
  options: { onError?: (error: Error) => void; prefix?: string } = {},
): RedisCache {
  const PREFIX = options.prefix ?? 'vk:';
  const { Redis: RedisClient } = loadOnUse<typeof import('ioredis')>('ioredis');
  const client = new RedisClient(url, {
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: 1_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
  let lastReported = 0;
  client.on('error', (error) => {
    // One report per 10 s keeps an outage from flooding the log.
    const now = Date.now();
    if (now - lastReported > 10_000) {
      lastReported = now;
      options.onError?.(error);
    }
  });
  const safe = async <T>(fallback: T, run: () => Promise<T>): Promise<T> => {
    // Not connected: answer at once instead of waiting on a dead socket.
    if (client.status !== 'ready') return fallback;
    try {
      return await run();
    } catch {
      return fallback;
    }
  };

  const store = (key: string, text: string | Buffer, ttlSeconds: number, tags: readonly string[]) =>
    safe(undefined, async () => {
      const multi = client.multi().set(PREFIX + key, text, 'EX', Math.max(1, Math.ceil(ttlSeconds)));
      for (const tag of tags) {
        multi.sadd(`${PREFIX}tag:${tag}`, PREFIX + key).expire(`${PREFIX}tag:${tag}`, 3_600);
      }
      await multi.exec();
    });

  return {
    kind: 'redis',
    client,
    prefix: PREFIX,
    get: <T>(key: string) =>
      safe<T | undefined>(undefined, async () => {
        const json = await client.get(PREFIX + key);
        return json === null ? undefined : (JSON.parse(json) as T);
      }),
    set: (key, value, ttlSeconds, tags = []) => store(key, JSON.stringify(value), ttlSeconds, tags),
    getBody: (key) =>
      safe<Buffer | undefined>(undefined, async () => (await client.getBuffer(PREFIX + key)) ?? undefined),
    setBody: (key, body, ttlSeconds, tags = []) => store(key, body, ttlSeconds, tags),
    delete: (...keys) =>
      safe(undefined, async () => {
        if (keys.length > 0) await client.del(...keys.map((k) => PREFIX + k));
      }),
    deleteByTag: (...tags) =>
      safe(undefined, async () => {
        for (const tag of tags) {
          const tagKey = `${PREFIX}tag:${tag}`;
          const [[, members]] = (await client.multi().smembers(tagKey).del(tagKey).exec()) as [
            [Error | null, string[]],
          ];
          if (members.length > 0) await client.del(...members);
        }
      }),
    setIfAbsent: async (key, ttlSeconds) => {
      if (client.status !== 'ready') throw new Error('redis is not connected');
      // Unlike reads, a single-use check must not silently pass while Redis is down: callers decide.
      const result = await client.set(PREFIX + key, '1', 'EX', Math.max(1, Math.ceil(ttlSeconds)), 'NX');
      return result === 'OK';
    },
    increment: async (key, ttlSeconds) => {
      if (client.status !== 'ready') throw new Error('redis is not connected');
      const [[, count]] = (await client
        .multi()
        .incr(PREFIX + key)
        .expire(PREFIX + key, Math.max(1, Math.ceil(ttlSeconds)), 'NX')
        .exec()) as [[Error | null, number]];
      return count;
    },
    purgeExpired: async () => 0,
    localEntries: () => 0,
    ping: () => safe(false, async () => (await client.ping()) === 'PONG'),
    close: async () => {
      client.disconnect();
    },
  };
}
