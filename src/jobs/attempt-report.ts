// What every delivery attempt leaves besides its row: metrics, and a log line when it failed.
import type { Logger } from 'pino';
import type { Metrics } from '../lib/metrics.js';
import type { ClaimedDelivery } from './delivery.js';
import type { Channel } from './delivery-channels.js';
import type { SendOutcome } from './http-sender.js';
import type { decideAfterAttempt } from './retry-policy.js';

/** Metrics for every attempt, and a log line for a failed one. */
export function reportAttempt(
  deps: { metrics: Metrics; logger: Logger },
  attempt: {
    delivery: ClaimedDelivery;
    channel: Channel;
    outcome: SendOutcome;
    decision: ReturnType<typeof decideAfterAttempt>;
    finishedAt: Date;
  },
): void {
  const { delivery, channel, outcome, decision, finishedAt } = attempt;
  const { metrics, logger } = deps;
  metrics.deliveryAttempts.labels(channel, outcome.ok ? 'success' : 'failure').inc();
  if (outcome.ok) {
    metrics.deliveryLatency.observe(Math.max(0, finishedAt.getTime() - delivery.createdAt.getTime()) / 1000);
    return;
  }
  logger.info(
    {
      deliveryId: delivery.id,
      webhookId: delivery.webhookId,
      event: delivery.event,
      attempt: delivery.attempt,
      status: outcome.statusCode,
      error: outcome.detail ?? outcome.error,
      next: decision.status === 'pending' ? decision.nextAttemptAt.toISOString() : decision.status,
    },
    'delivery attempt failed',
  );
}
