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
import type { Config } from './config.js';
import type { ChainStatusSource } from './domain/health/chain-status.js';
import type { Clock } from './lib/clock.js';
import type { Metrics } from './lib/metrics.js';
import type { RollingWindow } from './lib/rolling-window.js';
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
