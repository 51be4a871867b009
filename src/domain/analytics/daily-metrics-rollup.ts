// The daily metrics rollup: recomputes dirty (vault, day) rows exactly from transactions and overrides,
// and of each such day only the destinations marked dirty, so its work follows what changed.
import { type SQL, sql } from 'drizzle-orm';
import { isUuid } from '../../lib/uuid.js';
import { type Database, type Queryable, queryRows } from '../../storage/database.js';
import { GLOBAL_METRICS_KEY } from '../../storage/schema/metrics.js';
import { getBlockStart, MAX_BLOCK_LEVEL } from './day-blocks.js';
import { DAILY_METRICS_LOCK_KEY, textArray, utcEnd, utcStart } from './sql-helpers.js';

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

/** A destination of a (vault or global) day whose executed transfers changed. */
export interface DestinationKey extends MetricsKey {
  readonly destination: string;
}

const isMetricsKey = (vaultKey: string) => vaultKey === GLOBAL_METRICS_KEY || isUuid(vaultKey);

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
      .filter((key) => isMetricsKey(key.vaultKey));
    const destinations = await claimDestinations(tx);
    await recomputeDailyMetrics(tx, keys, destinations);
    return { recomputed: claimed.length, busy: false };
  });
}

/**
 * Claims the destination marks whose day is no longer marked: those of the days just claimed (their
 * marks are deleted in this transaction), and any left behind. A day still marked keeps its
 * destinations for the batch that claims it, so no day reads as rolled up while a destination of it
 * waits. A mark committed meanwhile comes with its day's mark, so it waits for the next batch.
 */
async function claimDestinations(tx: Queryable): Promise<DestinationKey[]> {
  const claimed = await queryRows<{ vault_key: string; day: string; destination: string }>(
    tx,
    sql`
      delete from destination_metrics_dirty
      where ctid = any(array(
        select m.ctid from destination_metrics_dirty m
        where not exists (select 1 from daily_metrics_dirty d where d.vault_key = m.vault_key and d.day = m.day)
        for update of m skip locked
      ))
      returning vault_key, day::text as day, destination
    `,
  );
  return claimed
    .filter((row) => isMetricsKey(row.vault_key))
    .map((row) => ({ vaultKey: row.vault_key, day: row.day, destination: row.destination }));
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

/**
 * Rewrites the day rows of these keys, and the day rows of these destinations with the day blocks
 * holding them.
 */
export async function recomputeDailyMetrics(
  tx: Queryable,
  keys: readonly MetricsKey[],
  destinations: readonly DestinationKey[],
): Promise<void> {
  await rewriteDestinations(tx, destinations);
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
}

/**
 * Destination block rows holding these (vault key, day)s, every destination of them, level by level
 * from the bottom (the rebuild's rewrite of a whole range).
 */
export async function rewriteDestinationBlocks(tx: Queryable, keys: readonly MetricsKey[]): Promise<void> {
  if (keys.length === 0) return;
  for (let level = 1; level <= MAX_BLOCK_LEVEL; level++) {
    const blocks = new Map<string, { vault_key: string; start_day: string }>();
    for (const key of keys) {
      const start = getBlockStart(key.day, level);
      blocks.set(`${key.vaultKey}|${start}`, { vault_key: key.vaultKey, start_day: start });
    }
    await rewriteBlockLevel(
      tx,
      level,
      recordSource([...blocks.values()], 'vault_key text, start_day date'),
      false,
    );
  }
}

/**
 * One level of block rows from the level below (level 1 from the day rows): each block is the sum of
 * its two halves, read by key. `source` names the blocks (`k`: vault_key, start_day, and with
 * `byDestination` the one destination to rewrite; without, every destination of the block).
 */
async function rewriteBlockLevel(tx: Queryable, level: number, source: SQL, byDestination: boolean) {
  const sameDestination = (alias: string) =>
    byDestination ? sql.raw(`and ${alias}.destination = k.destination`) : sql``;
  // One half, by key: every column of the index is an equality on the block's own row.
  const half = (offset: number) =>
    level === 1
      ? sql`select c.destination, c.executed_count, c.executed_volume from daily_destination_metrics c
          where c.vault_key = k.vault_key and c.day = k.start_day + ${offset}::int ${sameDestination('c')}`
      : sql`select c.destination, c.executed_count, c.executed_volume from destination_block_metrics c
          where c.vault_key = k.vault_key and c.level = ${level - 1}::smallint
            and c.start_day = k.start_day + ${offset}::int ${sameDestination('c')}`;
  await tx.execute(sql`
    delete from destination_block_metrics m using ${source}
    where m.vault_key = k.vault_key and m.level = ${level}::smallint and m.start_day = k.start_day
      ${sameDestination('m')}
  `);
  // Grouped inside the lateral subquery, which the planner cannot flatten into a join: each block reads
  // its two halves by key, never a scan of the level.
  await tx.execute(sql`
    insert into destination_block_metrics (vault_key, level, start_day, destination, executed_count, executed_volume)
    select k.vault_key, ${level}::smallint, k.start_day, c.destination, c.executed_count, c.executed_volume
    from ${source}
    cross join lateral (
      select h.destination, sum(h.executed_count)::int as executed_count, sum(h.executed_volume) as executed_volume
      from (${half(0)} union all ${half(2 ** (level - 1))}) h
      group by h.destination
    ) c
  `);
}

/** Rows as a set-returning SQL source named `k`, in one parameter however many there are. */
function recordSource(rows: readonly object[], columns: string): SQL {
  return sql`json_to_recordset(${JSON.stringify(rows)}::json) as k(${sql.raw(columns)})`;
}

/**
 * The day rows of these destinations from their executed transfers (the destination's index reads
 * only its own transfers of that day), then, level by level from the bottom, the blocks holding them:
 * each block row is the sum of its two halves one level down, read by key.
 */
async function rewriteDestinations(tx: Queryable, destinations: readonly DestinationKey[]): Promise<void> {
  if (destinations.length === 0) return;
  const rows = (keys: readonly DestinationKey[]) =>
    keys.map((d) => ({ vault_key: d.vaultKey, day: d.day, destination: d.destination }));
  const dayColumns = 'vault_key text, day date, destination text';
  await tx.execute(sql`
    delete from daily_destination_metrics m using ${recordSource(rows(destinations), dayColumns)}
    where m.vault_key = k.vault_key and m.day = k.day and m.destination = k.destination
  `);
  const vaults = destinations.filter((d) => d.vaultKey !== GLOBAL_METRICS_KEY);
  const global = destinations.filter((d) => d.vaultKey === GLOBAL_METRICS_KEY);
  for (const [keys, scope] of [
    [vaults, sql`t.vault_id = k.vault_key::uuid and`],
    [global, sql``],
  ] as const) {
    if (keys.length === 0) continue;
    await tx.execute(sql`
      insert into daily_destination_metrics (vault_key, day, destination, executed_count, executed_volume)
      select k.vault_key, k.day, k.destination, t.executed_count, t.executed_volume
      from ${recordSource(rows(keys), dayColumns)}
      cross join lateral (
        select count(*)::int as executed_count, sum(t.amount) as executed_volume
        from (
          -- The destination's transfers of the day, planned alone (offset 0 keeps the vault and status
          -- filters out): only the destination index fits, whatever statistics the tables have (the
          -- embedded database never gathers any), so a busy vault's day is never scanned for one address.
          select t.vault_id, t.status, t.amount from transactions t
          where t.destination = k.destination
            and t.timestamp >= ${utcStart(sql`k.day`)} and t.timestamp < ${utcEnd(sql`k.day`)}
          offset 0
        ) t
        where ${scope} t.status = 'executed'
      ) t
      where t.executed_count > 0
    `);
  }
  for (let level = 1; level <= MAX_BLOCK_LEVEL; level++) {
    const blocks = new Map<string, { vault_key: string; start_day: string; destination: string }>();
    for (const d of destinations) {
      const start = getBlockStart(d.day, level);
      blocks.set(`${d.vaultKey}|${start}|${d.destination}`, {
        vault_key: d.vaultKey,
        start_day: start,
        destination: d.destination,
      });
    }
    const source = recordSource([...blocks.values()], 'vault_key text, start_day date, destination text');
    await rewriteBlockLevel(tx, level, source, true);
  }
}
