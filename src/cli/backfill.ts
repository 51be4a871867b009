// vaultkeeper backfill --since <signature|date>: applies the program's history from that point to now,
// through the same code as the ingestor's backfill, with a cursor of its own (removed when done) so the
// ingestor's cursor never moves. Signatures already applied are skipped.
import { randomUUID } from 'node:crypto';
import { type Address, address } from '@solana/kit';
import { eq } from 'drizzle-orm';
import { listSignatures, runBackfill } from '../chain/backfill.js';
import { createChainReader } from '../chain/chain-reader.js';
import type { SolanaRpc } from '../chain/rpc.js';
import type { Config } from '../config.js';
import { createIngestionService } from '../domain/ingestion/apply-signature.js';
import { setCursor } from '../domain/ingestion/cursor.js';
import { base58DecodedLength } from '../lib/base58.js';
import type { createLogger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';
import type { Storage } from '../storage/database.js';
import { chainCursors } from '../storage/schema/index.js';
import { CliError, EXIT, type Output } from './output.js';

export type Since = { kind: 'signature'; signature: string } | { kind: 'date'; date: Date };

export function parseSince(text: string | undefined): Since {
  if (text === undefined) throw new CliError('backfill needs --since <signature|date>', EXIT.usage);
  if (text.length >= 64 && base58DecodedLength(text) === 64) return { kind: 'signature', signature: text };
  const date = /^\d{4}-\d{2}-\d{2}(T[0-9:.]+Z?)?$/.test(text) ? new Date(text) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime())) {
    throw new CliError(
      `--since must be a transaction signature or a date (YYYY-MM-DD or ISO 8601), got "${text}"`,
      EXIT.usage,
    );
  }
  return { kind: 'date', date };
}

/** The newest signature older than `date` (everything after it is the backfill), or null for all history. */
async function boundaryBefore(rpc: SolanaRpc, programId: Address, date: Date, signal: AbortSignal) {
  const limitSeconds = date.getTime() / 1000;
  let before: string | undefined;
  for (;;) {
    const page = await listSignatures(
      rpc,
      programId,
      { limit: 1000, ...(before === undefined ? {} : { before }) },
      signal,
    );
    const older = page.find((entry) => entry.blockTime !== null && entry.blockTime < limitSeconds);
    if (older !== undefined) return { signature: older.signature, slot: older.slot };
    if (page.length < 1000) return null;
    before = page.at(-1)?.signature;
  }
}

export interface BackfillDeps {
  config: Config;
  storage: Storage;
  rpc: SolanaRpc;
  logger: ReturnType<typeof createLogger>;
  metrics: Metrics;
  cache: Parameters<typeof createIngestionService>[0]['cache'];
  clock: Parameters<typeof createIngestionService>[0]['clock'];
}

export async function backfillSince(deps: BackfillDeps, since: Since, out: Output, signal: AbortSignal) {
  const { config, storage, rpc } = deps;
  const programId = address(config.programId);
  const boundary =
    since.kind === 'signature'
      ? { signature: since.signature, slot: null }
      : await boundaryBefore(rpc, programId, since.date, signal);
  const cursorName = `backfill:${randomUUID()}`;
  await setCursor(storage.db, cursorName, boundary ?? { signature: null, slot: null });
  const ingestion = createIngestionService({
    storage,
    cache: deps.cache,
    logger: deps.logger,
    clock: deps.clock,
    metrics: deps.metrics,
    publicBaseUrl: config.publicBaseUrl,
    cluster: config.cluster,
    cursorName,
    chainReader: createChainReader({ rpc, programId, logger: deps.logger, signal }),
  });
  const progress = out.progress('applying signatures', null);
  try {
    const result = await runBackfill(
      {
        rpc,
        programId,
        storage,
        metrics: deps.metrics,
        ingestion: {
          ...ingestion,
          async applySignatures(batch, options) {
            const applied = await ingestion.applySignatures(batch, options);
            progress.tick(batch.length);
            return applied;
          },
        },
        cursorName,
        backfill: config.backfill,
        fetchConcurrency: 4,
        batchSize: 50,
      },
      signal,
    );
    return { since: boundary?.signature ?? null, listed: result.listed, applied: result.applied };
  } finally {
    progress.done();
    await storage.db.delete(chainCursors).where(eq(chainCursors.name, cursorName));
  }
}
