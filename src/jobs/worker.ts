// The delivery worker: claims due deliveries, sends them outside any transaction, records outcomes.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { AppDeps } from '../app-deps.js';
import { createSecretBox, resealWebhookSecrets, type SecretBox } from '../domain/webhooks/secret-box.js';
import type { Clock } from '../lib/clock.js';
import type { Metrics } from '../lib/metrics.js';
import type { WorkerStatus } from '../lib/role-status.js';
import type { Storage } from '../storage/database.js';
import { type AttemptRecord, type ClaimedDelivery, claimDueDeliveries, recordAttempts } from './delivery.js';
import { type Channel, sendDelivery } from './delivery-channels.js';
import { createInFlightLedger, defaultCaps, type FairShareCaps } from './delivery-fairness.js';
import { listenForDeliveries } from './delivery-listener.js';
import { createEmailSender, type EmailSender } from './email-sender.js';
import { createHttpSender, type HttpSender, type SendOutcome } from './http-sender.js';
import { decideAfterAttempt } from './retry-policy.js';
import type { Resolver } from './ssrf.js';

const FLUSH_BATCH = 64;
const FLUSH_DELAY_MS = 5;
const FLUSH_RETRY_MS = 1_000;
const CLAIM_ERROR_BACKOFF_MS = 1_000;

export interface DeliveryWorkerOptions {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  scheduleSeconds: readonly number[];
  http: HttpSender;
  email: EmailSender | null;
  /** A claimed delivery is someone else's to send again once this long has passed. */
  leaseMs: number;
  concurrency?: number;
  /** In-flight caps per subscription and per owner (default: half of concurrency each). */
  caps?: FairShareCaps;
  /** Opens sealed webhook secrets (default: none configured, plaintext only). */
  secretBox?: SecretBox;
  pollIntervalMs?: number;
  /** On shutdown, how long in-flight deliveries may take before their leases are left to expire. */
  drainTimeoutMs?: number;
  random?: () => number;
  /** Where readiness and metrics read whether this worker claims, and how much it has in flight. */
  status?: WorkerStatus;
}

export interface DeliveryWorker {
  run(signal: AbortSignal): Promise<void>;
  /** Look for due deliveries now (what a NOTIFY does). */
  wake(): void;
}

export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { storage, clock, logger, metrics } = options;
  // Sends are mostly waiting on sockets; twice the old 32 so a hanging owner's half leaves 32 for the rest.
  const concurrency = options.concurrency ?? 64;
  const pollIntervalMs = options.pollIntervalMs ?? 200;
  const asyncCommit = storage.kind === 'postgres';
  const caps = options.caps ?? defaultCaps(concurrency);
  const ledger = createInFlightLedger(caps);
  const senders = { ...options, secretBox: options.secretBox ?? createSecretBox(null) };
  const inFlight = new Set<Promise<void>>();
  const pending: AttemptRecord[] = [];
  let flushChain = Promise.resolve();
  let flushTimer: NodeJS.Timeout | undefined;
  let wakePending = false;
  let wakeWaiter: (() => void) | null = null;
  let slotWaiter: (() => void) | null = null;
  /** Set once drained: late outcomes are dropped (their leases expire) rather than written after close. */
  let stopped = false;

  const wake = () => {
    wakePending = true;
    wakeWaiter?.();
  };

  function flush(): Promise<void> {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    flushChain = flushChain.then(async () => {
      const batch = pending.splice(0, pending.length);
      if (batch.length === 0) return;
      try {
        await recordAttempts(storage.db, batch, clock.now(), { asyncCommit });
      } catch (error) {
        // Kept for the next flush; meanwhile the leases keep these deliveries from being re-sent.
        logger.error(
          { err: (error as Error).message, count: batch.length },
          'recording delivery attempts failed',
        );
        pending.unshift(...batch);
        flushTimer ??= setTimeout(() => void flush(), FLUSH_RETRY_MS);
      }
    });
    return flushChain;
  }

  function record(entry: AttemptRecord): void {
    if (stopped) return;
    pending.push(entry);
    if (pending.length >= FLUSH_BATCH) void flush();
    else flushTimer ??= setTimeout(() => void flush(), FLUSH_DELAY_MS);
  }

  async function deliver(delivery: ClaimedDelivery): Promise<void> {
    const startedAt = clock.now();
    if (!delivery.active || !delivery.verified) {
      // Enqueued before the subscription was disabled, or before its URL became an unconfirmed address.
      record({
        delivery,
        startedAt,
        durationMs: 0,
        outcome: null,
        decision: { status: 'failed', reason: 'disabled' },
        note: delivery.active ? 'subscription not verified' : 'subscription disabled',
      });
      return;
    }
    const began = performance.now();
    const { channel, outcome }: { channel: Channel; outcome: SendOutcome } = await sendDelivery(
      delivery,
      startedAt,
      senders,
    ).catch((error: unknown) => {
      // A bug or an unreadable row is an attempt like any other, so it too runs out of retries.
      logger.error({ err: (error as Error).message, deliveryId: delivery.id }, 'delivery crashed');
      return {
        channel: 'webhook' as const,
        outcome: {
          ok: false,
          statusCode: null,
          error: 'internal_error',
          retryAfter: null,
          responseBody: null,
        },
      };
    });
    const durationMs = Math.round(performance.now() - began);
    const finishedAt = clock.now();
    const decision = decideAfterAttempt({
      attempt: delivery.attempt,
      result: outcome,
      scheduleSeconds: options.scheduleSeconds,
      finishedAt,
      ...(options.random ? { random: options.random } : {}),
    });
    metrics.deliveryAttempts.labels(channel, outcome.ok ? 'success' : 'failure').inc();
    if (outcome.ok) {
      metrics.deliveryLatency.observe(
        Math.max(0, finishedAt.getTime() - delivery.createdAt.getTime()) / 1000,
      );
    } else {
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
    record({ delivery, startedAt, durationMs, outcome, decision });
  }

  function track(delivery: ClaimedDelivery): void {
    const task = deliver(delivery)
      .catch((error: unknown) => {
        // Recording itself failed: the lease runs out and the delivery is tried again.
        logger.error({ err: (error as Error).message, deliveryId: delivery.id }, 'delivery crashed');
      })
      .finally(() => {
        inFlight.delete(task);
        // A subscription or owner back under its cap may have more due: look now, not at the next poll.
        if (ledger.release(delivery)) wake();
        // Claim again once half the slots are free: one claim per batch, not per finished send.
        if (inFlight.size <= concurrency / 2) slotWaiter?.();
      });
    inFlight.add(task);
    ledger.add(delivery);
  }

  /** Until a NOTIFY (or wake()), the poll interval, or shutdown. */
  async function waitForWake(ms: number, signal: AbortSignal): Promise<void> {
    if (wakePending || signal.aborted) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        wakeWaiter = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakeWaiter = done;
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Until sends in flight free half the slots, the poll interval passes (slow receivers), or shutdown. */
  async function waitForSlots(signal: AbortSignal): Promise<void> {
    if (signal.aborted || inFlight.size <= concurrency / 2) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        slotWaiter = null;
        resolve();
      };
      const timer = setTimeout(done, pollIntervalMs);
      slotWaiter = done;
      signal.addEventListener('abort', done, { once: true });
    });
  }

  async function drain(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, options.drainTimeoutMs ?? 8_000);
    });
    await Promise.race([Promise.allSettled([...inFlight]), limit]);
    clearTimeout(timer);
    if (inFlight.size > 0)
      logger.warn({ count: inFlight.size }, 'shutdown left deliveries in flight; they will be sent again');
    await flush();
    // Whatever could not be recorded is sent again after its lease: nothing may outlive the worker.
    stopped = true;
    clearTimeout(flushTimer);
  }

  return {
    wake,
    async run(signal) {
      const stopListening = await listenForDeliveries(storage, wake, logger).catch((error: Error) => {
        logger.warn({ err: error.message }, 'delivery listener unavailable; polling only');
        return async () => {};
      });
      logger.info({ concurrency, pollIntervalMs }, 'delivery worker started');
      const status = options.status;
      if (status !== undefined) {
        status.running = true;
        status.inFlight = () => inFlight.size;
      }
      try {
        while (!signal.aborted) {
          const free = concurrency - inFlight.size;
          if (free === 0) {
            // Waits on sends finishing (real I/O), never on a pending wake-up: that would spin.
            await waitForSlots(signal);
            continue;
          }
          wakePending = false;
          let claimed: ClaimedDelivery[];
          try {
            claimed = await claimDueDeliveries(storage.db, {
              now: clock.now(),
              limit: free,
              leaseMs: options.leaseMs,
              asyncCommit,
              caps,
              held: ledger.held(),
            });
            if (status !== undefined)
              Object.assign(status, { lastClaimAt: Date.now(), lastClaimFailed: false });
          } catch (error) {
            if (status !== undefined)
              Object.assign(status, { lastClaimAt: Date.now(), lastClaimFailed: true });
            logger.warn({ err: (error as Error).message }, 'claiming deliveries failed');
            await waitForWake(CLAIM_ERROR_BACKOFF_MS, signal);
            continue;
          }
          for (const delivery of claimed) track(delivery);
          // A full batch means more may be due: claim again as soon as slots free up.
          if (claimed.length === free) await waitForSlots(signal);
          else await waitForWake(pollIntervalMs, signal);
        }
      } finally {
        if (status !== undefined) status.running = false;
        await drain();
        await stopListening();
        logger.info('delivery worker stopped');
      }
    },
  };
}

/** The worker role as main runs it: senders from config, stopped by main's AbortSignal. */
export async function runDeliveryWorker(
  deps: Pick<AppDeps, 'config' | 'storage' | 'clock' | 'logger' | 'metrics'> &
    Partial<Pick<AppDeps, 'roleStatus'>>,
  signal: AbortSignal,
  overrides: { resolve?: Resolver; concurrency?: number; leaseMs?: number; pollIntervalMs?: number } = {},
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
  const secretBox = createSecretBox(config.webhookSecretsKeys);
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
