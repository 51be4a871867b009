// The ingestor loop: hold the single-ingestor lock, keep the log subscription up, backfill at start,
// after every (re)connect and on a timer, and apply live signatures, strictly one batch at a time.
// What the subscription does to the session is in ingestor-feed.ts; the session's state in ingestor-session.ts.
import { setMaxListeners } from 'node:events';
import { cursorName, findAppliedSignatures } from '../domain/ingestion/cursor.js';
import { createBackoff, sleep } from '../lib/backoff.js';
import { runBackfill } from './backfill.js';
import { createOrderedReader, readTransaction } from './fetch-transaction.js';
import { runGrpcSource } from './grpc-source.js';
import { beat, subscriptionHandlers } from './ingestor-feed.js';
import { createIngestorLock, type IngestorLock } from './ingestor-lock.js';
import {
  behindSince,
  createSession,
  type DecodedEntry,
  type IngestorDeps,
  type IngestorOptions,
  type Session,
  wakeLoop,
  wantBackfill,
} from './ingestor-session.js';
import { classifyRpcFailure } from './rpc-failure.js';
import { runLogSubscription } from './subscription.js';

export type { IngestorDeps, IngestorOptions } from './ingestor-session.js';

/** Failures in a row after which a retried backfill logs at error level. */
const PERSISTENT_FAILURES = 5;

/** Runs until the signal aborts; resolves once the current batch is committed and the lock released. */
export async function runIngestor(
  deps: IngestorDeps,
  signal: AbortSignal,
  options: IngestorOptions = {},
): Promise<void> {
  const { logger } = deps;
  const lock = createIngestorLock({ storage: deps.storage, logger, pollMs: options.lockPollMs });
  const restart = createBackoff({ baseMs: 1_000, capMs: 30_000 });
  const status = deps.roleStatus.ingestor;
  while (!signal.aborted) {
    status.state = 'standby';
    if (!(await lock.acquire(signal))) break;
    status.state = 'active';
    logger.info('ingestor lock held: this process ingests');
    try {
      const session = AbortSignal.any([signal, lock.lost]);
      // Every in-flight RPC call listens on it; dozens at once are expected, not a leak.
      setMaxListeners(1_000, session);
      await runSession(deps, lock, session, options);
      restart.reset();
    } catch (error) {
      logger.error({ err: (error as Error).message }, 'ingestor session failed');
    } finally {
      status.feedConnected = false;
      status.feedEndpoint = null;
      status.feedSource = null;
      await lock.release();
      status.state = 'standby';
    }
    if (!signal.aborted) await sleep(restart.next(), signal);
  }
  status.state = 'stopped';
}

async function runSession(
  deps: IngestorDeps,
  lock: IngestorLock,
  signal: AbortSignal,
  options: IngestorOptions,
): Promise<void> {
  const s = createSession(deps, lock, signal, options);
  const notify = () => wakeLoop(s);
  deps.roleStatus.ingestor.behindSince = () => behindSince(s);
  const subscription =
    deps.config.grpc === null
      ? runLogSubscription(
          {
            rpcEndpoints: deps.rpcEndpoints,
            programId: s.programId,
            logger: deps.logger,
            ...(options.preferredRecheckMs ? { preferredRecheckMs: options.preferredRecheckMs } : {}),
          },
          subscriptionHandlers(s),
          signal,
        )
      : runGrpcSource(s, deps.config.grpc, options, signal);
  const timers = [
    setInterval(() => wantBackfill(s), deps.config.backfillIntervalMs),
    setInterval(() => void beat(s), options.heartbeatMs ?? 5_000),
  ];
  signal.addEventListener('abort', notify, { once: true });
  // Finality runs beside the live path, never in it: one pass of batched status reads every interval.
  const finalityStop = new AbortController();
  const finality = s.finality.run(AbortSignal.any([signal, finalityStop.signal]));
  const endSlotStatus = options.slotStatus?.((slot, status) => s.finality.reportSlotStatus(slot, status));
  await beat(s);
  try {
    while (!signal.aborted) await runStep(s);
  } finally {
    for (const timer of timers) clearInterval(timer);
    signal.removeEventListener('abort', notify);
    endSlotStatus?.();
    finalityStop.abort();
    await Promise.all([subscription, finality]);
    if (!lock.lost.aborted) await beat(s, 'disconnected');
  }
}

/** One turn of the loop: a wanted backfill first, else the queued live signatures, else wait for either. */
async function runStep(s: Session): Promise<void> {
  if (s.backfillWanted) {
    s.backfillWanted = false;
    s.busySince = Date.now();
    await backfillStep(s).finally(() => {
      s.busySince = null;
    });
  } else if (s.decoded.size > 0) {
    const taken = [...s.decoded.values()];
    s.decoded.clear();
    s.busySince = taken[0]?.seenAt ?? null;
    try {
      await applyDecoded(s, taken);
    } catch (error) {
      if (!s.signal.aborted) retryLater(s, error, 'live ingestion');
    } finally {
      s.busySince = null;
    }
  } else if (s.queue.size > 0) {
    const taken = [...s.queue.entries()];
    s.queue.clear();
    s.busySince = taken[0]?.[1] ?? null;
    try {
      await applyLive(s, taken);
    } catch (error) {
      // Nothing is lost: the backfill walks back to the cursor, which live batches never move.
      if (!s.signal.aborted) retryLater(s, error, 'live ingestion');
    } finally {
      s.busySince = null;
    }
  } else {
    await new Promise<void>((resolve) => {
      s.wake = resolve;
    });
  }
}

async function backfillStep(s: Session): Promise<void> {
  const { config, storage, metrics, logger } = s.deps;
  try {
    const result = await runBackfill(
      {
        rpc: s.rpc,
        programId: s.programId,
        storage,
        metrics,
        ingestion: s.ingestion,
        cursorName: cursorName(config.programId),
        backfill: config.backfill,
        fence: s.fence,
        fetchConcurrency: s.fetchConcurrency,
        batchSize: s.batchSize,
        carried: (signature) => s.decoded.get(signature)?.tx,
      },
      s.signal,
    );
    s.retry.reset();
    s.failures = 0;
    logger[result.applied > 0 ? 'info' : 'debug'](result, 'backfill done');
  } catch (error) {
    if (!s.signal.aborted) retryLater(s, error, 'backfill');
  }
}

/** Logs the failure and asks for a backfill after the next backoff delay. */
function retryLater(s: Session, error: unknown, what: string): void {
  const delay = s.retry.next();
  const { rpcEndpoints, logger } = s.deps;
  const err = rpcEndpoints.redact(String((error as Error)?.message));
  // An RPC failure names the endpoints cooling down: the ones that just failed (all when unreachable).
  const endpoints =
    classifyRpcFailure(error) === null
      ? []
      : rpcEndpoints
          .status()
          .filter((e) => !e.available)
          .map((e) => e.endpoint);
  const cause = endpoints.length > 0 ? `RPC ${endpoints.join(', ')}: ${err}` : err;
  s.failures += 1;
  logger[s.failures >= PERSISTENT_FAILURES ? 'error' : 'warn'](
    { err, endpoints, attempt: s.failures, retryInMs: delay },
    `${what} failed (${cause}); retrying in ${delay} ms`,
  );
  const timer = setTimeout(() => wantBackfill(s), delay);
  timer.unref();
}

/** Commits what the gRPC source decoded (no read needed), in batches; a failed batch is queued again. */
async function applyDecoded(s: Session, taken: DecodedEntry[]): Promise<void> {
  const { storage, metrics, logger } = s.deps;
  const done = await findAppliedSignatures(
    storage.db,
    taken.map((entry) => entry.tx.signature),
  );
  s.onCommitted?.(taken.filter((entry) => done.has(entry.tx.signature)).map((entry) => entry.tx));
  const todo = taken.filter((entry) => !done.has(entry.tx.signature));
  for (let start = 0; start < todo.length; start += s.batchSize) {
    const batch = todo.slice(start, start + s.batchSize);
    try {
      await s.ingestion.applySignatures(
        batch.map((entry) => entry.tx),
        { fence: s.fence },
      );
    } catch (error) {
      for (const entry of todo.slice(start)) {
        if (!s.decoded.has(entry.tx.signature)) s.decoded.set(entry.tx.signature, entry);
      }
      throw error;
    }
    const committedAt = Date.now();
    for (const entry of batch) metrics.ingestionLatency.observe((committedAt - entry.seenAt) / 1000);
    s.onCommitted?.(batch.map((entry) => entry.tx));
    logger.debug(
      { source: 'grpc', signatures: batch.map((entry) => entry.tx.signature), committedAt },
      'applied live signatures',
    );
  }
}

async function applyLive(s: Session, taken: [string, number][]): Promise<void> {
  const { storage, metrics, logger } = s.deps;
  let started = performance.now();
  const done = await findAppliedSignatures(
    storage.db,
    taken.map(([signature]) => signature),
  );
  const seenAt = new Map(taken.filter(([signature]) => !done.has(signature)));
  const read = (signature: string) => readTransaction(s.rpc, s.programId, signature, s.signal);
  const reader = createOrderedReader(seenAt.keys(), read, {
    concurrency: s.fetchConcurrency,
    buffer: s.batchSize * 2,
  });
  for (;;) {
    // Everything taken is applied together: one commit for what queued up while we were busy.
    const batch = await reader.nextBatch(s.batchSize, s.batchSize);
    if (batch === null) return;
    metrics.signaturesFetched.labels('live').inc(batch.length);
    const readAt = performance.now();
    await s.ingestion.applySignatures(batch, { fence: s.fence });
    const committedAt = Date.now();
    const timing = { readMs: Math.round(readAt - started), applyMs: Math.round(performance.now() - readAt) };
    started = performance.now();
    for (const tx of batch) {
      const seen = seenAt.get(tx.signature);
      if (seen !== undefined) metrics.ingestionLatency.observe((committedAt - seen) / 1000);
    }
    logger.debug(
      { source: 'live', signatures: batch.map((t) => t.signature), committedAt, ...timing },
      'applied live signatures',
    );
  }
}
