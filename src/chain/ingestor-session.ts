// One ingestor session (from taking the lock to losing it): the state its steps share, the live queue,
// and how the loop is woken.
import { hostname } from 'node:os';
import type { Address } from '@solana/kit';
import type { Logger } from 'pino';
import type { Cache } from '../cache/cache.js';
import type { Config } from '../config.js';
import { createIngestionService, type IngestionService } from '../domain/ingestion/apply-signature.js';
import { cursorName } from '../domain/ingestion/cursor.js';
import type { ChainTransaction } from '../domain/ingestion/types.js';
import { type Backoff, createBackoff } from '../lib/backoff.js';
import type { Clock } from '../lib/clock.js';
import type { Metrics } from '../lib/metrics.js';
import type { RoleStatus } from '../lib/role-status.js';
import type { Storage, Tx } from '../storage/database.js';
import { createChainReader } from './chain-reader.js';
import { createFinalityReconciler, type FinalityReconciler } from './finality-reconciler.js';
import type { IngestorLock } from './ingestor-lock.js';
import { createBatchingSolanaRpc } from './rpc-batch.js';
import type { RpcEndpoints } from './rpc-endpoints.js';

const FEED_GRACE_MS = 30_000;

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
  /** Time between the finality reconciler's passes (2 s). */
  finalityIntervalMs?: number;
  /**
   * A slot-status stream to feed the finality reconciler (finalized and dead slots): called once per
   * session with the reconciler's reportSlotStatus; returns what ends the subscription.
   */
  slotStatus?: (report: FinalityReconciler['reportSlotStatus']) => () => void;
  /** The gRPC `slots` stream's statuses, as they come (no-op by default). */
  onSlotStatus?: (slot: number, status: 'confirmed' | 'finalized' | 'dead') => void;
  /** gRPC source: ping period (30 s), silence taken as a stall (45 s), wait for a block meta (2 s). */
  grpcPingMs?: number;
  grpcStallMs?: number;
  blockTimeWaitMs?: number;
}

/** A transaction a gRPC update carried, decoded, waiting to be committed. */
export interface DecodedEntry {
  tx: ChainTransaction;
  seenAt: number;
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

/** What one session's steps share: its dependencies, the live queue, and what the loop does next. */
export interface Session {
  readonly deps: IngestorDeps;
  readonly lock: IngestorLock;
  readonly signal: AbortSignal;
  readonly programId: Address;
  readonly rpc: ReturnType<typeof createBatchingSolanaRpc>;
  readonly fetchConcurrency: number;
  readonly batchSize: number;
  readonly instance: string;
  readonly ingestion: IngestionService;
  /** Moves applied signatures to finalized or drops them; a slot-status stream reports to it. */
  readonly finality: FinalityReconciler;
  readonly fence: (tx: Tx) => Promise<void>;
  /** Backoff between failed backfills or live batches. */
  readonly retry: Backoff;
  /** Live signatures not yet applied, with when each was first seen (Map keeps arrival order). */
  readonly queue: Map<string, number>;
  /** Transactions the gRPC source decoded, not yet applied (no read needed), in arrival order. */
  readonly decoded: Map<string, DecodedEntry>;
  /** Told of every decoded transaction once it is committed (or found applied already). */
  onCommitted: ((txs: readonly ChainTransaction[]) => void) | null;
  /** The live source in use. */
  source: 'grpc' | 'websocket';
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

export function createSession(
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
  const fence = lock.fence.bind(lock);
  const finality = createFinalityReconciler({
    rpc,
    storage: deps.storage,
    cache: deps.cache,
    logger,
    clock: deps.clock,
    metrics: deps.metrics,
    finalizedReader: createChainReader({ rpc, programId, logger, signal, commitment: 'finalized' }),
    fence,
    ...(options.finalityIntervalMs ? { intervalMs: options.finalityIntervalMs } : {}),
  });
  return {
    deps,
    lock,
    signal,
    programId,
    rpc,
    finality,
    // Enough reads in flight to hide the node's latency; they travel in JSON-RPC batches.
    fetchConcurrency: options.fetchConcurrency ?? 64,
    batchSize: options.batchSize ?? 250,
    instance: `${hostname()}:${process.pid}`,
    ingestion,
    fence,
    retry: createBackoff({ baseMs: 500, capMs: 30_000 }),
    queue: new Map(),
    decoded: new Map(),
    onCommitted: null,
    source: config.grpc === null ? 'websocket' : 'grpc',
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

export function wakeLoop(s: Session): void {
  s.wake?.();
  s.wake = null;
}

export function wantBackfill(s: Session): void {
  s.backfillWanted = true;
  wakeLoop(s);
}

export function behindSince(s: Session): Date | null {
  const oldestQueued = s.queue.values().next().value;
  const oldestDecoded = s.decoded.values().next().value?.seenAt;
  const times = [s.busySince, oldestQueued, oldestDecoded].filter(
    (t): t is number => t !== undefined && t !== null,
  );
  return times.length === 0 ? null : new Date(Math.min(...times));
}
