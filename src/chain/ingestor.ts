// The ingestor loop: hold the single-ingestor lock, keep the log subscription up, backfill at start,
// after every (re)connect and on a timer, and apply live signatures, strictly one batch at a time.
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import type { Address } from '@solana/kit';
import type { AppDeps } from '../app-deps.js';
import { createIngestionService, type IngestionService } from '../domain/ingestion/apply-signature.js';
import { cursorName, findAppliedSignatures, writeHeartbeat } from '../domain/ingestion/cursor.js';
import { runBackfill } from './backfill.js';
import { createBackoff, sleep } from './backoff.js';
import { createChainReader } from './chain-reader.js';
import { createOrderedReader, readTransaction } from './fetch-transaction.js';
import { createIngestorLock, type IngestorLock } from './ingestor-lock.js';
import { createBatchingSolanaRpc } from './rpc-batch.js';
import { runLogSubscription } from './subscription.js';

/** Live signatures held while a backfill runs; beyond this the backfill reads them instead. */
const MAX_QUEUED = 100_000;

export interface IngestorOptions {
  /** getTransaction calls in flight. */
  fetchConcurrency?: number;
  /** getTransaction calls per JSON-RPC batch (1: no batching). */
  rpcBatchSize?: number;
  /** Most signatures committed in one database transaction. */
  batchSize?: number;
  heartbeatMs?: number;
  lockPollMs?: number;
  /** While the feed is on a fallback RPC endpoint, how often a preferred one is checked. */
  preferredRecheckMs?: number;
}

export type IngestorDeps = Pick<
  AppDeps,
  'config' | 'storage' | 'cache' | 'logger' | 'clock' | 'metrics' | 'rpcEndpoints' | 'roleStatus'
>;

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
  const { config, storage, logger, metrics } = deps;
  const programId = config.programId as Address;
  // Enough reads in flight to hide the node's latency; they travel in JSON-RPC batches.
  const fetchConcurrency = options.fetchConcurrency ?? 64;
  const rpc = createBatchingSolanaRpc(deps.rpcEndpoints, { maxBatch: options.rpcBatchSize ?? 32 });
  const batchSize = options.batchSize ?? 250;
  const instance = `${hostname()}:${process.pid}`;
  const ingestion = createIngestionService({
    storage,
    cache: deps.cache,
    logger,
    clock: deps.clock,
    metrics,
    publicBaseUrl: config.publicBaseUrl,
    cluster: config.cluster,
    cursorName: cursorName(config.programId),
    chainReader: createChainReader({ rpc, programId, logger, signal }),
  });
  const fence = lock.fence.bind(lock);

  /** Live signatures not yet applied, with when each was first seen (Map keeps arrival order). */
  const queue = new Map<string, number>();
  let connected = false;
  let backfillWanted = true;
  let busySince: number | null = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };

  const behindSince = () => {
    const oldestQueued = queue.values().next().value;
    const times = [busySince, oldestQueued].filter((t): t is number => t !== undefined && t !== null);
    return times.length === 0 ? null : new Date(Math.min(...times));
  };
  const status = deps.roleStatus.ingestor;
  status.behindSince = behindSince;
  const setFeed = (endpoint: string | null) => {
    status.feedConnected = endpoint !== null;
    if (status.feedEndpoint !== null) metrics.ingestionFeedEndpoint.labels(status.feedEndpoint).set(0);
    if (endpoint !== null) metrics.ingestionFeedEndpoint.labels(endpoint).set(1);
    status.feedEndpoint = endpoint;
  };
  const beat = (status?: 'disconnected') =>
    writeHeartbeat(storage.db, {
      status: status ?? (connected ? 'connected' : 'connecting'),
      instance,
      behindSince: status === undefined ? behindSince() : null,
    }).catch((error: unknown) => logger.warn({ err: (error as Error).message }, 'heartbeat failed'));

  const subscription = runLogSubscription(
    {
      rpcEndpoints: deps.rpcEndpoints,
      programId,
      logger,
      ...(options.preferredRecheckMs ? { preferredRecheckMs: options.preferredRecheckMs } : {}),
    },
    {
      onConnected(endpoint) {
        connected = true;
        setFeed(endpoint);
        backfillWanted = true; // whatever landed while we were away
        logger.info({ endpoint }, 'log subscription up');
        notify();
        void beat();
      },
      onSignature(signature) {
        if (queue.size >= MAX_QUEUED) {
          // The queue only saves the backfill some work: past this size, let the backfill take over.
          logger.warn({ queued: queue.size }, 'live queue full; the backfill will read these');
          queue.clear();
          backfillWanted = true;
        }
        if (!queue.has(signature)) queue.set(signature, Date.now());
        notify();
      },
      onDisconnected(error, retryInMs, endpoint) {
        connected = false;
        setFeed(null);
        metrics.ingestionReconnects.inc();
        logger.warn(
          { err: deps.rpcEndpoints.redact(String((error as Error)?.message)), endpoint, retryInMs },
          'log subscription lost; reconnecting',
        );
        void beat();
      },
    },
    signal,
  );
  const timers = [
    setInterval(() => {
      backfillWanted = true;
      notify();
    }, config.backfillIntervalMs),
    setInterval(() => void beat(), options.heartbeatMs ?? 5_000),
  ];
  signal.addEventListener('abort', notify, { once: true });
  await beat();

  const retry = createBackoff({ baseMs: 500, capMs: 30_000 });
  const retryLater = (error: unknown, what: string) => {
    const delay = retry.next();
    const err = deps.rpcEndpoints.redact(String((error as Error)?.message));
    logger.error({ err, retryInMs: delay }, `${what} failed`);
    const timer = setTimeout(() => {
      backfillWanted = true;
      notify();
    }, delay);
    timer.unref();
  };

  try {
    while (!signal.aborted) {
      if (backfillWanted) {
        backfillWanted = false;
        busySince = Date.now();
        try {
          const result = await runBackfill(
            {
              rpc,
              programId,
              storage,
              metrics,
              ingestion,
              cursorName: cursorName(config.programId),
              backfill: config.backfill,
              fence,
              fetchConcurrency,
              batchSize,
            },
            signal,
          );
          retry.reset();
          logger[result.applied > 0 ? 'info' : 'debug'](result, 'backfill done');
        } catch (error) {
          if (!signal.aborted) retryLater(error, 'backfill');
        } finally {
          busySince = null;
        }
      } else if (queue.size > 0) {
        const taken = [...queue.entries()];
        queue.clear();
        busySince = taken[0]?.[1] ?? null;
        try {
          await applyLive(taken, ingestion);
        } catch (error) {
          // Nothing is lost: the backfill walks back to the cursor, which live batches never move.
          if (!signal.aborted) retryLater(error, 'live ingestion');
        } finally {
          busySince = null;
        }
      } else {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    }
  } finally {
    for (const timer of timers) clearInterval(timer);
    signal.removeEventListener('abort', notify);
    await subscription;
    if (!lock.lost.aborted) await beat('disconnected');
  }

  async function applyLive(taken: [string, number][], service: IngestionService): Promise<void> {
    let started = performance.now();
    const done = await findAppliedSignatures(
      storage.db,
      taken.map(([s]) => s),
    );
    const seenAt = new Map(taken.filter(([s]) => !done.has(s)));
    const reader = createOrderedReader(seenAt.keys(), (s) => readTransaction(rpc, programId, s, signal), {
      concurrency: fetchConcurrency,
      buffer: batchSize * 2,
    });
    for (;;) {
      // Everything taken is applied together: one commit for what queued up while we were busy.
      const batch = await reader.nextBatch(batchSize, batchSize);
      if (batch === null) return;
      metrics.signaturesFetched.labels('live').inc(batch.length);
      const read = performance.now();
      await service.applySignatures(batch, { fence });
      const committedAt = Date.now();
      const timing = { readMs: Math.round(read - started), applyMs: Math.round(performance.now() - read) };
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
}
