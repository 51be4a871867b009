// Per-client-IP budgets (docs/API.md, Rate limits): every limited request spends from its category and from the
// overall budget; the tighter of the two sets the headers and the 429.

import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Cache } from '../../cache/index.js';
import type { Config } from '../../config.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Metrics } from '../../lib/metrics.js';
import { routeConfigOf } from '../route-config.js';
import { BUDGETS, type Spent } from './rate-limit-local-counters.js';
import { getCounterStore, localStoreOf } from './rate-limit-redis-counters.js';

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
const categorySlot = (category: RateLimitCategory): number => BUDGETS.indexOf(category);

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const ANALYTICS_PREFIX = '/api/analytics';
const STORE_WARNING_INTERVAL_MS = 10_000;

export function getRateLimitCategory(request: FastifyRequest): RateLimitCategory {
  return getRouteRateLimitCategory(request.routeOptions.config, request.method);
}

/** The budget a route spends, from its config (with its url) and the request's method (docs:limits lists them). */
export function getRouteRateLimitCategory(
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
      const category = categorySlot(getRouteRateLimitCategory(config, request.method));
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
