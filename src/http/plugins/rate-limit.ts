// Per-client-IP budgets (README, Rate limits): every limited request spends from its category and from the
// overall budget; the tighter of the two sets the headers and the 429.
import { createRequire } from 'node:module';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import type { AppDeps } from '../../app-deps.js';
import type { Cache, RedisCache } from '../../cache/index.js';
import { AppError } from '../../errors.js';

export type RateLimitCategory = 'read' | 'write' | 'analytics';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which budget the route spends; default: GET/HEAD/OPTIONS read, other methods write, /api/analytics analytics. */
    rateLimitCategory?: RateLimitCategory;
  }
}

export const RATE_LIMIT_WINDOW_MS = 60_000;
/** Requests per client IP per window. */
export const RATE_LIMITS = { read: 100, write: 20, analytics: 30, overall: 100 } as const;
type Budget = keyof typeof RATE_LIMITS;

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const ANALYTICS_PREFIX = '/api/analytics';
const STORE_WARNING_INTERVAL_MS = 10_000;
const LOCAL_STORE_ENTRIES = 100_000;

/** The counter stores of @fastify/rate-limit (LocalStore, RedisStore): one fixed window per key. */
interface CounterStore {
  incr(
    key: string,
    done: (error: Error | null, result?: { current: number; ttl: number }) => void,
    timeWindow: number,
    max: number,
  ): void;
}

const require = createRequire(import.meta.url);
const LocalStore = require('@fastify/rate-limit/store/LocalStore') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  entries: number,
) => CounterStore;
const RedisStore = require('@fastify/rate-limit/store/RedisStore') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  nameSpace: string,
) => CounterStore;

// In-process counters belong to the cache object, so apps sharing one cache share one budget, as
// instances sharing one Redis do.
const localStores = new WeakMap<Cache, CounterStore>();

function localStoreOf(cache: Cache): CounterStore {
  let store = localStores.get(cache);
  if (store === undefined) {
    store = new LocalStore(false, false, LOCAL_STORE_ENTRIES);
    localStores.set(cache, store);
  }
  return store;
}

/**
 * Counters live next to the cache: in Redis (shared by every instance) or in this process. Redis
 * counters fall back to this process's own whenever Redis cannot answer (not connected, or a command
 * fails), so an outage leaves per-process budgets, never none; `onSharedStoreError` hears of each.
 */
export function getCounterStore(cache: Cache, onSharedStoreError?: (error: Error) => void): CounterStore {
  const local = localStoreOf(cache);
  if (cache.kind !== 'redis') return local;
  const { client, prefix } = cache as RedisCache;
  const shared = new RedisStore(false, false, client, `${prefix}rl:`);
  return {
    incr(key, done, timeWindow, max) {
      const fallBack = (error: Error) => {
        onSharedStoreError?.(error);
        local.incr(key, done, timeWindow, max);
      };
      if (client.status !== 'ready') {
        fallBack(new Error('redis is not connected'));
        return;
      }
      shared.incr(key, (error, result) => (error ? fallBack(error) : done(null, result)), timeWindow, max);
    },
  };
}

export function getRateLimitCategory(request: FastifyRequest): RateLimitCategory {
  const declared = request.routeOptions.config?.rateLimitCategory;
  if (declared !== undefined) return declared;
  const url = request.routeOptions.url;
  if (url === ANALYTICS_PREFIX || url?.startsWith(`${ANALYTICS_PREFIX}/`)) return 'analytics';
  return READ_METHODS.has(request.method) ? 'read' : 'write';
}

interface Spend {
  budget: Budget;
  max: number;
  remaining: number;
  resetSeconds: number;
  exceeded: boolean;
}

/** The budget a client must respect now: an exhausted one (the longest wait), else the lowest remaining. */
function tightest(spends: Spend[]): Spend {
  const exceeded = spends.filter((s) => s.exceeded);
  if (exceeded.length > 0) return exceeded.reduce((a, b) => (b.resetSeconds > a.resetSeconds ? b : a));
  return spends.reduce((a, b) => (b.remaining < a.remaining ? b : a));
}

export interface RateLimitPluginOptions {
  deps: Pick<AppDeps, 'config' | 'cache' | 'metrics' | 'clock'>;
  /** URL prefixes exempt like `config: { rateLimit: false }` (routes of plugins we do not write, e.g. /docs). */
  exemptPrefixes?: readonly string[];
}

export const rateLimitPlugin = fp<RateLimitPluginOptions>(
  async (app: FastifyInstance, { deps, exemptPrefixes = [] }) => {
    if (!deps.config.rateLimitEnabled) return;
    app.addHook('onRoute', (route) => {
      if (exemptPrefixes.some((p) => route.url === p || route.url.startsWith(`${p}/`))) {
        route.config = { ...route.config, rateLimit: false };
      }
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
    await app.register(rateLimit, {
      global: false,
      store: class {
        incr: CounterStore['incr'] = (...args) => store.incr(...args);
        child() {
          return this;
        }
      },
    });
    const limiters = Object.fromEntries(
      (Object.keys(RATE_LIMITS) as Budget[]).map((budget) => [
        budget,
        app.createRateLimit({
          max: RATE_LIMITS[budget],
          timeWindow: RATE_LIMIT_WINDOW_MS,
          keyGenerator: (request) => `${budget}:${normalizeIP(request.ip || 'unknown')}`,
        }),
      ]),
    ) as Record<Budget, ReturnType<FastifyInstance['createRateLimit']>>;

    const spend = async (budget: Budget, request: FastifyRequest): Promise<Spend | null> => {
      const result = await limiters[budget](request);
      if (result.isAllowed) return null;
      return {
        budget,
        max: result.max,
        remaining: result.remaining,
        resetSeconds: Math.max(1, result.ttlInSeconds),
        exceeded: result.isExceeded,
      };
    };

    app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      if (request.routeOptions.config?.rateLimit === false) return;
      const both = await Promise.all([
        spend(getRateLimitCategory(request), request),
        spend('overall', request),
      ]);
      const spends = both.filter((s): s is Spend => s !== null);
      if (spends.length === 0) return;
      const binding = tightest(spends);
      reply.header('x-ratelimit-limit', binding.max);
      reply.header('x-ratelimit-remaining', binding.remaining);
      reply.header('x-ratelimit-reset', binding.resetSeconds);
      if (!binding.exceeded) return;
      deps.metrics.rateLimitRejections.labels(binding.budget).inc();
      reply.header('retry-after', binding.resetSeconds);
      throw new AppError('RATE_LIMIT_EXCEEDED', 'Too many requests; retry after the time in Retry-After', {
        limit: binding.max,
        retryAfter: binding.resetSeconds,
      });
    });
  },
  { name: 'vaultkeeper-rate-limit' },
);
