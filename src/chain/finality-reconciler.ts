// The finality reconciler: ingestion applies signatures at `confirmed`; this loop, beside it in the
// ingestor's session, moves them to `finalized` or drops them. Each pass asks the cluster's finalized
// slot, then the statuses of the applied signatures at or below it, ≤ 256 per getSignatureStatuses
// (searchTransactionHistory). `finalized` → the rows are final. Unknown while the finalized slot is ≥ 64
// past the row's slot, and unknown to getTransaction at `finalized` too → dropped (a fork abandoned it).
// A slot-status stream can also report slots (reportSlotStatus): a finalized slot's rows are final
// without a call, a dead slot's rows are dropped. The live path pays nothing: the rows carry
// `confirmed` by default and the reconciler works in batches off that path.
import type { Signature } from '@solana/kit';
import type { Logger } from 'pino';
import type { Cache } from '../cache/cache.js';
import { evictVaults } from '../cache/tags.js';
import { dropSignature } from '../domain/ingestion/drop-signature.js';
import {
  findSignatureVaults,
  listUnfinalized,
  listUnfinalizedInSlot,
  markFinalized,
  readUnfinalizedStats,
  type UnfinalizedSignature,
} from '../domain/ingestion/finality.js';
import type { ChainStateReader } from '../domain/ingestion/types.js';
import { sleep } from '../lib/backoff.js';
import type { Clock } from '../lib/clock.js';
import type { Metrics } from '../lib/metrics.js';
import type { Storage, Tx } from '../storage/database.js';
import type { SolanaRpc } from './rpc.js';

/** getSignatureStatuses answers at most this many signatures per call. */
export const STATUS_BATCH = 256;
/** A row unknown to the cluster this many slots below its finalized slot is dropped. */
export const DROP_DEPTH = 64;
/** Signatures looked at per pass at most; a full pass is followed by the next at once, not after the interval. */
const PASS_LIMIT = STATUS_BATCH * 16;

/** A slot's final word, as a slot-status stream reports it. */
export type SlotStatus = 'finalized' | 'dead';

export interface FinalityReconcilerDeps {
  readonly rpc: SolanaRpc;
  readonly storage: Storage;
  readonly cache: Pick<Cache, 'deleteByTag'>;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly metrics: Pick<
    Metrics,
    'unfinalizedTransactions' | 'unfinalizedOldestAge' | 'transactionsFinalized' | 'transactionsDropped'
  >;
  /** VaultConfig reads at `finalized`: a dropped signature's vaults take their account from there. */
  readonly finalizedReader: ChainStateReader;
  /** Runs first in every writing transaction; throws when this process no longer holds the ingestor lock. */
  readonly fence: (tx: Tx) => Promise<void>;
  /** Time between passes (2 s). */
  readonly intervalMs?: number;
}

export interface FinalityReconciler {
  /**
   * For a slot-status stream (the gRPC `slots` updates, or a test's fake cluster): `finalized` makes the
   * slot's applied signatures final without asking the node, `dead` drops them. Cheap and synchronous:
   * the work runs on the reconciler's next pass (a dead slot wakes it at once).
   */
  reportSlotStatus(slot: number, status: SlotStatus): void;
  /** Runs passes until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
  /** One pass now (what run repeats); true when it stopped at its limit with more to look at. */
  reconcile(signal: AbortSignal): Promise<boolean>;
}

export function createFinalityReconciler(deps: FinalityReconcilerDeps): FinalityReconciler {
  const reported = new Map<number, SlotStatus>();
  let wake: (() => void) | null = null;

  async function reconcile(signal: AbortSignal): Promise<boolean> {
    await applyReported(deps, reported, signal);
    const finalizedSlot = Number(
      await deps.rpc.getSlot({ commitment: 'finalized' }).send({ abortSignal: signal }),
    );
    const rows = await listUnfinalized(deps.storage.db, { maxSlot: finalizedSlot, limit: PASS_LIMIT });
    let settled = 0;
    for (let i = 0; i < rows.length && !signal.aborted; i += STATUS_BATCH) {
      settled += await reconcileBatch(deps, rows.slice(i, i + STATUS_BATCH), finalizedSlot, signal);
    }
    await reportStats(deps);
    // Another pass at once only while passes make progress: rows the cluster does not know yet wait.
    return rows.length === PASS_LIMIT && settled > 0;
  }

  return {
    reportSlotStatus(slot, status) {
      // A dead slot stays dead; a finalized report never undoes one.
      if (reported.get(slot) !== 'dead') reported.set(slot, status);
      if (status === 'dead') wake?.();
    },
    reconcile,
    async run(signal) {
      const intervalMs = deps.intervalMs ?? 2_000;
      let failures = 0;
      while (!signal.aborted) {
        try {
          const full = await reconcile(signal);
          failures = 0;
          if (full) continue;
        } catch (error) {
          if (signal.aborted) break;
          // Once per streak at warn: an outage the RPC metrics already show need not fill the log.
          const level = failures++ === 0 ? 'warn' : 'debug';
          deps.logger[level]({ err: (error as Error).message }, 'finality pass failed; retrying on the next');
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
          void sleep(intervalMs, signal).then(resolve);
        });
        wake = null;
      }
    },
  };
}

/** Slots a stream reported since the last pass: finalized ones' rows become final, dead ones' leave. */
async function applyReported(
  deps: FinalityReconcilerDeps,
  reported: Map<number, SlotStatus>,
  signal: AbortSignal,
): Promise<void> {
  const slots = [...reported.entries()];
  reported.clear();
  for (const [slot, status] of slots) {
    if (signal.aborted) return;
    const signatures = await listUnfinalizedInSlot(deps.storage.db, slot);
    if (status === 'finalized') await finalize(deps, signatures);
    else for (const signature of signatures) await drop(deps, signature, 'dead_slot', signal);
  }
}

async function reconcileBatch(
  deps: FinalityReconcilerDeps,
  rows: readonly UnfinalizedSignature[],
  finalizedSlot: number,
  signal: AbortSignal,
): Promise<number> {
  const { value } = await deps.rpc
    .getSignatureStatuses(
      rows.map((r) => r.signature as Signature),
      { searchTransactionHistory: true },
    )
    .send({ abortSignal: signal });
  const final: string[] = [];
  const unknown: string[] = [];
  for (const [i, row] of rows.entries()) {
    const status = value[i] ?? null;
    if (status?.confirmationStatus === 'finalized') final.push(row.signature);
    else if (status === null && finalizedSlot - row.slot >= DROP_DEPTH) unknown.push(row.signature);
  }
  await finalize(deps, final);
  for (const signature of unknown) {
    if (signal.aborted) break;
    // The last word before dropping: a node whose status cache lost it may still hold it in its ledger.
    const found = await deps.rpc
      .getTransaction(signature as Signature, {
        commitment: 'finalized',
        encoding: 'base64',
        maxSupportedTransactionVersion: 0,
      })
      .send({ abortSignal: signal });
    if (found === null) await drop(deps, signature, 'not_found', signal);
    else await finalize(deps, [signature]);
  }
  return final.length + unknown.length;
}

async function finalize(deps: FinalityReconcilerDeps, signatures: readonly string[]): Promise<void> {
  if (signatures.length === 0) return;
  const { moved, vaults } = await markFinalized(deps.storage.db, signatures);
  deps.metrics.transactionsFinalized.inc(moved);
  await evict(deps, vaults);
}

async function drop(
  deps: FinalityReconcilerDeps,
  signature: string,
  reason: 'dead_slot' | 'not_found',
  signal: AbortSignal,
): Promise<void> {
  const { storage, logger } = deps;
  const addresses = await findSignatureVaults(storage.db, signature);
  // Network reads never run inside a database transaction.
  const vaultReads = addresses.length === 0 ? new Map() : await deps.finalizedReader.readVaults(addresses, 0);
  if (signal.aborted) return;
  const dropped = await storage.db.transaction(async (tx) => {
    await deps.fence(tx);
    return dropSignature(tx, { signature, vaultReads, now: deps.clock.now() });
  });
  if (dropped === null) return;
  deps.metrics.transactionsDropped.labels(reason).inc();
  logger.warn(
    { signature, slot: dropped.slot, vaults: dropped.vaults, reason },
    `transaction ${signature} dropped by the cluster (${reason === 'dead_slot' ? 'its slot died' : 'never finalized'}): its events left every projection`,
  );
  await evict(deps, dropped.vaults);
}

async function evict(deps: FinalityReconcilerDeps, vaults: readonly string[]): Promise<void> {
  if (vaults.length === 0) return;
  try {
    await evictVaults(deps.cache, vaults);
  } catch (error) {
    deps.logger.warn({ err: (error as Error).message }, 'cache eviction failed; entries expire by TTL');
  }
}

async function reportStats(deps: FinalityReconcilerDeps): Promise<void> {
  const { count, oldestAppliedAt } = await readUnfinalizedStats(deps.storage.db);
  deps.metrics.unfinalizedTransactions.set(count);
  const age = oldestAppliedAt === null ? 0 : (deps.clock.now().getTime() - oldestAppliedAt.getTime()) / 1000;
  deps.metrics.unfinalizedOldestAge.set(Math.max(0, age));
}
