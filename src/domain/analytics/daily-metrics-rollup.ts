// The daily metrics rollup: recomputes dirty (vault, day) rows exactly from transactions and overrides.
import { type SQL, sql } from 'drizzle-orm';
import { isUuid } from '../../lib/uuid.js';
import type { Database, Queryable } from '../../storage/database.js';
import { GLOBAL_METRICS_KEY } from '../../storage/schema/metrics.js';
import { getBlockStart, MAX_BLOCK_LEVEL } from './day-blocks.js';
import { DAILY_METRICS_LOCK_KEY, queryRows, textArray, utcEnd, utcStart } from './sql-helpers.js';

export interface RollupResult {
  /** Dirty (vault or global, day) rows recomputed by this call. */
  readonly recomputed: number;
  /** True when another process held the rollup lock, so this call did nothing. */
  readonly busy: boolean;
}

export interface MetricsKey {
  readonly vaultKey: string;
  readonly day: string;
}

/**
 * Claims up to `batchSize` dirty rows and recomputes them in one transaction. Claiming deletes the
 * marks first, and the figures are read by later statements (fresh snapshots), so a change committed
 * meanwhile either is read now or marks its day dirty again: nothing is lost.
 */
export async function runDailyMetricsRollupBatch(
  db: Database,
  options: { batchSize?: number } = {},
): Promise<RollupResult> {
  const batchSize = options.batchSize ?? 500;
  return db.transaction(async (tx) => {
    const [lock] = await queryRows<{ locked: boolean }>(
      tx,
      sql`select pg_try_advisory_xact_lock(${DAILY_METRICS_LOCK_KEY}) as locked`,
    );
    if (!lock?.locked) return { recomputed: 0, busy: true };
    const claimed = await queryRows<{ vault_key: string; day: string }>(
      tx,
      // ARRAY(...) runs the locking subquery once, and ctids make the delete a TID scan whatever the stats.
      sql`
        delete from daily_metrics_dirty
        where ctid = any(array(
          select ctid from daily_metrics_dirty
          order by day, vault_key
          limit ${batchSize}
          for update skip locked
        ))
        returning vault_key, day::text as day
      `,
    );
    const keys = claimed
      .map((row) => ({ vaultKey: row.vault_key, day: row.day }))
      // A key that is neither a vault id nor `*` cannot name anything: dropping its mark is all we can do.
      .filter((key) => key.vaultKey === GLOBAL_METRICS_KEY || isUuid(key.vaultKey));
    await recomputeDailyMetrics(tx, keys);
    return { recomputed: claimed.length, busy: false };
  });
}

/** Rolls up until nothing is dirty, another process holds the lock, or the signal aborts. */
export async function runDailyMetricsRollup(
  db: Database,
  options: { batchSize?: number; signal?: AbortSignal } = {},
): Promise<RollupResult> {
  let recomputed = 0;
  for (;;) {
    if (options.signal?.aborted) return { recomputed, busy: false };
    const batch = await runDailyMetricsRollupBatch(db, options);
    recomputed += batch.recomputed;
    if (batch.busy) return { recomputed, busy: recomputed === 0 };
    if (batch.recomputed === 0) return { recomputed, busy: false };
  }
}

/** Rewrites the day rows (figures and destinations) of these keys, then the day blocks holding them. */
export async function recomputeDailyMetrics(tx: Queryable, keys: readonly MetricsKey[]): Promise<void> {
  if (keys.length === 0) return;
  const vaultKeys = keys.filter((k) => k.vaultKey !== GLOBAL_METRICS_KEY);
  const globalDays = [...new Set(keys.filter((k) => k.vaultKey === GLOBAL_METRICS_KEY).map((k) => k.day))];
  if (vaultKeys.length > 0) {
    const source = sql`unnest(${textArray(vaultKeys.map((k) => k.vaultKey))}::text[], ${textArray(
      vaultKeys.map((k) => k.day),
    )}::date[]) as k(vault_key, day)`;
    await rewriteDays(tx, source, sql`vault_id = k.vault_key::uuid and`);
  }
  if (globalDays.length > 0) {
    const source = sql`(select ${GLOBAL_METRICS_KEY}::text as vault_key, day
      from unnest(${textArray(globalDays)}::date[]) as g(day)) as k`;
    await rewriteDays(tx, source, sql``);
  }
  await rewriteDestinationBlocks(tx, keys);
}

/**
 * Day rows of the keys in `source` (columns vault_key, day); `scope` narrows transactions and
 * overrides to the key's vault (empty for the global row).
 */
async function rewriteDays(tx: Queryable, source: SQL, scope: SQL): Promise<void> {
  const dayStart = utcStart(sql`k.day`);
  const dayEnd = utcEnd(sql`k.day`);
  const inDay = (column: SQL) => sql`(${column} >= ${dayStart} and ${column} < ${dayEnd})`;
  await tx.execute(sql`
    delete from daily_metrics m using ${source}
    where m.vault_key = k.vault_key and m.day = k.day
  `);
  await tx.execute(sql`
    insert into daily_metrics (vault_key, day, executed_count, executed_volume, blocked_count, blocked_volume,
      fees, overrides_requested, overrides_approved, overrides_rejected, overrides_executed, updated_at)
    select k.vault_key, k.day, t.executed_count, t.executed_volume, t.blocked_count, t.blocked_volume,
      t.fees, o.requested, o.approved, o.rejected, o.executed, now()
    from ${source}
    cross join lateral (
      select
        count(*) filter (where status = 'executed')::int as executed_count,
        coalesce(sum(amount) filter (where status = 'executed'), 0) as executed_volume,
        count(*) filter (where status = 'blocked')::int as blocked_count,
        coalesce(sum(amount) filter (where status = 'blocked'), 0) as blocked_volume,
        coalesce(sum(fee_collected) filter (where status = 'executed'), 0) as fees
      from transactions
      where ${scope} ${inDay(sql`timestamp`)}
    ) t
    cross join lateral (
      select
        count(*) filter (where ${inDay(sql`created_at`)})::int as requested,
        count(*) filter (where ${inDay(sql`approved_at`)})::int as approved,
        count(*) filter (where ${inDay(sql`rejected_at`)})::int as rejected,
        count(*) filter (where ${inDay(sql`executed_at`)})::int as executed
      from overrides
      where ${scope} (${inDay(sql`created_at`)} or ${inDay(sql`approved_at`)}
        or ${inDay(sql`rejected_at`)} or ${inDay(sql`executed_at`)})
    ) o
    where t.executed_count + t.blocked_count + o.requested + o.approved + o.rejected + o.executed > 0
  `);
  await tx.execute(sql`
    delete from daily_destination_metrics m using ${source}
    where m.vault_key = k.vault_key and m.day = k.day
  `);
  await tx.execute(sql`
    insert into daily_destination_metrics (vault_key, day, destination, executed_count, executed_volume)
    select k.vault_key, k.day, t.destination, count(*)::int, sum(t.amount)
    from ${source}
    cross join lateral (
      select destination, amount from transactions
      where ${scope} status = 'executed' and ${inDay(sql`timestamp`)}
    ) t
    group by k.vault_key, k.day, t.destination
  `);
}

/**
 * Destination block rows holding these (vault key, day)s, level by level from the bottom: a block is
 * the sum of its two halves one level down (level 1 sums day rows), so each costs two child reads.
 */
export async function rewriteDestinationBlocks(tx: Queryable, keys: readonly MetricsKey[]): Promise<void> {
  for (let level = 1; level <= MAX_BLOCK_LEVEL; level++) {
    const blocks = new Map<string, MetricsKey>();
    for (const key of keys) {
      const start = getBlockStart(key.day, level);
      blocks.set(`${key.vaultKey}|${start}`, { vaultKey: key.vaultKey, day: start });
    }
    if (blocks.size === 0) return;
    const source = sql`unnest(${textArray([...blocks.values()].map((b) => b.vaultKey))}::text[], ${textArray(
      [...blocks.values()].map((b) => b.day),
    )}::date[]) as k(vault_key, start_day)`;
    const size = 2 ** level;
    const children =
      level === 1
        ? sql`select d.destination, d.executed_count, d.executed_volume from daily_destination_metrics d
            where d.vault_key = k.vault_key and d.day >= k.start_day and d.day < k.start_day + ${size}::int`
        : sql`select c.destination, c.executed_count, c.executed_volume from destination_block_metrics c
            where c.vault_key = k.vault_key and c.level = ${level - 1}::smallint
              and c.start_day >= k.start_day and c.start_day < k.start_day + ${size}::int`;
    await tx.execute(sql`
      delete from destination_block_metrics m using ${source}
      where m.vault_key = k.vault_key and m.level = ${level}::smallint and m.start_day = k.start_day
    `);
    await tx.execute(sql`
      insert into destination_block_metrics (vault_key, level, start_day, destination, executed_count, executed_volume)
      select k.vault_key, ${level}::smallint, k.start_day, c.destination, sum(c.executed_count)::int,
        sum(c.executed_volume)
      from ${source}
      cross join lateral (${children}) c
      group by k.vault_key, k.start_day, c.destination
    `);
  }
}
