// Scheduled job: the override expiry alerts (docs/OPERATIONS.md, Expiry alerts). Any worker may run it:
// each alert is claimed in the transaction that writes it.
import type { Logger } from 'pino';
import { runExpiryAlerts } from '../domain/alerts/expiry-alerts.js';
import type { Clock } from '../lib/clock.js';
import type { Storage } from '../storage/database.js';
import type { ScheduledJob } from './scheduler.js';

/** Alerts must be noticed within 30 s: a pass every 10 s leaves room for a slow one. */
export const EXPIRY_ALERTS_INTERVAL_MS = 10_000;

export function createExpiryAlertsJob(
  deps: {
    readonly storage: Storage;
    readonly clock: Clock;
    readonly publicBaseUrl: string;
    readonly logger: Pick<Logger, 'info'>;
  },
  options: { intervalMs?: number } = {},
): ScheduledJob {
  return {
    name: 'expiry-alerts',
    intervalMs: options.intervalMs ?? EXPIRY_ALERTS_INTERVAL_MS,
    async run() {
      const written = await runExpiryAlerts(deps.storage.db, {
        now: deps.clock.now(),
        publicBaseUrl: deps.publicBaseUrl,
      });
      if (written > 0) deps.logger.info({ written }, 'override expiry alerts written');
    },
  };
}
