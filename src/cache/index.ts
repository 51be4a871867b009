import type { Cache } from './cache.js';
import { createMemoryCache } from './memory-cache.js';
import { createRedisCache } from './redis-cache.js';

export type { Cache } from './cache.js';
export { createMemoryCache } from './memory-cache.js';
export { createRedisCache, type RedisCache } from './redis-cache.js';

/** Redis when a URL is configured, else the in-process cache. */
export function createCache(redisUrl: string | null, onError?: (error: Error) => void): Cache {
  return redisUrl === null ? createMemoryCache() : createRedisCache(redisUrl, onError ? { onError } : {});
}
