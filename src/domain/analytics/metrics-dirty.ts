import { sql } from 'drizzle-orm';
import type { Queryable } from '../../storage/database.js';
import { GLOBAL_METRICS_KEY } from '../../storage/schema/metrics.js';

/**
 * Marks a UTC day of a vault (and the global row) for the daily metrics rollup; call it in the
 * transaction that changed that day's transactions or overrides.
 */
export async function markDailyMetricsDirty(db: Queryable, vaultId: string, at: Date): Promise<void> {
  const day = at.toISOString().slice(0, 10);
  await db.execute(sql`
    insert into daily_metrics_dirty (vault_key, day)
    values (${vaultId}, ${day}), (${GLOBAL_METRICS_KEY}, ${day})
    on conflict (vault_key, day) do update set marked_at = now()
  `);
}
