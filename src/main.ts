// Process entry: load config, open storage, start the roles in ROLES, shut down gracefully.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import { type AppDeps, createAppDeps, createRpcClients } from './app-deps.js';
import { createCache } from './cache/index.js';
import { readGenesisHash } from './chain/demo-cluster.js';
import { runIngestor } from './chain/ingestor.js';
import { rpcUrlReplacements } from './chain/rpc-endpoints.js';
import { type Config, ConfigError, configWarnings, loadConfig } from './config.js';
import { createDemoGuard } from './domain/demo/demo-guard.js';
import { createCacheCleanupJob } from './jobs/cache-cleanup.js';
import { readDeliveryQueueStats } from './jobs/delivery-queue-stats.js';
import { createEmbeddedVacuumJob } from './jobs/embedded-vacuum.js';
import { createExpiryAlertsJob } from './jobs/expiry-alerts.js';
import { createMetricsRollupJob } from './jobs/metrics-rollup.js';
import { runScheduledJobs, type ScheduledJob } from './jobs/scheduler.js';
import { runDeliveryWorker } from './jobs/worker.js';
import { useEmbeddedMemorySettings } from './lib/embedded-memory.js';
import { limitHeapGrowth } from './lib/heap-growth.js';
import { createLogger } from './lib/logger.js';
import { createMetrics, registerRoleMetrics } from './lib/metrics.js';
import { assertPortFree, describeListenError } from './lib/port-check.js';
import { StartError } from './lib/start-error.js';
import { buildProbeApp } from './probe-app.js';
import { createServices } from './services.js';
import type { Storage } from './storage/database.js';
import { openDatabaseAtStart } from './storage/database-start.js';

const SHUTDOWN_LIMIT_MS = 10_000;
/**
 * Connections the kernel holds for the process to accept (the kernel caps it at net.core.somaxconn).
 * Node's default of 511 overflows in a burst of held long-polls and event streams while the process is
 * busy: the kernel then drops the handshakes and later resets them. Sized to the held waits a process
 * allows (APPROVAL_WAITS_MAX) and more.
 */
const LISTEN_BACKLOG = 4_096;

/** The configuration, or exit 1 with one message listing every bad variable. */
function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/** The worker role's jobs, and the embedded database's upkeep in whichever process holds it. */
function scheduledJobs(deps: AppDeps): ScheduledJob[] {
  return [
    ...(deps.config.roles.includes('worker')
      ? [
          createMetricsRollupJob(deps),
          createCacheCleanupJob({
            ...deps,
            db: deps.storage.db,
            auditRetentionDays: deps.config.auditRetentionDays,
          }),
          createExpiryAlertsJob({ ...deps, publicBaseUrl: deps.config.publicBaseUrl }),
        ]
      : []),
    // PGlite has no autovacuum: whichever roles it runs, the process holding it vacuums it.
    ...(deps.storage.kind === 'pglite' ? [createEmbeddedVacuumJob(deps)] : []),
  ];
}

/** DEMO_MODE: the ledger guard, its start check passed (a StartError otherwise); null outside demo mode. */
async function checkDemoLedger(config: Config, logger: Logger) {
  if (config.demo === null) return null;
  const guard = createDemoGuard({ endpoints: config.rpcEndpoints, readGenesisHash, log: logger });
  await guard.verifyAtStart();
  return guard;
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  if (config.database.kind !== 'postgres') useEmbeddedMemorySettings();
  limitHeapGrowth();
  const logger = createLogger({
    level: config.logLevel,
    pretty: process.stdout.isTTY === true,
    replacements: rpcUrlReplacements(config.rpcEndpoints),
  });
  for (const warning of configWarnings(config)) logger.warn(warning);
  const controller = new AbortController();
  // Signals are ours from the first moment, not only once everything listens: one that arrives while
  // starting cuts the start short, and what did start is then stopped in order.
  let stopSignal: NodeJS.Signals | null = null;
  let stopStarted: ((signal: NodeJS.Signals) => void) | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopSignal !== null) return;
    stopSignal = signal;
    if (stopStarted !== null) stopStarted(signal);
    else controller.abort();
  };
  // once: a second Ctrl-C ends the process at once, as terminals expect.
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);

  // Before anything starts: a service that cannot serve must not ingest or deliver either.
  await assertPortFree(config.port, config.host);
  const demoGuard = await checkDemoLedger(config, logger);
  let storage: Storage;
  try {
    storage = await openDatabaseAtStart(config.database, { logger, signal: controller.signal });
  } catch (error) {
    if (stopSignal === null) throw error;
    logger.info({ signal: stopSignal }, 'stopped while waiting for the database');
    process.exit(0);
  }
  const cache = createCache(config.redisUrl, (error) =>
    logger.warn({ err: error.message }, 'redis unavailable'),
  );
  const metrics = createMetrics();
  const { rpc, rpcEndpoints } = createRpcClients(config, metrics);
  const deps = createAppDeps({ config, storage, cache, logger, metrics, rpc, rpcEndpoints, demoGuard });

  registerRoleMetrics(metrics, {
    roles: config.roles,
    roleStatus: deps.roleStatus,
    readDeliveryQueue: () => readDeliveryQueueStats(storage.db, deps.clock.now()),
  });
  // The process's one set of services: its roles' loops use them, and whichever app it serves closes them.
  const services = createServices(deps);
  const tasks: Promise<unknown>[] = [];
  if (config.roles.includes('ingestor')) tasks.push(runIngestor(deps, controller.signal));
  const jobs = scheduledJobs(deps);
  if (jobs.length > 0) tasks.push(runScheduledJobs(jobs, deps, controller.signal));
  if (config.roles.includes('worker')) {
    tasks.push(runDeliveryWorker(deps, controller.signal, { secretBox: services.secretBox }));
  }
  // Every process listens on PORT: the API, or only /livez, /readyz and /metrics without the api role.
  const app: FastifyInstance = config.roles.includes('api')
    ? await buildApp(deps, services)
    : await buildProbeApp(deps, services);
  app.addHook('preClose', async () => {
    deps.roleStatus.api.accepting = false;
  });
  const listen = { port: config.port, host: config.host, backlog: LISTEN_BACKLOG };
  await app.listen(listen).catch((error: unknown) => {
    // Taken between the check and now: stop what started, then say so.
    controller.abort();
    throw describeListenError(error, config.port, config.host) ?? error;
  });
  deps.roleStatus.api.accepting = true;
  // The host signed requests must name (their Domain line) and Blink links use: often not the listen address.
  logger.info(
    {
      roles: config.roles,
      database: storage.kind,
      cache: cache.kind,
      cluster: config.cluster,
      publicBaseUrl: config.publicBaseUrl,
    },
    `vaultkeeper started: signed requests and Blinks use ${config.publicBaseUrl} (PUBLIC_BASE_URL)`,
  );

  const shutdown = async (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'shutting down');
    const hardStop = setTimeout(() => {
      logger.error('shutdown took longer than 10 s; exiting');
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS);
    hardStop.unref();
    controller.abort();
    await Promise.allSettled([app.close(), ...tasks]);
    await Promise.allSettled([storage.close(), cache.close()]);
    clearTimeout(hardStop);
    logger.info('stopped');
    process.exit(0);
  };
  stopStarted = (signal) => void shutdown(signal);
  if (stopSignal !== null) await shutdown(stopSignal);
}

main().catch((error: unknown) => {
  // A failure the operator can fix: what happened and what to do, without a stack trace.
  if (error instanceof StartError) {
    process.stderr.write(`vaultkeeper failed to start: ${error.message}\n  → ${error.hint}\n`);
    process.exit(1);
  }
  process.stderr.write(
    `vaultkeeper failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
