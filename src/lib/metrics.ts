import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { RoleStatus } from './role-status.js';

type Registration = { registers: Registry[] };

/** Every Prometheus metric of one process, in its own registry (tests build several apps at once). */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
  const metric: Registration = { registers: [registry] };
  return {
    registry,
    ...httpMetrics(metric),
    ...ingestionMetrics(metric),
    ...workMetrics(metric),
    ...rpcMetrics(metric),
    ...sizeMetrics(metric),
  };
}

/**
 * How many entries this process's bounded in-memory structures hold, read at scrape time: the cache,
 * the rate-limit counters' clients, open event streams, live-feed listeners. Each part registers its
 * reader under its name; a long run (npm run soak) watches that none of them keeps growing.
 */
function sizeMetrics(metric: Registration) {
  const inProcessSizes = new Map<string, () => number>();
  new Gauge({
    ...metric,
    name: 'vaultkeeper_in_process_entries',
    help: 'Entries held in bounded in-memory structures of this process, by structure',
    labelNames: ['structure'] as const,
    collect() {
      this.reset();
      for (const [structure, read] of inProcessSizes) this.labels(structure).set(read());
    },
  });
  return { inProcessSizes };
}

/** HTTP requests, the read cache and rate limits. */
function httpMetrics(metric: Registration) {
  return {
    httpRequestDuration: new Histogram({
      ...metric,
      name: 'vaultkeeper_http_request_duration_seconds',
      help: 'HTTP request latency by route and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    }),
    cacheRequests: new Counter({
      ...metric,
      name: 'vaultkeeper_cache_requests_total',
      help: 'Cache look-ups by result',
      labelNames: ['result'] as const,
    }),
    rateLimitRejections: new Counter({
      ...metric,
      name: 'vaultkeeper_rate_limit_rejections_total',
      help: 'Requests refused by a rate limit',
      labelNames: ['category'] as const,
    }),
    rateLimitStoreErrors: new Counter({
      ...metric,
      name: 'vaultkeeper_rate_limit_store_errors_total',
      help: "Rate-limit checks counted in the process's own budgets because the counter store was unreachable",
    }),
  };
}

/** Chain ingestion: events, reads, the live feed. */
function ingestionMetrics(metric: Registration) {
  return {
    eventsIngested: new Counter({
      ...metric,
      name: 'vaultkeeper_events_ingested_total',
      help: 'Program events stored, by event name',
      labelNames: ['event'] as const,
    }),
    signaturesFetched: new Counter({
      ...metric,
      name: 'vaultkeeper_signatures_fetched_total',
      help: 'Transactions read with getTransaction, by source',
      labelNames: ['source'] as const,
    }),
    ingestionReconnects: new Counter({
      ...metric,
      name: 'vaultkeeper_ingestion_reconnects_total',
      help: 'Reconnections of the live source (log subscription or gRPC stream)',
    }),
    ingestionReplays: new Counter({
      ...metric,
      name: 'vaultkeeper_ingestion_grpc_replays_total',
      help: 'gRPC resubscriptions from the last committed slot, by outcome: resumed, or refused (then the backfill reads the gap)',
      labelNames: ['outcome'] as const,
    }),
    ingestionFailovers: new Counter({
      ...metric,
      name: 'vaultkeeper_ingestion_failovers_total',
      help: 'Switches of the live source, by the source switched to (websocket: gRPC unreachable; grpc: the stream is back)',
      labelNames: ['to'] as const,
    }),
    ingestionWarnings: new Counter({
      ...metric,
      name: 'vaultkeeper_ingestion_warnings_total',
      help: 'Ingestion warnings (e.g. truncated logs), by kind',
      labelNames: ['kind'] as const,
    }),
    chainLastSlot: new Gauge({
      ...metric,
      name: 'vaultkeeper_chain_last_slot',
      help: 'Slot of the newest ingested program transaction',
    }),
    ingestionLatency: new Histogram({
      ...metric,
      name: 'vaultkeeper_ingestion_latency_seconds',
      help: 'Time from a live log notification to its committed projection',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    }),
    ...finalityMetrics(metric),
  };
}

/** The finality reconciler's figures (set by the process that ingests, on each pass). */
function finalityMetrics(metric: Registration) {
  return {
    unfinalizedTransactions: new Gauge({
      ...metric,
      name: 'vaultkeeper_unfinalized_transactions',
      help: 'Applied program transactions the cluster has not finalized yet',
    }),
    unfinalizedOldestAge: new Gauge({
      ...metric,
      name: 'vaultkeeper_unfinalized_oldest_age_seconds',
      help: 'Age of the oldest applied program transaction not finalized yet (0 when none)',
    }),
    transactionsFinalized: new Counter({
      ...metric,
      name: 'vaultkeeper_transactions_finalized_total',
      help: 'Applied program transactions moved to finalized',
    }),
    transactionsDropped: new Counter({
      ...metric,
      name: 'vaultkeeper_transactions_dropped_total',
      help: 'Applied program transactions the cluster dropped, by reason (dead_slot, not_found)',
      labelNames: ['reason'] as const,
    }),
  };
}

/** Blink actions, scheduled jobs and webhook deliveries. */
function workMetrics(metric: Registration) {
  return {
    blinkActions: new Counter({
      ...metric,
      name: 'vaultkeeper_blink_actions_total',
      help: 'Solana Action (Blink) uses by action: view, approve, reject_request, reject',
      labelNames: ['action'] as const,
    }),
    jobRuns: new Counter({
      ...metric,
      name: 'vaultkeeper_job_runs_total',
      help: 'Scheduled worker job runs by job and outcome (ok, error)',
      labelNames: ['job', 'outcome'] as const,
    }),
    dailyMetricsRecomputed: new Counter({
      ...metric,
      name: 'vaultkeeper_daily_metrics_recomputed_total',
      help: 'Dirty (vault or global, day) rows recomputed by the daily metrics rollup',
    }),
    deliveryAttempts: new Counter({
      ...metric,
      name: 'vaultkeeper_delivery_attempts_total',
      help: 'Webhook and e-mail delivery attempts by channel and outcome',
      labelNames: ['channel', 'outcome'] as const,
    }),
    deliveryLatency: new Histogram({
      ...metric,
      name: 'vaultkeeper_delivery_latency_seconds',
      help: 'Time from enqueue to a successful delivery',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300, 3600],
    }),
  };
}

/** Solana RPC endpoints and which one the live feed uses. */
function rpcMetrics(metric: Registration) {
  return {
    rpcRequests: new Counter({
      ...metric,
      name: 'vaultkeeper_rpc_requests_total',
      help: 'Solana RPC calls by endpoint (scheme and host only) and outcome: ok, error, timeout, rate_limited',
      labelNames: ['endpoint', 'outcome'] as const,
    }),
    rpcEndpointAvailable: new Gauge({
      ...metric,
      name: 'vaultkeeper_rpc_endpoint_available',
      help: '1 while an RPC endpoint takes calls, 0 while it cools down after a failure or a 429',
      labelNames: ['endpoint'] as const,
    }),
    vaultStateReads: new Counter({
      ...metric,
      name: 'vaultkeeper_vault_state_reads_total',
      help: "Budget and check reads of a vault's chain state: live (accounts held by subscription) or fresh (one getMultipleAccounts)",
      labelNames: ['source'] as const,
    }),
    ingestionFeedEndpoint: new Gauge({
      ...metric,
      name: 'vaultkeeper_ingestion_feed_endpoint',
      help: '1 for the RPC endpoint the live log subscription is connected to',
      labelNames: ['endpoint'] as const,
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

export interface RoleMetricSources {
  readonly roles: readonly string[];
  readonly roleStatus: RoleStatus;
  /** The delivery queue, read at scrape time (worker processes). */
  readonly readDeliveryQueue?: () => Promise<{ pending: number; oldestDueSeconds: number }>;
}

/** The gauges of the roles this process runs, computed when Prometheus scrapes. */
export function registerRoleMetrics(metrics: Metrics, sources: RoleMetricSources): void {
  const registers = [metrics.registry];
  const { roleStatus } = sources;
  if (sources.roles.includes('ingestor')) {
    new Gauge({
      registers,
      name: 'vaultkeeper_ingestor_lock_held',
      help: '1 while this process holds the ingestor lock (the active ingestor), 0 on standby',
      collect() {
        this.set(roleStatus.ingestor.state === 'active' ? 1 : 0);
      },
    });
    new Gauge({
      registers,
      name: 'vaultkeeper_ingestion_feed_connected',
      help: '1 while the live log subscription is up',
      collect() {
        this.set(roleStatus.ingestor.feedConnected ? 1 : 0);
      },
    });
    new Gauge({
      registers,
      name: 'vaultkeeper_ingestion_feed_source',
      help: '1 for the live source in use (grpc: the Yellowstone stream; websocket: the log subscription), 0 for the other',
      labelNames: ['source'] as const,
      collect() {
        const live = roleStatus.ingestor.feedConnected ? roleStatus.ingestor.feedSource : null;
        for (const source of ['grpc', 'websocket'] as const) this.labels(source).set(live === source ? 1 : 0);
      },
    });
    new Gauge({
      registers,
      name: 'vaultkeeper_ingestion_lag_seconds',
      help: 'How long the oldest seen but not yet committed signature has waited (0 when caught up)',
      collect() {
        const since = roleStatus.ingestor.state === 'active' ? roleStatus.ingestor.behindSince() : null;
        this.set(since === null ? 0 : Math.max(0, (Date.now() - since.getTime()) / 1000));
      },
    });
  }
  if (sources.roles.includes('worker')) {
    new Gauge({
      registers,
      name: 'vaultkeeper_deliveries_in_flight',
      help: 'Deliveries this worker is sending now',
      collect() {
        this.set(roleStatus.worker.inFlight());
      },
    });
    const read = sources.readDeliveryQueue;
    if (read !== undefined) {
      // One query serves both gauges of a scrape.
      let current: Promise<{ pending: number; oldestDueSeconds: number } | null> | null = null;
      const once = () => {
        current ??= read()
          .catch(() => null)
          .finally(() => setImmediate(() => (current = null)));
        return current;
      };
      new Gauge({
        registers,
        name: 'vaultkeeper_delivery_queue_depth',
        help: 'Deliveries waiting to be sent (due now or scheduled for a retry)',
        async collect() {
          const stats = await once();
          if (stats !== null) this.set(stats.pending);
        },
      });
      new Gauge({
        registers,
        name: 'vaultkeeper_delivery_oldest_due_seconds',
        help: 'Seconds the oldest due delivery has waited past its due time (0 when none is due)',
        async collect() {
          const stats = await once();
          if (stats !== null) this.set(stats.oldestDueSeconds);
        },
      });
    }
  }
}
