// A vault's pending overrides: pending and not expired at a given time (the cluster's clock, for
// the budget), newest first. Prepared once per database: the budget asks on every request.
import { and, asc, count, desc, eq, gt, sql } from 'drizzle-orm';
import type { Database } from '../../storage/database.js';
import { overrides } from '../../storage/schema/overrides.js';
import { vaults } from '../../storage/schema/vaults.js';
import { overrideRecordColumns } from './override-reads.js';
import { type OverrideResource, toOverrideResource } from './override-resource.js';

/** How many open requests the budget lists (newest first). */
export const PENDING_OVERRIDES_LIMIT = 100;
// Requests expire an hour after their blocked transfer; a week back bounds the index scan with room to spare.
const LOOKBACK_MS = 7 * 86_400_000;

export function createOpenOverrideReader(db: Database) {
  const open = and(
    eq(overrides.vaultId, sql.placeholder('vaultId')),
    eq(overrides.status, 'pending'),
    gt(overrides.expiresAt, sql.placeholder('at')),
    gt(overrides.createdAt, sql.placeholder('since')),
  );
  const newest = db
    .select(overrideRecordColumns)
    .from(overrides)
    .innerJoin(vaults, eq(vaults.id, overrides.vaultId))
    .where(open)
    .orderBy(desc(overrides.createdAt), asc(overrides.id))
    .limit(PENDING_OVERRIDES_LIMIT)
    .prepare('vk_open_overrides');
  const counted = db
    .select({ total: count() })
    .from(overrides)
    .where(open)
    .prepare('vk_open_overrides_count');

  return async function listOpenOverrides(input: {
    vaultId: string;
    at: Date;
    publicBaseUrl: string;
  }): Promise<{ overrides: OverrideResource[]; total: number }> {
    const values = {
      vaultId: input.vaultId,
      at: input.at.toISOString(),
      since: new Date(input.at.getTime() - LOOKBACK_MS).toISOString(),
    };
    const records = await newest.execute(values);
    // Counted only when the list is cut short.
    const total =
      records.length < PENDING_OVERRIDES_LIMIT
        ? records.length
        : ((await counted.execute(values))[0]?.total ?? records.length);
    const context = { publicBaseUrl: input.publicBaseUrl, now: input.at };
    return { overrides: records.map((record) => toOverrideResource(record, context)), total };
  };
}
