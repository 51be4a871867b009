import {
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  type Rpc,
  type RpcSubscriptions,
  type SolanaRpcApi,
  type SolanaRpcSubscriptionsApi,
} from '@solana/kit';
import type { Logger } from 'pino';
import type { Cache } from './cache/cache.js';
import { createMemoryCache } from './cache/memory-cache.js';
import type { Config } from './config.js';
import type { ChainStatusSource } from './domain/health/chain-status.js';
import { createDatabaseChainStatus } from './domain/health/chain-status-store.js';
import { type Clock, systemClock } from './lib/clock.js';
import { createLogger } from './lib/logger.js';
import { createMetrics, type Metrics } from './lib/metrics.js';
import { createRollingWindow, type RollingWindow } from './lib/rolling-window.js';
import type { Storage } from './storage/database.js';

export type SolanaRpc = Rpc<SolanaRpcApi>;
export type SolanaRpcSubscriptions = RpcSubscriptions<SolanaRpcSubscriptionsApi>;

/** Everything a role needs, passed explicitly as one readonly object. */
export interface AppDeps {
  readonly config: Config;
  readonly storage: Storage;
  readonly cache: Cache;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly metrics: Metrics;
  readonly rpc: SolanaRpc;
  readonly chainStatus: ChainStatusSource;
  readonly requestStats: RollingWindow;
  readonly startedAt: number;
}

export function createRpcClients(config: Pick<Config, 'rpcUrl' | 'wsUrl'>): {
  rpc: SolanaRpc;
  subscriptions: SolanaRpcSubscriptions;
} {
  return { rpc: createSolanaRpc(config.rpcUrl), subscriptions: createSolanaRpcSubscriptions(config.wsUrl) };
}

/**
 * Assembles the dependencies from a config and an open database; everything else has a default
 * (in-process cache, silent logger, system clock, database-backed chain status) that callers may replace.
 */
export function createAppDeps(
  input: Pick<AppDeps, 'config' | 'storage'> & Partial<Omit<AppDeps, 'config' | 'storage'>>,
): AppDeps {
  const { config, storage } = input;
  return {
    cache: createMemoryCache(),
    logger: createLogger({ level: 'silent' }),
    clock: systemClock,
    metrics: createMetrics(),
    rpc: createRpcClients(config).rpc,
    chainStatus: createDatabaseChainStatus({ storage, cluster: config.cluster }),
    requestStats: createRollingWindow(),
    startedAt: Date.now(),
    ...input,
  };
}
