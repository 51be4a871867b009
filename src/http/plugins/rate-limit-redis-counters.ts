// The shared counter store of the rate limits: both budgets of a request in one Redis script call,
// falling back to this process's counters whenever Redis cannot answer.
import type { Cache, RedisCache } from '../../cache/index.js';
import { BUDGETS, type CounterStore, createLocalCounters, OVERALL } from './rate-limit-local-counters.js';

/** Fixed windows of the two budgets of a request, in one round trip: INCR each, PEXPIRE when new. */
const SPEND_SCRIPT = `
local result = {}
for i, key in ipairs(KEYS) do
  local current = redis.call('INCR', key)
  local ttl
  if current == 1 then
    redis.call('PEXPIRE', key, ARGV[1])
    ttl = tonumber(ARGV[1])
  else
    ttl = redis.call('PTTL', key)
    if ttl < 0 then
      redis.call('PEXPIRE', key, ARGV[1])
      ttl = tonumber(ARGV[1])
    end
  end
  result[i * 2 - 1] = current
  result[i * 2] = ttl
end
return result`;

type SpendCommand = (
  categoryKey: string,
  overallKey: string,
  timeWindow: number,
) => Promise<[number, number, number, number]>;

// In-process counters belong to the cache object, so apps sharing one cache share one budget, as
// instances sharing one Redis do.
const localStores = new WeakMap<Cache, ReturnType<typeof createLocalCounters>>();

export function localStoreOf(cache: Cache) {
  let store = localStores.get(cache);
  if (store === undefined) {
    store = createLocalCounters();
    localStores.set(cache, store);
  }
  return store;
}

/**
 * Counters live next to the cache: in Redis (shared by every instance) or in this process. Redis
 * counters fall back to this process's own whenever Redis cannot answer (not connected, or a command
 * fails), so an outage leaves per-process budgets, never none; `onSharedStoreError` hears of each
 * budget it could not spend there (two per request).
 */
export function getCounterStore(cache: Cache, onSharedStoreError?: (error: Error) => void): CounterStore {
  const local = localStoreOf(cache);
  if (cache.kind !== 'redis') return local;
  const { client, prefix } = cache as RedisCache;
  const keyPrefixes = BUDGETS.map((budget) => `${prefix}rl:${budget}:`);
  if (!('vkSpendBudgets' in client)) {
    client.defineCommand('vkSpendBudgets', { numberOfKeys: 2, lua: SPEND_SCRIPT });
  }
  const command = (client as unknown as { vkSpendBudgets: SpendCommand }).vkSpendBudgets.bind(client);
  const notConnected = new Error('redis is not connected');
  const fallBack = (error: Error, category: number, ip: string, timeWindow: number) => {
    onSharedStoreError?.(error);
    onSharedStoreError?.(error);
    return local.spend(category, ip, timeWindow);
  };
  return {
    spend(category, ip, timeWindow) {
      if (client.status !== 'ready') return fallBack(notConnected, category, ip, timeWindow);
      return command(keyPrefixes[category] + ip, keyPrefixes[OVERALL] + ip, timeWindow).then(
        (result) => result,
        (error: Error) => fallBack(error, category, ip, timeWindow),
      );
    },
  };
}
