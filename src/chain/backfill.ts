// Backfill: walk getSignaturesForAddress back from the chain tip to the cursor (1000 per page),
// then apply oldest first, advancing the cursor with each committed batch. Only page anchors are
// kept during the walk, so memory does not grow with the length of the gap.
import type { Address, Signature } from '@solana/kit';
import type { BackfillConfig } from '../config.js';
import type { IngestionService } from '../domain/ingestion/apply-signature.js';
import { findAppliedSignatures, getCursor, setCursor } from '../domain/ingestion/cursor.js';
import type { ChainTransaction } from '../domain/ingestion/types.js';
import { withRetry } from '../lib/backoff.js';
import type { Metrics } from '../lib/metrics.js';
import type { Storage, Tx } from '../storage/database.js';
import { createOrderedReader, readTransaction } from './fetch-transaction.js';
import type { SolanaRpc } from './rpc.js';

const PAGE_SIZE = 1000;

export interface BackfillDeps {
  rpc: SolanaRpc;
  programId: Address;
  storage: Storage;
  metrics: Pick<Metrics, 'signaturesFetched'>;
  ingestion: IngestionService;
  cursorName: string;
  /** How far back a first start (no cursor yet) reads. */
  backfill: BackfillConfig;
  fence?: (tx: Tx) => Promise<void>;
  fetchConcurrency: number;
  batchSize: number;
  /**
   * A transaction this session already holds (a gRPC update carried it, not yet committed): the backfill
   * applies it from there instead of reading it again, so a backfill beside a stream costs no reads.
   */
  carried?: (signature: string) => ChainTransaction | undefined;
}

export interface SignatureInfo {
  signature: string;
  slot: number;
  /** Seconds since the epoch; null when the node does not know the block's time. */
  blockTime: number | null;
}

export interface BackfillResult {
  listed: number;
  applied: number;
}

export async function runBackfill(deps: BackfillDeps, signal: AbortSignal): Promise<BackfillResult> {
  const { storage, cursorName } = deps;
  const list = (options: { before?: string; until?: string; limit: number }) =>
    listSignatures(deps.rpc, deps.programId, options, signal);
  const cursor = await getCursor(storage.db, cursorName);
  const firstStart = cursor === null;

  if (firstStart && deps.backfill.mode === 'none') {
    const [newest] = await list({ limit: 1 });
    await setCursor(storage.db, cursorName, {
      signature: newest?.signature ?? null,
      slot: newest?.slot ?? null,
    });
    return { listed: 0, applied: 0 };
  }

  const until = cursor?.signature ?? undefined;
  const budget =
    firstStart && deps.backfill.mode === 'count' ? deps.backfill.count : Number.POSITIVE_INFINITY;
  // The walk keeps each page's `before` anchor plus the newest and oldest pages, nothing else.
  const anchors: (string | undefined)[] = [];
  let newestPage: SignatureInfo[] = [];
  let oldestPage: SignatureInfo[] = [];
  let listed = 0;
  let before: string | undefined;
  for (;;) {
    const limit = Math.min(PAGE_SIZE, budget - listed);
    const page = await list({ before, until, limit });
    anchors.push(before);
    if (anchors.length === 1) newestPage = page;
    oldestPage = page;
    listed += page.length;
    const oldest = page.at(-1);
    if (oldest === undefined || page.length < limit || listed >= budget) break;
    before = oldest.signature;
  }
  if (listed === 0) {
    if (firstStart) await setCursor(storage.db, cursorName, { signature: null, slot: null });
    return { listed, applied: 0 };
  }

  let applied = 0;
  for (let i = anchors.length - 1; i >= 0 && !signal.aborted; i--) {
    const page =
      i === anchors.length - 1
        ? oldestPage
        : i === 0
          ? newestPage
          : await list({ before: anchors[i], until, limit: PAGE_SIZE });
    applied += await applyPage(deps, [...page].reverse(), signal);
  }
  return { listed, applied };
}

/** Applies one page, oldest first; the cursor moves with every committed batch, then to the page's end. */
async function applyPage(deps: BackfillDeps, page: SignatureInfo[], signal: AbortSignal): Promise<number> {
  const done = await findAppliedSignatures(
    deps.storage.db,
    page.map((s) => s.signature),
  );
  const todo = page.filter((s) => !done.has(s.signature));
  const reader = createOrderedReader(
    todo,
    async (info) =>
      deps.carried?.(info.signature) ?? readTransaction(deps.rpc, deps.programId, info.signature, signal),
    { concurrency: deps.fetchConcurrency, buffer: deps.batchSize * 2 },
  );
  let applied = 0;
  for (;;) {
    // Backfill is about throughput: fill whole batches (fewer, larger commits).
    const batch = await reader.nextBatch(deps.batchSize, deps.batchSize);
    if (batch === null) break;
    deps.metrics.signaturesFetched.labels('backfill').inc(batch.length);
    const last = batch.at(-1);
    const cursor = last === undefined ? undefined : { signature: last.signature, slot: last.slot };
    const result = await deps.ingestion.applySignatures(batch, { cursor, fence: deps.fence });
    applied += result.applied;
  }
  const newest = page.at(-1);
  if (newest !== undefined && todo.at(-1)?.signature !== newest.signature) {
    await deps.ingestion.applySignatures([], { cursor: newest, fence: deps.fence });
  }
  return applied;
}

/** A page of the program's signatures, newest first, retried as the ingestor retries its reads. */
export async function listSignatures(
  rpc: SolanaRpc,
  programId: Address,
  options: { before?: string; until?: string; limit: number },
  signal: AbortSignal,
): Promise<SignatureInfo[]> {
  const page = await withRetry(
    () =>
      rpc
        .getSignaturesForAddress(programId, {
          commitment: 'confirmed',
          limit: options.limit,
          ...(options.before === undefined ? {} : { before: options.before as Signature }),
          ...(options.until === undefined ? {} : { until: options.until as Signature }),
        })
        .send({ abortSignal: signal }),
    { attempts: 5, signal },
  );
  return page.map((s) => ({
    signature: s.signature,
    slot: Number(s.slot),
    blockTime: s.blockTime === null ? null : Number(s.blockTime),
  }));
}
