// Reads of an analytics range: rolled-up rows where the plan allows, live transactions elsewhere,
// all in one statement (one round trip, one snapshot).
import { type SQL, sql } from 'drizzle-orm';
import { type Queryable, queryRows } from '../../storage/database.js';
import { GLOBAL_METRICS_KEY } from '../../storage/schema/metrics.js';
import type { TimeRange } from './periods.js';
import { buildReadPlan, getStoredCandidateDays, type LiveInterval, type ReadPlan } from './read-plan.js';
import { textArray } from './sql-helpers.js';

export interface DayFigures {
  executedCount: number;
  executedVolume: bigint;
  blockedCount: number;
  blockedVolume: bigint;
  fees: bigint;
}

export interface DestinationFigures {
  address: string;
  amount: bigint;
  count: number;
}

export interface RangeFigures {
  /** Figures by UTC day (days without activity are absent). */
  readonly days: ReadonlyMap<string, DayFigures>;
  /** Up to `limit` destinations of executed transfers: amount desc, count desc, address asc. */
  readonly topDestinations: readonly DestinationFigures[];
  readonly plan: ReadPlan;
}

/** Day figures as JSON: counts as numbers, amounts as text (exact). */
interface DayJson {
  day: string;
  ec: number;
  ev: string;
  bc: number;
  bv: string;
  fees: string;
}

interface ReadResult {
  /** Days of the stored candidates marked dirty in the statement's snapshot. */
  dirty: string[];
  days: DayJson[];
  top: { address: string; amount: string; count: number }[];
}

/**
 * `vaultId` null = every vault (the global rows). Plans as if no day were dirty and reads the marks in
 * the same statement; if the snapshot had a day marked that the plan read as stored, reads again with
 * that day live. The set only grows within the range, so this ends (almost always after one read).
 */
export async function readRangeFigures(
  db: Queryable,
  input: { vaultId: string | null; range: TimeRange; today: string; topLimit: number },
): Promise<RangeFigures> {
  const key = input.vaultId ?? GLOBAL_METRICS_KEY;
  let dirty = new Set<string>();
  for (;;) {
    const plan = buildReadPlan(input.range, input.today, dirty);
    const [result] = await queryRows<ReadResult>(db, buildReadQuery(key, input.vaultId, plan, input));
    const missed = (result?.dirty ?? []).filter((day) => !dirty.has(day));
    if (result !== undefined && missed.length === 0) {
      const days = new Map<string, DayFigures>();
      for (const row of result.days) days.set(row.day, toFigures(row));
      // json_agg does not promise the subquery's order: sort the (at most ten) again.
      const topDestinations = result.top
        .map((d) => ({ address: d.address, amount: BigInt(d.amount), count: Number(d.count) }))
        .sort(compareDestinations);
      return { days, topDestinations, plan };
    }
    dirty = new Set([...dirty, ...missed]);
  }
}

/** Amount desc, then count desc, then address asc (byte order, as `collate "C"`). */
function compareDestinations(a: DestinationFigures, b: DestinationFigures): number {
  if (a.amount !== b.amount) return a.amount > b.amount ? -1 : 1;
  if (a.count !== b.count) return b.count - a.count;
  return a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
}

function toFigures(row: DayJson): DayFigures {
  return {
    executedCount: Number(row.ec),
    executedVolume: BigInt(row.ev),
    blockedCount: Number(row.bc),
    blockedVolume: BigInt(row.bv),
    fees: BigInt(row.fees),
  };
}

const EMPTY = sql`'[]'::json`;

function buildReadQuery(
  key: string,
  vaultId: string | null,
  plan: ReadPlan,
  input: { range: TimeRange; today: string; topLimit: number },
): SQL {
  const candidate = getStoredCandidateDays(input.range, input.today);
  const dirty =
    candidate === null
      ? EMPTY
      : sql`(select coalesce(json_agg(day::text), '[]') from daily_metrics_dirty
            where vault_key = ${key} and day between ${candidate.from} and ${candidate.to})`;
  const days = [storedDays(key, plan), liveDays(vaultId, plan.live)].filter((part) => part !== null);
  const dayRows =
    days.length === 0
      ? EMPTY
      : sql`(select coalesce(json_agg(d), '[]') from (${sql.join(days, sql` union all `)}) d)`;
  const top = topDestinations(key, vaultId, plan, input.topLimit);
  // set_config is parallel-unsafe, so no part of this statement is planned with parallel workers
  // (starting them costs far more than these index reads); the setting itself ends with the statement.
  return sql`select ${dirty} as dirty, ${dayRows} as days,
    ${top === null ? EMPTY : sql`(select coalesce(json_agg(t), '[]') from (${top}) t)`} as top,
    set_config('max_parallel_workers_per_gather', '0', true) as serial`;
}

function storedDays(key: string, plan: ReadPlan): SQL | null {
  if (plan.stored === null) return null;
  const skip =
    plan.dirtyDays.length === 0 ? sql`` : sql`and not (day = any(${textArray(plan.dirtyDays)}::date[]))`;
  return sql`select day::text as day, executed_count as ec, executed_volume::text as ev,
      blocked_count as bc, blocked_volume::text as bv, fees::text as fees
    from daily_metrics
    where vault_key = ${key} and day between ${plan.stored.from} and ${plan.stored.to} ${skip}`;
}

/** `timestamp` within any of the intervals (null when there are none). */
function liveCondition(intervals: readonly LiveInterval[]): SQL | null {
  if (intervals.length === 0) return null;
  const ranges = intervals.map(
    (i) =>
      sql`(timestamp >= ${new Date(i.startMs).toISOString()}::timestamptz
        and timestamp < ${new Date(i.endMs).toISOString()}::timestamptz)`,
  );
  return sql`(${sql.join(ranges, sql` or `)})`;
}

function vaultCondition(vaultId: string | null): SQL {
  return vaultId === null ? sql`` : sql`vault_id = ${vaultId} and`;
}

function liveDays(vaultId: string | null, intervals: readonly LiveInterval[]): SQL | null {
  const within = liveCondition(intervals);
  if (within === null) return null;
  return sql`select to_char(timestamp at time zone 'UTC', 'YYYY-MM-DD') as day,
      count(*) filter (where status = 'executed')::int as ec,
      coalesce(sum(amount) filter (where status = 'executed'), 0)::text as ev,
      count(*) filter (where status = 'blocked')::int as bc,
      coalesce(sum(amount) filter (where status = 'blocked'), 0)::text as bv,
      coalesce(sum(fee_collected) filter (where status = 'executed'), 0)::text as fees
    from transactions
    where ${vaultCondition(vaultId)} status in ('executed', 'blocked') and ${within}
    group by 1`;
}

function topDestinations(key: string, vaultId: string | null, plan: ReadPlan, limit: number): SQL | null {
  const parts: SQL[] = [];
  const days = plan.destinationBlocks.filter((b) => b.level === 0).map((b) => b.start);
  const blocks = plan.destinationBlocks.filter((b) => b.level > 0);
  if (days.length > 0) {
    parts.push(sql`select destination, executed_volume as volume, executed_count as count
      from daily_destination_metrics
      where vault_key = ${key} and day = any(${textArray(days)}::date[])`);
  }
  if (blocks.length > 0) {
    // A VALUES list gives the planner the true block count (unnest would be guessed at 100 rows).
    const wanted = sql.join(
      blocks.map((b) => sql`(${b.level}::smallint, ${b.start}::date)`),
      sql`, `,
    );
    parts.push(sql`select b.destination, b.executed_volume as volume, b.executed_count as count
      from (values ${wanted}) as wanted(level, start_day)
      join destination_block_metrics b
        on b.vault_key = ${key} and b.level = wanted.level and b.start_day = wanted.start_day`);
  }
  const within = liveCondition(plan.live);
  if (within !== null) {
    parts.push(sql`select destination, amount as volume, 1 as count from transactions
      where ${vaultCondition(vaultId)} status = 'executed' and ${within}`);
  }
  if (parts.length === 0) return null;
  return sql`select destination as address, sum(volume)::text as amount, sum(count)::int as count
    from (${sql.join(parts, sql` union all `)}) parts
    group by destination
    order by sum(volume) desc, sum(count) desc, destination collate "C" asc
    limit ${limit}`;
}
