// The ingestor loop: hold the single-ingestor lock, keep the log subscription up, backfill at start,
// after every (re)connect and on a timer, and apply live signatures, strictly one batch at a time.
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import type { Address } from '@solana/kit';
import type { Logger } from 'pino';
import type { Cache } from '../cache/cache.js';
import type { Config } from '../config.js';
import { createIngestionService, type IngestionService } from '../domain/ingestion/apply-signature.js';
import { cursorName, findAppliedSignatures, writeHeartbeat } from '../domain/ingestion/cursor.js';
import { type Backoff, createBackoff, sleep } from '../lib/backoff.js';
import type { Clock } from '../lib/clock.js';
import type { Metrics } from '../lib/metrics.js';
import type { RoleStatus } from '../lib/role-status.js';
import type { Storage, Tx } from '../storage/database.js';
import { runBackfill } from './backfill.js';
import { createChainReader } from './chain-reader.js';
import { createOrderedReader, readTransaction } from './fetch-transaction.js';
import { createIngestorLock, type IngestorLock } from './ingestor-lock.js';
import { createBatchingSolanaRpc } from './rpc-batch.js';
import type { RpcEndpoints } from './rpc-endpoints.js';
import { classifyRpcFailure } from './rpc-failure.js';
import { runLogSubscription } from './subscription.js';

/** Failures in a row after which a retried backfill logs at error level. */
const PERSISTENT_FAILURES = 5;
const FEED_GRACE_MS = 30_000;

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
  /** How long health reads `connecting` while the feed is down before it reads `disconnected` (30 s). */
  feedGraceMs?: number;
}

/** What the ingestor uses of the process's dependencies. */
export interface IngestorDeps {
  readonly config: Config;
  readonly storage: Storage;
  readonly cache: Cache;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly metrics: Metrics;
  readonly rpcEndpoints: RpcEndpoints;
  readonly roleStatus: RoleStatus;
}

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

/** What one session's steps share: its dependencies, the live queue, and what the loop does next. */
interface Session {
  readonly deps: IngestorDeps;
  readonly lock: IngestorLock;
  readonly signal: AbortSignal;
  readonly programId: Address;
  readonly rpc: ReturnType<typeof createBatchingSolanaRpc>;
  readonly fetchConcurrency: number;
  readonly batchSize: number;
  readonly instance: string;
  readonly ingestion: IngestionService;
  readonly fence: (tx: Tx) => Promise<void>;
  /** Backoff between failed backfills or live batches. */
  readonly retry: Backoff;
  /** Live signatures not yet applied, with when each was first seen (Map keeps arrival order). */
  readonly queue: Map<string, number>;
  connected: boolean;
  /** When the feed was lost; null while up, or before its first connection. */
  feedDownSince: number | null;
  readonly startedAt: number;
  readonly feedGraceMs: number;
  /** Failed backfills or live batches in a row (warnings first, errors once it persists). */
  failures: number;
  backfillWanted: boolean;
  busySince: number | null;
  wake: (() => void) | null;
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
  const subscription = runLogSubscription(
    {
      rpcEndpoints: deps.rpcEndpoints,
      programId: s.programId,
      logger: deps.logger,
      ...(options.preferredRecheckMs ? { preferredRecheckMs: options.preferredRecheckMs } : {}),
    },
    subscriptionHandlers(s),
    signal,
  );
  const timers = [
    setInterval(() => wantBackfill(s), deps.config.backfillIntervalMs),
    setInterval(() => void beat(s), options.heartbeatMs ?? 5_000),
  ];
  signal.addEventListener('abort', notify, { once: true });
  await beat(s);
  try {
    while (!signal.aborted) await runStep(s);
  } finally {
    for (const timer of timers) clearInterval(timer);
    signal.removeEventListener('abort', notify);
    await subscription;
    if (!lock.lost.aborted) await beat(s, 'disconnected');
  }
}

function createSession(
  deps: IngestorDeps,
  lock: IngestorLock,
  signal: AbortSignal,
  options: IngestorOptions,
): Session {
  const { config, logger } = deps;
  const programId = config.programId as Address;
  const rpc = createBatchingSolanaRpc(deps.rpcEndpoints, { maxBatch: options.rpcBatchSize ?? 32 });
  const ingestion = createIngestionService({
    storage: deps.storage,
    cache: deps.cache,
    logger,
    clock: deps.clock,
    metrics: deps.metrics,
    publicBaseUrl: config.publicBaseUrl,
    cluster: config.cluster,
    cursorName: cursorName(config.programId),
    chainReader: createChainReader({ rpc, programId, logger, signal }),
  });
  return {
    deps,
    lock,
    signal,
    programId,
    rpc,
    // Enough reads in flight to hide the node's latency; they travel in JSON-RPC batches.
    fetchConcurrency: options.fetchConcurrency ?? 64,
    batchSize: options.batchSize ?? 250,
    instance: `${hostname()}:${process.pid}`,
    ingestion,
    fence: lock.fence.bind(lock),
    retry: createBackoff({ baseMs: 500, capMs: 30_000 }),
    queue: new Map(),
    connected: false,
    feedDownSince: null,
    startedAt: Date.now(),
    feedGraceMs: options.feedGraceMs ?? FEED_GRACE_MS,
    failures: 0,
    backfillWanted: true,
    busySince: null,
    wake: null,
  };
}

function wakeLoop(s: Session): void {
  s.wake?.();
  s.wake = null;
}

function wantBackfill(s: Session): void {
  s.backfillWanted = true;
  wakeLoop(s);
}

function behindSince(s: Session): Date | null {
  const oldestQueued = s.queue.values().next().value;
  const times = [s.busySince, oldestQueued].filter((t): t is number => t !== undefined && t !== null);
  return times.length === 0 ? null : new Date(Math.min(...times));
}

function setFeed(s: Session, endpoint: string | null): void {
  const { metrics, roleStatus } = s.deps;
  const status = roleStatus.ingestor;
  status.feedConnected = endpoint !== null;
  if (status.feedEndpoint !== null) metrics.ingestionFeedEndpoint.labels(status.feedEndpoint).set(0);
  if (endpoint !== null) metrics.ingestionFeedEndpoint.labels(endpoint).set(1);
  status.feedEndpoint = endpoint;
}

/**
 * The feed's state for health: `connecting` for a grace period after it went down (or the session
 * started), then `disconnected`. While down, the ingestor is behind since the feed was lost; before a
 * first connection nobody knows by how much (null).
 */
function feedState(s: Session): {
  status: 'connected' | 'connecting' | 'disconnected';
  behindSince: Date | null;
} {
  if (s.connected) return { status: 'connected', behindSince: behindSince(s) };
  const downFor = Date.now() - (s.feedDownSince ?? s.startedAt);
  const status = downFor > s.feedGraceMs ? 'disconnected' : 'connecting';
  return { status, behindSince: s.feedDownSince === null ? null : new Date(s.feedDownSince) };
}

function beat(s: Session, stopped?: 'disconnected'): Promise<unknown> {
  const state = stopped === undefined ? feedState(s) : { status: stopped, behindSince: new Date() };
  return writeHeartbeat(s.deps.storage.db, { ...state, instance: s.instance }).catch((error: unknown) =>
    s.deps.logger.warn({ err: (error as Error).message }, 'heartbeat failed'),
  );
}

function subscriptionHandlers(s: Session): Parameters<typeof runLogSubscription>[1] {
  const { logger, metrics, rpcEndpoints } = s.deps;
  return {
    onConnected(endpoint, websocket) {
      s.connected = true;
      s.feedDownSince = null;
      setFeed(s, endpoint);
      logger.info({ endpoint, websocket }, `log subscription up on ${websocket}`);
      wantBackfill(s); // whatever landed while we were away
      void beat(s);
    },
    onSignature(signature) {
      if (s.queue.size >= MAX_QUEUED) {
        // The queue only saves the backfill some work: past this size, let the backfill take over.
        logger.warn({ queued: s.queue.size }, 'live queue full; the backfill will read these');
        s.queue.clear();
        s.backfillWanted = true;
      }
      if (!s.queue.has(signature)) s.queue.set(signature, Date.now());
      wakeLoop(s);
    },
    onDisconnected(error, retryInMs, endpoint, websocket) {
      const wasUp = s.connected;
      s.connected = false;
      if (wasUp) s.feedDownSince = Date.now();
      setFeed(s, null);
      metrics.ingestionReconnects.inc();
      logger.warn(
        { err: rpcEndpoints.redact(String((error as Error)?.message)), endpoint, websocket, retryInMs },
        `log subscription to ${websocket} ${wasUp ? 'lost' : 'failed'}; reconnecting in ${retryInMs} ms`,
      );
      void beat(s);
    },
  };
}

/** One turn of the loop: a wanted backfill first, else the queued live signatures, else wait for either. */
async function runStep(s: Session): Promise<void> {
  if (s.backfillWanted) {
    s.backfillWanted = false;
    s.busySince = Date.now();
    await backfillStep(s).finally(() => {
      s.busySince = null;
    });
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
