// The gRPC source's side of a session: decode each transaction update as it comes (its block time from
// the slot's block meta, else getBlockTime after a short wait), keep the replay slot, backfill when the
// provider refuses it, and hand over to the WebSocket source while the stream stays unreachable.
import type { GrpcConfig } from '../config.js';
import { withRetry } from '../lib/backoff.js';
import { decodeProgramTransaction, type TransactionView } from './fetch-transaction.js';
import type { GeyserEvent } from './grpc-geyser.js';
import { describeGrpcError, runGrpcStream } from './grpc-stream.js';
import { beat, setFeed, subscriptionHandlers } from './ingestor-feed.js';
import type { IngestorOptions, Session } from './ingestor-session.js';
import { wakeLoop, wantBackfill } from './ingestor-session.js';
import { ReplaySlot } from './replay-slot.js';
import { runLogSubscription } from './subscription.js';

const BLOCK_TIME_WAIT_MS = 2_000;
/** Block times kept for slots whose transactions may still arrive (replays, late updates). */
const BLOCK_TIMES_KEPT = 4_096;
/** Decoded transactions held while the loop is busy; beyond this the backfill reads them instead. */
const MAX_DECODED = 100_000;

type Held = { views: { view: Omit<TransactionView, 'blockTime'>; seenAt: number }[]; timer: NodeJS.Timeout };

/** scheme://host of the provider, the only part of its URL ever logged. */
export function grpcLabel(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.hostname}`;
}

/**
 * Holds each transaction update until its slot's block time is known (the slot's block meta, or
 * getBlockTime after `waitMs`), then decodes it into the session's queue and marks the slot complete.
 */
function createBlockTimes(s: Session, replay: ReplaySlot, waitMs: number, signal: AbortSignal) {
  const { logger } = s.deps;
  const blockTimes = new Map<number, number | null>();
  const held = new Map<number, Held>();

  const release = (slot: number, views: Held['views'], blockTime: number | null) => {
    if (s.decoded.size + views.length > MAX_DECODED) {
      logger.warn({ decoded: s.decoded.size }, 'decoded queue full; the backfill will read these');
      s.decoded.clear();
      replay.reset();
      wantBackfill(s);
      return;
    }
    for (const { view, seenAt } of views) {
      if (s.decoded.has(view.signature)) continue;
      const tx = decodeProgramTransaction({ ...view, blockTime }, s.programId);
      s.decoded.set(view.signature, { tx, seenAt });
    }
    replay.complete(slot);
    wakeLoop(s);
  };
  const setBlockTime = (slot: number, time: number | null) => {
    blockTimes.set(slot, time);
    if (blockTimes.size > BLOCK_TIMES_KEPT) blockTimes.delete(blockTimes.keys().next().value as number);
    const waiting = held.get(slot);
    held.delete(slot);
    if (waiting !== undefined) clearTimeout(waiting.timer);
    release(slot, waiting?.views ?? [], time);
  };
  const readBlockTime = async (slot: number) => {
    let time: number | null = null;
    try {
      const result = await withRetry(() => s.rpc.getBlockTime(BigInt(slot)).send({ abortSignal: signal }), {
        attempts: 3,
        signal,
      });
      time = Number(result);
    } catch (error) {
      if (signal.aborted) return;
      logger.warn({ slot, err: (error as Error).message }, 'getBlockTime failed; block time unknown');
    }
    if (held.has(slot)) setBlockTime(slot, time);
  };

  return {
    transaction(view: Omit<TransactionView, 'blockTime'>): void {
      replay.seen(view.slot, view.signature);
      const entry = { view, seenAt: Date.now() };
      if (blockTimes.has(view.slot)) {
        release(view.slot, [entry], blockTimes.get(view.slot) ?? null);
        return;
      }
      const waiting = held.get(view.slot);
      if (waiting !== undefined) waiting.views.push(entry);
      else
        held.set(view.slot, {
          views: [entry],
          timer: setTimeout(() => void readBlockTime(view.slot), waitMs),
        });
    },
    blockMeta: setBlockTime,
    clear(): void {
      for (const waiting of held.values()) clearTimeout(waiting.timer);
      held.clear();
    },
  };
}

/** Runs the gRPC source (and the WebSocket source while the stream is unreachable) until `signal` aborts. */
export async function runGrpcSource(
  s: Session,
  grpc: GrpcConfig,
  options: IngestorOptions,
  signal: AbortSignal,
): Promise<void> {
  const { logger, metrics } = s.deps;
  const label = grpcLabel(grpc.url);
  const replay = new ReplaySlot();
  const times = createBlockTimes(s, replay, options.blockTimeWaitMs ?? BLOCK_TIME_WAIT_MS, signal);
  const onSlotStatus = options.onSlotStatus ?? (() => {});
  let refusalLogged = false;
  s.onCommitted = (txs) => {
    for (const tx of txs) replay.committed(tx.slot, tx.signature);
  };
  const onEvent = (event: GeyserEvent) => {
    if (event.kind === 'transaction') times.transaction(event.view);
    else if (event.kind === 'blockMeta') times.blockMeta(event.slot, event.blockTime);
    else if (event.kind === 'slot' && event.status !== null) {
      // The stream's finalized and dead slots settle rows without the reconciler's status calls.
      if (event.status !== 'confirmed') s.finality.reportSlotStatus(event.slot, event.status);
      onSlotStatus(event.slot, event.status);
    }
  };

  const failover = createFailover(s, grpc.fallbackMs, signal);
  try {
    await runGrpcStream(
      {
        url: grpc.url,
        token: grpc.token,
        programId: s.programId,
        logger,
        replayFrom: () => replay.value,
        ...(options.grpcPingMs ? { pingMs: options.grpcPingMs } : {}),
        ...(options.grpcStallMs ? { stallMs: options.grpcStallMs } : {}),
      },
      {
        onConnected(fromSlot) {
          failover.grpcUp();
          s.connected = true;
          s.feedDownSince = null;
          setFeed(s, label);
          if (fromSlot === null) {
            logger.info({ endpoint: label }, `gRPC stream up on ${label}`);
            wantBackfill(s); // whatever landed before the stream, read from the stored cursor
          } else {
            metrics.ingestionReplays.labels('resumed').inc();
            logger.info(
              { endpoint: label, fromSlot },
              `gRPC stream up on ${label}, resumed from slot ${fromSlot}`,
            );
          }
          void beat(s);
        },
        onEvent,
        onReplayRefused(fromSlot, error) {
          metrics.ingestionReplays.labels('refused').inc();
          const err = describeGrpcError(error);
          logger[refusalLogged ? 'debug' : 'warn'](
            { endpoint: label, fromSlot, err },
            `gRPC provider refused fromSlot ${fromSlot}; the backfill reads the gap from the stored cursor`,
          );
          refusalLogged = true;
          replay.reset();
        },
        onDisconnected(error, retryInMs, wasUp) {
          const err = describeGrpcError(error);
          if (wasUp) {
            s.connected = false;
            s.feedDownSince = Date.now();
            setFeed(s, null);
            metrics.ingestionReconnects.inc();
            failover.grpcDown();
            void beat(s);
          }
          logger.warn(
            { endpoint: label, err, retryInMs },
            `gRPC stream to ${label} ${wasUp ? 'lost' : 'failed'}; reconnecting in ${retryInMs} ms`,
          );
        },
      },
      signal,
    );
  } catch (error) {
    // The client could not load (no native binary for this platform): the WebSocket source serves.
    if (!signal.aborted) {
      logger.error({ err: (error as Error).message }, 'gRPC client unavailable; the WebSocket source serves');
      failover.startNow();
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    }
  } finally {
    times.clear();
    await failover.stop();
  }
}

/**
 * Starts the WebSocket source once the stream has been unreachable for `fallbackMs` (from the session's
 * start, or from the drop), and stops it when the stream is back. The WebSocket source backfills when it
 * connects, and the stream resumes from its replay slot (or backfills): no gap either way.
 */
function createFailover(s: Session, fallbackMs: number, signal: AbortSignal) {
  const { logger, metrics } = s.deps;
  let timer: NodeJS.Timeout | undefined;
  let websocket: { controller: AbortController; task: Promise<void> } | null = null;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(start, fallbackMs);
  };
  function start(): void {
    if (websocket !== null || signal.aborted) return;
    logger.warn(
      { fallbackMs },
      `gRPC stream unreachable for ${fallbackMs} ms; the WebSocket source takes over`,
    );
    metrics.ingestionFailovers.labels('websocket').inc();
    s.source = 'websocket';
    const controller = new AbortController();
    const task = runLogSubscription(
      { rpcEndpoints: s.deps.rpcEndpoints, programId: s.programId, logger },
      subscriptionHandlers(s),
      AbortSignal.any([signal, controller.signal]),
    );
    websocket = { controller, task };
  }
  arm();
  return {
    grpcUp(): void {
      clearTimeout(timer);
      s.source = 'grpc';
      if (websocket === null) return;
      logger.info('gRPC stream back; the WebSocket source stops');
      metrics.ingestionFailovers.labels('grpc').inc();
      websocket.controller.abort();
      websocket = null;
    },
    grpcDown(): void {
      if (websocket === null) arm();
    },
    startNow(): void {
      clearTimeout(timer);
      start();
    },
    async stop(): Promise<void> {
      clearTimeout(timer);
      const running = websocket;
      websocket = null;
      running?.controller.abort();
      await running?.task;
    },
  };
}
