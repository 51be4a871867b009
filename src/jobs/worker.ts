// The worker role: senders from config, webhook secrets sealed under the current key, and the delivery
// loop (delivery-loop.ts) run until main's AbortSignal.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { createSecretBox, resealWebhookSecrets, type SecretBox } from '../domain/webhooks/secret-box.js';
import type { Clock } from '../lib/clock.js';
import type { Metrics } from '../lib/metrics.js';
import type { RoleStatus } from '../lib/role-status.js';
import type { Storage } from '../storage/database.js';
import { createDeliveryWorker } from './delivery-loop.js';
import { createEmailSender } from './email-sender.js';
import { createHttpSender } from './http-sender.js';
import type { Resolver } from './ssrf.js';

/** The worker role as main runs it: senders from config, stopped by main's AbortSignal. */
export async function runDeliveryWorker(
  deps: {
    readonly config: Config;
    readonly storage: Storage;
    readonly clock: Clock;
    readonly logger: Logger;
    readonly metrics: Metrics;
    readonly roleStatus?: RoleStatus;
  },
  signal: AbortSignal,
  overrides: {
    resolve?: Resolver;
    concurrency?: number;
    leaseMs?: number;
    pollIntervalMs?: number;
    /** The process's one SecretBox (default: built here from config.webhookSecretsKeys). */
    secretBox?: SecretBox;
  } = {},
): Promise<void> {
  const { config } = deps;
  const http = createHttpSender({
    timeoutMs: config.webhookTimeoutMs,
    allowPrivateAddresses: config.webhookAllowPrivateUrls,
    ...(overrides.resolve ? { resolve: overrides.resolve } : {}),
  });
  const email =
    config.smtpUrl === null
      ? null
      : createEmailSender({
          smtpUrl: config.smtpUrl,
          from: config.emailFrom,
          timeoutMs: config.webhookTimeoutMs,
        });
  const secretBox = overrides.secretBox ?? createSecretBox(config.webhookSecretsKeys);
  if (config.webhookSecretsKeys !== null) {
    // Plaintext rows, and rows of a previous key, are sealed under the current key once per start.
    await resealWebhookSecrets(deps.storage.db, secretBox).then(
      (count) => count > 0 && deps.logger.info({ count }, 'webhook secrets sealed under the current key'),
      (error: Error) => deps.logger.warn({ err: error.message }, 'sealing webhook secrets failed'),
    );
  }
  const worker = createDeliveryWorker({
    ...deps,
    secretBox,
    scheduleSeconds: config.webhookRetrySchedule,
    http,
    email,
    leaseMs: overrides.leaseMs ?? defaultLeaseMs(config.webhookTimeoutMs),
    ...(deps.roleStatus ? { status: deps.roleStatus.worker } : {}),
    ...(overrides.concurrency ? { concurrency: overrides.concurrency } : {}),
    ...(overrides.pollIntervalMs ? { pollIntervalMs: overrides.pollIntervalMs } : {}),
  });
  try {
    await worker.run(signal);
  } finally {
    await Promise.allSettled([http.close(), email?.close()]);
  }
}

/** Long enough for a send that uses its whole timeout (an SMTP exchange has several) plus recording it. */
export function defaultLeaseMs(timeoutMs: number): number {
  return 3 * timeoutMs + 15_000;
}
