import type { Cache } from '../../cache/cache.js';
import type { Clock } from '../../lib/clock.js';
import type { RollingWindow } from '../../lib/rolling-window.js';
import { createSharedResult } from '../../lib/shared-result.js';
import type { Storage } from '../../storage/database.js';
import type { ChainHealth, ChainStatusSource } from './chain-status.js';

export interface Health {
  status: 'healthy' | 'degraded' | 'unhealthy';
  database: 'connected' | 'disconnected';
  redis: 'connected' | 'disconnected' | 'in-memory';
  uptime: number;
  timestamp: string;
  version: string;
  chain: ChainHealth;
  responseTime: { p50: number; p95: number; p99: number };
  errorRate: number;
}

export interface HealthDeps {
  readonly storage: Storage;
  readonly cache: Cache;
  readonly chainStatus: ChainStatusSource;
  readonly requestStats: RollingWindow;
  readonly clock: Clock;
  readonly version: string;
  readonly startedAt: number;
}

/** Health checks (a database ping, the chain status query) run at most once a second, however many ask. */
export const HEALTH_CHECK_REUSE_MS = 1_000;

export function createHealthService(deps: HealthDeps) {
  // The route is public and exempt from rate limits: callers share the checks, never add to them.
  const check = createSharedResult(
    () =>
      Promise.all([
        deps.storage.ping(2_000),
        deps.cache.kind === 'memory' ? Promise.resolve(true) : deps.cache.ping(),
        deps.chainStatus.get(),
      ]),
    { reuseMs: HEALTH_CHECK_REUSE_MS, now: () => deps.clock.now().getTime() },
  );
  return {
    async getHealth(): Promise<Health> {
      const [databaseUp, cacheUp, chain] = await check();
      const redis = deps.cache.kind === 'memory' ? 'in-memory' : cacheUp ? 'connected' : 'disconnected';
      const status = !databaseUp
        ? 'unhealthy'
        : redis === 'disconnected' || chain.status !== 'connected'
          ? 'degraded'
          : 'healthy';
      const stats = deps.requestStats.snapshot();
      const now = deps.clock.now();
      return {
        status,
        database: databaseUp ? 'connected' : 'disconnected',
        redis,
        uptime: Math.round((now.getTime() - deps.startedAt) / 10) / 100,
        timestamp: now.toISOString(),
        version: deps.version,
        chain,
        responseTime: { p50: stats.p50, p95: stats.p95, p99: stats.p99 },
        errorRate: Math.round(stats.errorRate * 10_000) / 10_000,
      };
    },
  };
}

export type HealthService = ReturnType<typeof createHealthService>;
