// Analytics use cases: aggregated spending over a range (cached 5 min) and live vault figures.
import { sql } from 'drizzle-orm';
import type { ReadCache } from '../../cache/read-cache.js';
import { CACHE_TTL, CROSS_VAULT_TAG, vaultTag } from '../../cache/tags.js';
import type { Clock } from '../../lib/clock.js';
import { queryRows, type Storage } from '../../storage/database.js';
import { vaultNotFound } from '../vaults/vault-reads.js';
import { readRangeFigures } from './analytics-queries.js';
import { buildAnalyticsReport } from './analytics-report.js';
import type { AnalyticsReport, RealtimeReport } from './analytics-resource.js';
import { type GroupBy, parseAnalyticsRange, toDay } from './periods.js';
import { getRealtimeReport, type RealtimeDeps } from './realtime.js';

export type { VaultWindow, VaultWindowDecoder } from './realtime.js';

export const TOP_DESTINATIONS = 10;

export interface AnalyticsQuery {
  vault?: string | undefined;
  startDate?: string | undefined;
  endDate?: string | undefined;
  groupBy?: GroupBy | undefined;
}

export interface AnalyticsDeps extends Omit<RealtimeDeps, 'db'> {
  readonly storage: Storage;
  readonly readCache: ReadCache;
  readonly clock: Clock;
}

export function createAnalyticsService(deps: AnalyticsDeps) {
  const db = deps.storage.db;

  async function findVaultId(address: string): Promise<string> {
    const [vault] = await queryRows<{ id: string }>(
      db,
      sql`select id from vaults where address = ${address}`,
    );
    if (vault === undefined) throw vaultNotFound(address);
    return vault.id;
  }

  return {
    /**
     * Spending over a range for one vault or all. Cached by the request's own parameters, so a
     * default (“last 30 days”) range is served from cache for 5 minutes like any other.
     */
    async getAnalytics(query: AnalyticsQuery): Promise<AnalyticsReport> {
      const now = deps.clock.now().getTime();
      const range = parseAnalyticsRange(query, now);
      const groupBy = query.groupBy ?? 'day';
      const vault = query.vault ?? null;
      const key = `analytics:${vault ?? '*'}:${groupBy}:${query.startDate ?? ''}:${query.endDate ?? ''}`;
      const tags = [vault === null ? CROSS_VAULT_TAG : vaultTag(vault)];
      return deps.readCache.read(
        key,
        CACHE_TTL.analytics,
        () => tags,
        async () => {
          const vaultId = vault === null ? null : await findVaultId(vault);
          const figures = await readRangeFigures(db, {
            vaultId,
            range,
            today: toDay(now),
            topLimit: TOP_DESTINATIONS,
          });
          return buildAnalyticsReport({
            vaultAddress: vault,
            range,
            groupBy,
            days: figures.days,
            topDestinations: figures.topDestinations,
          });
        },
      );
    },

    /** Balance and daily window read live from the chain; never cached. */
    getRealtime(vaultAddress: string): Promise<RealtimeReport> {
      return getRealtimeReport({ ...deps, db }, vaultAddress);
    },
  };
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
