import type { Logger } from 'pino';
import type { Cache } from './cache/cache.js';
import { createMemoryCache } from './cache/memory-cache.js';
import type { SolanaRpc } from './chain/rpc.js';
import { createFailoverSolanaRpc, createRpcEndpoints, type RpcEndpoints } from './chain/rpc-endpoints.js';
import type { Config } from './config.js';
import type { DemoGuard } from './domain/demo/demo-guard.js';
import type { ChainStatusSource } from './domain/health/chain-status.js';
import { createDatabaseChainStatus } from './domain/health/chain-status-store.js';
import type { ConfirmationMailer } from './domain/webhooks/confirmations.js';
import { createConfirmationMailer } from './jobs/email-sender.js';
import { type Clock, systemClock } from './lib/clock.js';
import { createLogger } from './lib/logger.js';
import { createMetrics, type Metrics } from './lib/metrics.js';
import { createRoleStatus, type RoleStatus } from './lib/role-status.js';
import { createRollingWindow, type RollingWindow } from './lib/rolling-window.js';
import type { Storage } from './storage/database.js';

// Declared in chain/, named here too because AppDeps carries them.
export type { SolanaRpc, SolanaRpcSubscriptions } from './chain/rpc.js';

/** Everything a role needs, passed explicitly as one readonly object. */
export interface AppDeps {
  readonly config: Config;
  readonly storage: Storage;
  readonly cache: Cache;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly metrics: Metrics;
  /** Chain reads; every call fails over across rpcEndpoints. */
  readonly rpc: SolanaRpc;
  readonly rpcEndpoints: RpcEndpoints;
  readonly chainStatus: ChainStatusSource;
  readonly requestStats: RollingWindow;
  readonly startedAt: number;
  /** Sends `mailto:` confirmation mails when SMTP_URL is set. */
  readonly confirmationMailer: ConfirmationMailer | null;
  /** What this process's roles are doing now (readiness and per-role metrics). */
  readonly roleStatus: RoleStatus;
  /** DEMO_MODE: the guard that checked the ledger at start (services make one when none is given). */
  readonly demoGuard?: DemoGuard | null;
}

/** The configured RPC endpoints and a client that fails over across them. */
export function createRpcClients(
  config: Pick<Config, 'rpcEndpoints'>,
  metrics?: Metrics,
): { rpc: SolanaRpc; rpcEndpoints: RpcEndpoints } {
  const rpcEndpoints = createRpcEndpoints(config.rpcEndpoints, { metrics });
  return { rpc: createFailoverSolanaRpc(rpcEndpoints), rpcEndpoints };
}

/**
 * Assembles the dependencies from a config and an open database; everything else has a default
 * (in-process cache, silent logger, system clock, database-backed chain status) that callers may replace.
 */
export function createAppDeps(
  input: Pick<AppDeps, 'config' | 'storage'> & Partial<Omit<AppDeps, 'config' | 'storage'>>,
): AppDeps {
  const { config, storage } = input;
  const logger = input.logger ?? createLogger({ level: 'silent' });
  const metrics = input.metrics ?? createMetrics();
  const rpcEndpoints = input.rpcEndpoints ?? createRpcEndpoints(config.rpcEndpoints, { metrics });
  return {
    cache: createMemoryCache(),
    logger,
    clock: systemClock,
    metrics,
    rpc: input.rpc ?? createFailoverSolanaRpc(rpcEndpoints),
    rpcEndpoints,
    chainStatus: createDatabaseChainStatus({ storage, cluster: config.cluster }),
    requestStats: createRollingWindow(),
    startedAt: Date.now(),
    confirmationMailer: config.smtpUrl === null ? null : createConfirmationMailer(config, logger),
    roleStatus: createRoleStatus(),
    ...input,
  };
}
