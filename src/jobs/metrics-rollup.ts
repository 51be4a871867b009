// Scheduled job: recompute dirty daily metrics until none are left.
import type { Logger } from 'pino';
import { runDailyMetricsRollup } from '../domain/analytics/daily-metrics-rollup.js';
import type { Metrics } from '../lib/metrics.js';
import type { Storage } from '../storage/database.js';
import type { ScheduledJob } from './scheduler.js';

export const METRICS_ROLLUP_INTERVAL_MS = 30_000;

export function createMetricsRollupJob(
  deps: {
    readonly storage: Storage;
    readonly logger: Pick<Logger, 'info'>;
    readonly metrics?: Pick<Metrics, 'dailyMetricsRecomputed'>;
  },
  options: { intervalMs?: number; batchSize?: number } = {},
): ScheduledJob {
  return {
    name: 'metrics-rollup',
    intervalMs: options.intervalMs ?? METRICS_ROLLUP_INTERVAL_MS,
    async run(signal) {
      const result = await runDailyMetricsRollup(deps.storage.db, {
        signal,
        ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
      });
      deps.metrics?.dailyMetricsRecomputed.inc(result.recomputed);
      if (result.recomputed > 0)
        deps.logger.info({ recomputed: result.recomputed }, 'daily metrics rolled up');
    },
  };
}
