import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Every Prometheus metric of one process, in its own registry (tests build several apps at once). */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
  const metric = { registers: [registry] };
  return {
    registry,
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
      help: 'Rate-limit checks skipped (the request passed) because the counter store was unreachable',
    }),
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
      help: 'Reconnections of the live log subscription',
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

export type Metrics = ReturnType<typeof createMetrics>;
