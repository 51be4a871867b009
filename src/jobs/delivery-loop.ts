// The delivery loop: claims due deliveries, sends them outside any transaction, records outcomes.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { createSecretBox, type SecretBox } from '../domain/webhooks/secret-box.js';
import { createVaultNameLookup } from '../domain/webhooks/vault-names.js';
import type { Clock } from '../lib/clock.js';
import type { Metrics } from '../lib/metrics.js';
import type { WorkerStatus } from '../lib/role-status.js';
import { createWaiter, type Waiter } from '../lib/waiter.js';
import type { Storage } from '../storage/database.js';
import { type AttemptRecorder, createAttemptRecorder } from './attempt-recorder.js';
import { reportAttempt } from './attempt-report.js';
import type { ClaimedDelivery } from './delivery.js';
import { type Senders, sendOrCrash } from './delivery-channels.js';
import { claimDueDeliveries } from './delivery-claim.js';
import {
  createInFlightLedger,
  defaultCaps,
  type FairShareCaps,
  type InFlightLedger,
} from './delivery-fairness.js';
import { listenForDeliveries } from './delivery-listener.js';
import type { EmailSender } from './email-sender.js';
import type { HttpSender } from './http-sender.js';
import { createReceiverHealth, type Lane, type ReceiverHealth } from './receiver-health.js';
import { decideAfterAttempt } from './retry-policy.js';

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
  /** In-flight caps per subscription, per owner by worth, and of the slow lane (default: from concurrency). */
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
  const { storage, clock, logger } = options;
  // Sends are mostly waiting on sockets; twice the old 32 so a hanging owner's half leaves 32 for the rest.
  const concurrency = options.concurrency ?? 64;
  const caps = options.caps ?? defaultCaps(concurrency);
  const asyncCommit = storage.kind === 'postgres';
  const ctx: WorkerContext = {
    options,
    concurrency,
    pollIntervalMs: options.pollIntervalMs ?? 200,
    asyncCommit,
    caps,
    ledger: createInFlightLedger(caps),
    health: createReceiverHealth(),
    slowInFlight: 0,
    senders: {
      ...options,
      secretBox: options.secretBox ?? createSecretBox(null),
      vaultNames: createVaultNameLookup(storage),
    },
    inFlight: new Set(),
    recorder: createAttemptRecorder({ storage, clock, logger, asyncCommit }),
    wakeWaiter: createWaiter(),
    slotWaiter: createWaiter(),
    wakePending: false,
  };
  return { wake: () => wake(ctx), run: (signal) => run(ctx, signal) };
}

/** What the worker's steps share: its options, the sends in flight and the two things it waits on. */
interface WorkerContext {
  readonly options: DeliveryWorkerOptions;
  readonly concurrency: number;
  readonly pollIntervalMs: number;
  readonly asyncCommit: boolean;
  readonly caps: FairShareCaps;
  readonly ledger: InFlightLedger;
  /** Which receivers are in the slow lane. */
  readonly health: ReceiverHealth;
  /** Sends in the slow lane: in `inFlight` but not in the worker's slots. */
  slowInFlight: number;
  readonly senders: Senders;
  readonly inFlight: Set<Promise<void>>;
  readonly recorder: AttemptRecorder;
  /** Ends a wait for due deliveries (a NOTIFY, wake(), a freed fair share). */
  readonly wakeWaiter: Waiter;
  /** Ends a wait for free slots (half the sends in the worker's slots finished). */
  readonly slotWaiter: Waiter;
  wakePending: boolean;
}

function wake(ctx: WorkerContext): void {
  ctx.wakePending = true;
  ctx.wakeWaiter.release();
}

/** Until a NOTIFY (or wake()), the given time, or shutdown. */
async function waitForWake(ctx: WorkerContext, ms: number, signal: AbortSignal): Promise<void> {
  if (ctx.wakePending || signal.aborted) return;
  await ctx.wakeWaiter.wait(ms, signal);
}

/** Until sends in flight free half the slots, the poll interval passes (slow receivers), or shutdown. */
async function waitForSlots(ctx: WorkerContext, signal: AbortSignal): Promise<void> {
  if (signal.aborted || fastInFlight(ctx) <= ctx.concurrency / 2) return;
  await ctx.slotWaiter.wait(ctx.pollIntervalMs, signal);
}

async function run(ctx: WorkerContext, signal: AbortSignal): Promise<void> {
  const { storage, logger, status } = ctx.options;
  const stopListening = await listenForDeliveries(storage, () => wake(ctx), logger).catch((error: Error) => {
    logger.warn({ err: error.message }, 'delivery listener unavailable; polling only');
    return async () => {};
  });
  logger.info(
    { concurrency: ctx.concurrency, pollIntervalMs: ctx.pollIntervalMs },
    'delivery worker started',
  );
  if (status !== undefined) {
    status.running = true;
    status.inFlight = () => ctx.inFlight.size;
  }
  try {
    while (!signal.aborted) await claimAndSend(ctx, signal);
  } finally {
    if (status !== undefined) status.running = false;
    await drain(ctx);
    await stopListening();
    logger.info('delivery worker stopped');
  }
}

/** Sends in the worker's slots (the slow lane's are on top of them). */
function fastInFlight(ctx: WorkerContext): number {
  return ctx.inFlight.size - ctx.slowInFlight;
}

/** One turn of the loop: claim what the free slots allow, start sending it, then wait for a reason to look again. */
async function claimAndSend(ctx: WorkerContext, signal: AbortSignal): Promise<void> {
  await claimSlowLane(ctx);
  const free = ctx.concurrency - fastInFlight(ctx);
  if (free === 0) {
    // Waits on sends finishing (real I/O), never on a pending wake-up: that would spin.
    await waitForSlots(ctx, signal);
    return;
  }
  ctx.wakePending = false;
  const claimed = await claim(ctx, 'fast', free);
  if (claimed === null) {
    await waitForWake(ctx, CLAIM_ERROR_BACKOFF_MS, signal);
    return;
  }
  for (const delivery of claimed) track(ctx, delivery);
  // A full batch means more may be due: claim again as soon as slots free up.
  if (claimed.length === free) await waitForSlots(ctx, signal);
  else await waitForWake(ctx, ctx.pollIntervalMs, signal);
}

/** One delivery for each slow receiver without one in flight, while the slow lane has room. */
async function claimSlowLane(ctx: WorkerContext): Promise<void> {
  const room = ctx.caps.slowLane - ctx.slowInFlight;
  if (room <= 0 || ctx.health.slow().length === 0) return;
  const claimed = await claim(ctx, 'slow', room);
  for (const delivery of claimed ?? []) track(ctx, delivery);
}

/** Due deliveries of a lane for up to `free` slots, or null when claiming failed (logged). */
async function claim(ctx: WorkerContext, lane: Lane, free: number): Promise<ClaimedDelivery[] | null> {
  const { storage, clock, logger, status, leaseMs } = ctx.options;
  try {
    const claimed = await claimDueDeliveries(storage.db, {
      now: clock.now(),
      limit: free,
      leaseMs,
      asyncCommit: ctx.asyncCommit,
      caps: ctx.caps,
      held: ctx.ledger.held(),
      lane,
      slow: ctx.health.slow(),
      trusted: ctx.health.trusted(),
    });
    if (status !== undefined) Object.assign(status, { lastClaimAt: Date.now(), lastClaimFailed: false });
    return claimed;
  } catch (error) {
    if (status !== undefined) Object.assign(status, { lastClaimAt: Date.now(), lastClaimFailed: true });
    logger.warn({ err: (error as Error).message }, 'claiming deliveries failed');
    return null;
  }
}

function track(ctx: WorkerContext, delivery: ClaimedDelivery): void {
  const task = deliver(ctx, delivery)
    .catch((error: unknown) => {
      // Recording itself failed: the lease runs out and the delivery is tried again.
      ctx.options.logger.error(
        { err: (error as Error).message, deliveryId: delivery.id },
        'delivery crashed',
      );
    })
    .finally(() => {
      ctx.inFlight.delete(task);
      if (delivery.lane === 'slow') ctx.slowInFlight -= 1;
      // A subscription or owner back under its cap may have more due: look now, not at the next poll.
      if (ctx.ledger.release(delivery)) wake(ctx);
      // Claim again once half the slots are free: one claim per batch, not per finished send.
      if (fastInFlight(ctx) <= ctx.concurrency / 2) ctx.slotWaiter.release();
    });
  ctx.inFlight.add(task);
  if (delivery.lane === 'slow') ctx.slowInFlight += 1;
  ctx.ledger.add(delivery);
}

async function deliver(ctx: WorkerContext, delivery: ClaimedDelivery): Promise<void> {
  const startedAt = ctx.options.clock.now();
  if (!delivery.active || !delivery.verified) {
    // Enqueued before the subscription was disabled, or before its URL became an unconfirmed address.
    ctx.recorder.record({
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
  const { channel, outcome } = await sendOrCrash(delivery, startedAt, ctx.senders, ctx.options.logger);
  const durationMs = Math.round(performance.now() - began);
  const finishedAt = ctx.options.clock.now();
  const decision = decideAfterAttempt({
    attempt: delivery.attempt,
    result: outcome,
    scheduleSeconds: ctx.options.scheduleSeconds,
    finishedAt,
    ...(ctx.options.random ? { random: ctx.options.random } : {}),
  });
  reportAttempt(ctx.options, { delivery, channel, outcome, decision, finishedAt });
  // A receiver that keeps timing out moves to the slow lane (one that answers again, back): look again.
  if (ctx.health.note(delivery.receiver, outcome.error === 'timeout')) {
    ctx.options.logger.info(
      { webhookId: delivery.webhookId, lane: ctx.health.lane(delivery.receiver) },
      'receiver changed delivery lane',
    );
    wake(ctx);
  }
  ctx.recorder.record({ delivery, startedAt, durationMs, outcome, decision });
}

async function drain(ctx: WorkerContext): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ctx.options.drainTimeoutMs ?? 8_000);
  });
  await Promise.race([Promise.allSettled([...ctx.inFlight]), limit]);
  clearTimeout(timer);
  if (ctx.inFlight.size > 0)
    ctx.options.logger.warn(
      { count: ctx.inFlight.size },
      'shutdown left deliveries in flight; they will be sent again',
    );
  await ctx.recorder.flush();
  // Whatever could not be recorded is sent again after its lease: nothing may outlive the worker.
  ctx.recorder.stop();
}
