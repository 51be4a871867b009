// Per-client-IP budgets (docs/API.md, Rate limits): every limited request spends from its category and from the
// overall budget; the tighter of the two sets the headers and the 429.

import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Cache, RedisCache } from '../../cache/index.js';
import type { Config } from '../../config.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Metrics } from '../../lib/metrics.js';
import { routeConfigOf } from '../route-config.js';

export type RateLimitCategory = 'read' | 'write' | 'analytics';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which budget the route spends; default: GET/HEAD/OPTIONS read, other methods write, /api/analytics analytics. */
    rateLimitCategory?: RateLimitCategory;
    /** false: the route spends no budget (health, metrics, docs). */
    rateLimit?: boolean;
  }
}

export const RATE_LIMIT_WINDOW_MS = 60_000;
/** Requests per client IP per window. */
export const RATE_LIMITS = { read: 100, write: 20, analytics: 30, overall: 100 } as const;
type Budget = keyof typeof RATE_LIMITS;

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const ANALYTICS_PREFIX = '/api/analytics';
const STORE_WARNING_INTERVAL_MS = 10_000;
/** Client addresses the in-process counters remember at most; the stalest is forgotten first. */
const LOCAL_STORE_CLIENTS = 100_000;

/** Budget slots of one client's counters: its category's (0..2) and the overall one (3). */
const BUDGETS = ['read', 'write', 'analytics', 'overall'] as const satisfies readonly Budget[];
const OVERALL = 3;
const categorySlot = (category: RateLimitCategory): number => BUDGETS.indexOf(category);

/**
 * What one request spent: [category count, category ms left, overall count, overall ms left]. The
 * in-process counters fill one shared array (requests are counted synchronously, one at a time).
 */
export type Spent = ArrayLike<number>;

/**
 * Both budgets of a request in one lookup: one map entry per client address holding every budget's
 * fixed window (start, count), or one Redis script call for the two counters.
 */
export interface CounterStore {
  /** Synchronous when the counters are in this process; a promise when they are shared (Redis). */
  spend(category: number, ip: string, timeWindow: number): Spent | Promise<Spent>;
}

/**
 * In-process fixed windows: per client, [start, count] for each of the four budgets.
 *
 * A client is forgotten two windows after its overall window began (a category window starts within
 * an overall one, so by then every window of it has ended), or, when maxClients are remembered, the
 * stalest first. Which client is stalest comes from a queue of overall-window starts, read from its
 * head: the Map is only ever looked up by key. (Walking a V8 Map from its front passes every entry
 * deleted there since the table was last rebuilt: with a steady stream of new addresses and the store
 * full, that walk made one request cost up to 180 µs.)
 */
export function createLocalCounters(maxClients = LOCAL_STORE_CLIENTS) {
  const clients = new Map<string, Float64Array>();
  /** Overall-window starts in time order: [address, start] pairs from `head` on. */
  let starts: (string | number)[] = [];
  let head = 0;
  const out = new Float64Array(4);
  /** Forgets the client of the queue's head entry if that entry is its current overall window. */
  const popStalest = (): void => {
    const ip = starts[head] as string;
    const start = starts[head + 1] as number;
    head += 2;
    if (clients.get(ip)?.[OVERALL * 2] === start) clients.delete(ip);
    if (head > 1_024 && head * 2 > starts.length) {
      starts = starts.slice(head);
      head = 0;
    }
  };
  const forgetEnded = (now: number, timeWindow: number) => {
    while (head < starts.length && (starts[head + 1] as number) + 2 * timeWindow <= now) popStalest();
  };
  const spendSlot = (windows: Float64Array, slot: number, now: number, timeWindow: number, at: number) => {
    const start = windows[slot * 2]!;
    if (windows[slot * 2 + 1] === 0 || start + timeWindow <= now) {
      windows[slot * 2] = now;
      windows[slot * 2 + 1] = 1;
      out[at] = 1;
      out[at + 1] = timeWindow;
      return;
    }
    const count = windows[slot * 2 + 1]! + 1;
    windows[slot * 2 + 1] = count;
    out[at] = count;
    out[at + 1] = timeWindow - (now - start);
  };
  return {
    /** Clients whose windows are remembered (at most maxClients). */
    size: () => clients.size,
    spend(category: number, ip: string, timeWindow: number): Spent {
      // Date.now, not a monotonic clock: tests move the window with mocked timers.
      const now = Date.now();
      forgetEnded(now, timeWindow);
      let windows = clients.get(ip);
      if (windows === undefined) {
        while (clients.size >= maxClients && head < starts.length) popStalest();
        windows = new Float64Array(BUDGETS.length * 2);
        clients.set(ip, windows);
      }
      const overallStart = windows[OVERALL * 2];
      spendSlot(windows, category, now, timeWindow, 0);
      spendSlot(windows, OVERALL, now, timeWindow, 2);
      // A new overall window (or a new client): queued under its start.
      if (windows[OVERALL * 2] !== overallStart || windows[OVERALL * 2 + 1] === 1) starts.push(ip, now);
      return out;
    },
  } satisfies CounterStore & { size(): number };
}

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

function localStoreOf(cache: Cache) {
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

export function getRateLimitCategory(request: FastifyRequest): RateLimitCategory {
  return categoryOf(request.routeOptions.config, request.method);
}

function categoryOf(
  config: { rateLimitCategory?: RateLimitCategory; url?: string } | undefined,
  method: string,
): RateLimitCategory {
  const declared = config?.rateLimitCategory;
  if (declared !== undefined) return declared;
  const url = config?.url;
  // The prefix itself or anything under it ('/' is char code 47).
  if (url?.startsWith(ANALYTICS_PREFIX)) {
    if (url.length === ANALYTICS_PREFIX.length || url.charCodeAt(ANALYTICS_PREFIX.length) === 47) {
      return 'analytics';
    }
  }
  return READ_METHODS.has(method) ? 'read' : 'write';
}

export interface RateLimitPluginOptions {
  deps: { readonly config: Config; readonly cache: Cache; readonly metrics: Metrics; readonly clock: Clock };
  /** URL prefixes exempt like `config: { rateLimit: false }` (routes of plugins we do not write, e.g. /docs). */
  exemptPrefixes?: readonly string[];
  /** Requests that spend no budget (the process's own calls, made for a request that already spent). */
  isExempt?: (request: FastifyRequest) => boolean;
}

export const rateLimitPlugin = fp<RateLimitPluginOptions>(
  async (app: FastifyInstance, { deps, exemptPrefixes = [], isExempt }) => {
    if (!deps.config.rateLimitEnabled) return;
    app.addHook('onRoute', (route) => {
      if (exemptPrefixes.some((p) => route.url === p || route.url.startsWith(`${p}/`))) {
        route.config = { ...route.config, rateLimit: false };
      }
      if (route.config?.rateLimit !== false) documentRateLimit(route);
    });

    let lastWarningAt = Number.NEGATIVE_INFINITY;
    const onSharedStoreError = (error: Error) => {
      deps.metrics.rateLimitStoreErrors.inc();
      const now = deps.clock.now().getTime();
      if (now - lastWarningAt < STORE_WARNING_INTERVAL_MS) return;
      lastWarningAt = now;
      app.log.warn({ err: error.message }, 'rate-limit store unavailable; per-process budgets apply');
    };
    const store = getCounterStore(deps.cache, onSharedStoreError);
    const local = localStoreOf(deps.cache);
    deps.metrics.inProcessSizes.set('rate_limit_clients', local.size);

    const reject = (reply: FastifyReply, budget: Budget, max: number, resetSeconds: number) => {
      deps.metrics.rateLimitRejections.labels(budget).inc();
      reply.header('retry-after', resetSeconds);
      return new AppError('RATE_LIMIT_EXCEEDED', 'Too many requests; retry after the time in Retry-After', {
        limit: max,
        retryAfter: resetSeconds,
      });
    };

    /**
     * Headers of the budget a client must respect now: an exhausted one (the longest wait; the
     * category's on a tie), else the one with the fewest left (the category's on a tie).
     */
    const settle = (reply: FastifyReply, category: number, spent: Spent): FastifyError | undefined => {
      const categoryMax = RATE_LIMITS[BUDGETS[category]!];
      const overallMax = RATE_LIMITS.overall;
      const categoryCount = spent[0]!;
      const overallCount = spent[2]!;
      const categoryReset = Math.max(1, Math.ceil(spent[1]! / 1000));
      const overallReset = Math.max(1, Math.ceil(spent[3]! / 1000));
      const categoryExceeded = categoryCount > categoryMax;
      const overallExceeded = overallCount > overallMax;
      const categoryLeft = Math.max(0, categoryMax - categoryCount);
      const overallLeft = Math.max(0, overallMax - overallCount);
      const overallBinds =
        categoryExceeded || overallExceeded
          ? overallExceeded && (!categoryExceeded || overallReset > categoryReset)
          : overallLeft < categoryLeft;
      const max = overallBinds ? overallMax : categoryMax;
      const resetSeconds = overallBinds ? overallReset : categoryReset;
      reply.header('x-ratelimit-limit', max);
      reply.header('x-ratelimit-remaining', overallBinds ? overallLeft : categoryLeft);
      reply.header('x-ratelimit-reset', resetSeconds);
      if (!(overallBinds ? overallExceeded : categoryExceeded)) return undefined;
      return reject(reply, overallBinds ? 'overall' : BUDGETS[category]!, max, resetSeconds);
    };

    // A callback hook: with in-process counters a request is counted without a promise or an object.
    app.addHook('onRequest', (request, reply, done) => {
      const config = routeConfigOf(request);
      if (config?.rateLimit === false || isExempt?.(request) === true) {
        done();
        return;
      }
      const category = categorySlot(categoryOf(config, request.method));
      const spent = store.spend(category, request.clientKey, RATE_LIMIT_WINDOW_MS);
      if (!(spent instanceof Promise)) {
        done(settle(reply, category, spent));
        return;
      }
      spent.then(
        (shared) => done(settle(reply, category, shared)),
        (error: Error) => done(error),
      );
    });
  },
  { name: 'vaultkeeper-rate-limit' },
);

/** The 429 a limited route may answer, with Retry-After (the OpenAPI document lists it on each). */
const RATE_LIMITED_RESPONSE = {
  $ref: 'ErrorEnvelope#',
  description: 'Too many requests (RATE_LIMIT_EXCEEDED): wait the seconds in Retry-After',
  headers: {
    'retry-after': { type: 'integer', minimum: 1, description: 'seconds to wait before the next request' },
    'x-ratelimit-limit': { type: 'integer', description: 'requests allowed in the window' },
    'x-ratelimit-remaining': { type: 'integer', description: 'requests left in the window' },
    'x-ratelimit-reset': { type: 'integer', description: 'seconds until the window resets' },
  },
};

function documentRateLimit(route: { schema?: unknown }): void {
  const schema = route.schema as { response?: Record<string, unknown>; hide?: boolean } | undefined;
  if (schema?.response === undefined || schema.hide === true) return;
  schema.response[429] = RATE_LIMITED_RESPONSE;
}
