// Applying signatures: network reads first (accounts), then ONE database transaction holding the
// raw events, the applied-signature marks, every projection, the webhook outbox rows and the cursor;
// cache evictions after commit. A signature already applied is skipped, so re-applying is a no-op.
// Consecutive signatures may share one transaction (group commit); none is ever split across two.
import type { Logger } from 'pino';
import type { Cache } from '../../cache/cache.js';
import { evictVaults } from '../../cache/tags.js';
import type { SolanaCluster } from '../../config.js';
import type { Clock } from '../../lib/clock.js';
import type { Metrics } from '../../lib/metrics.js';
import type { Storage, Tx } from '../../storage/database.js';
import { loadBatchState } from './batch-state.js';
import { type Cursor, setCursor } from './cursor.js';
import { insertEvents, markApplied } from './event-log.js';
import { planBatch } from './plan.js';
import { projectBatch } from './project-batch.js';
import type { ChainStateReader, ChainTransaction } from './types.js';
import { writeProjections } from './write.js';

export interface IngestionServiceDeps {
  readonly storage: Storage;
  readonly cache: Pick<Cache, 'deleteByTag'>;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly metrics: Pick<Metrics, 'eventsIngested' | 'ingestionWarnings' | 'chainLastSlot'>;
  readonly publicBaseUrl: string;
  readonly cluster: SolanaCluster;
  readonly cursorName: string;
  readonly chainReader: ChainStateReader;
}

export interface ApplyOptions {
  /** Advance the cursor here in the same transaction (only when everything older is applied too). */
  cursor?: Cursor;
  /** Runs first inside the transaction; throws when this process no longer holds the ingestor lock. */
  fence?: (tx: Tx) => Promise<void>;
}

export interface ApplyResult {
  /** Signatures applied by this call. */
  applied: number;
  /** Signatures that were already applied (nothing changed for them). */
  skipped: number;
  events: number;
}

export type IngestionService = ReturnType<typeof createIngestionService>;

export function createIngestionService(deps: IngestionServiceDeps) {
  const { storage, logger, metrics } = deps;

  return {
    /** Applies signatures, oldest first, in one database transaction. */
    async applySignatures(
      batch: readonly ChainTransaction[],
      options: ApplyOptions = {},
    ): Promise<ApplyResult> {
      const { cursor, fence } = options;
      if (batch.length === 0) {
        if (cursor !== undefined) {
          await storage.db.transaction(async (tx) => {
            await fence?.(tx);
            await setCursor(tx, deps.cursorName, cursor);
          });
        }
        return { applied: 0, skipped: 0, events: 0 };
      }
      const plan = await planBatch(storage.db, batch);
      // Network I/O never runs inside a database transaction.
      const [vaultReads, overrideReads] = await Promise.all([
        plan.vaultReads.length > 0
          ? deps.chainReader.readVaults(plan.vaultReads, plan.minSlot)
          : Promise.resolve(new Map()),
        plan.overrideReads.length > 0
          ? deps.chainReader.readOverrides(plan.overrideReads)
          : Promise.resolve(new Map()),
      ]);

      const outcome = await storage.db.transaction(async (tx) => {
        await fence?.(tx);
        const fresh = await markApplied(tx, batch);
        if (fresh.length === 0) {
          if (cursor !== undefined) await setCursor(tx, deps.cursorName, cursor);
          return { fresh, out: undefined };
        }
        await insertEvents(tx, fresh);
        const state = await loadBatchState(tx, plan.needs);
        const out = projectBatch(fresh, {
          state,
          vaultReads,
          overrideReads,
          publicBaseUrl: deps.publicBaseUrl,
          cluster: deps.cluster,
          now: deps.clock.now(),
        });
        await writeProjections(tx, state, out);
        if (cursor !== undefined) await setCursor(tx, deps.cursorName, cursor);
        return { fresh, out };
      });

      const { fresh, out } = outcome;
      if (out !== undefined && out.touchedVaults.size > 0) {
        try {
          await evictVaults(deps.cache, out.touchedVaults);
        } catch (error) {
          logger.warn({ err: (error as Error).message }, 'cache eviction failed; entries expire by TTL');
        }
      }
      let events = 0;
      for (const tx of fresh) {
        for (const event of tx.events) metrics.eventsIngested.labels(event.name).inc();
        events += tx.events.length;
      }
      for (const warning of out?.warnings ?? []) {
        metrics.ingestionWarnings.labels(warning.kind).inc();
        logger.warn(
          { kind: warning.kind, tx: warning.signature, detail: warning.detail },
          'ingestion warning',
        );
      }
      const newest = fresh.at(-1);
      if (newest !== undefined) metrics.chainLastSlot.set(newest.slot);
      return { applied: fresh.length, skipped: batch.length - fresh.length, events };
    },
  };
}
