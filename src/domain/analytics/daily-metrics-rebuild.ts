// Rebuilds daily metrics of a day range from the raw event log (chain_events), the source of truth.
import { type SQL, sql } from 'drizzle-orm';
import { validationError } from '../../errors.js';
import { type Database, queryRows, type Tx } from '../../storage/database.js';
import { GLOBAL_METRICS_KEY } from '../../storage/schema/metrics.js';
import { rewriteDestinationBlocks } from './daily-metrics-rollup.js';
import { MAX_BLOCK_LEVEL } from './day-blocks.js';
import { addDays, dayStartMs, listDays, parseDateInput } from './periods.js';
import { DAILY_METRICS_LOCK_KEY } from './sql-helpers.js';

/** Instruction names (as logged, or snake case) whose TransactionExecuted settles an approved override. */
const OVERRIDE_EXECUTION = ['ExecuteApprovedOverride', 'execute_approved_override'];

export interface DayRange {
  /** First day, `YYYY-MM-DD` (UTC). */
  readonly from: string;
  /** Last day, inclusive. */
  readonly to: string;
}

/**
 * Replaces every daily metrics row (per vault, global, per destination) of the days in range with
 * figures computed from chain_events, then the destination blocks holding those days. Override rejections
 * happen off-chain, so they come from the overrides table. Returns the number of day rows written.
 */
export async function rebuildDailyMetrics(db: Database, range: DayRange): Promise<number> {
  assertDayRange(range);
  const r = rangeSql(range);
  return db.transaction(async (tx) => {
    // Waits for a running rollup: both rewrite destination blocks from day rows.
    await tx.execute(sql`select pg_advisory_xact_lock(${DAILY_METRICS_LOCK_KEY})`);
    await tx.execute(sql`delete from daily_metrics where day between ${range.from} and ${range.to}`);
    await tx.execute(
      sql`delete from daily_destination_metrics where day between ${range.from} and ${range.to}`,
    );
    const written = await writeDayRows(tx, r);
    await writeDestinationRows(tx, r);
    await rewriteBlocksOfRange(tx, range);
    return written;
  });
}

function assertDayRange(range: DayRange): void {
  for (const [name, day] of Object.entries(range)) {
    const parsed = parseDateInput(day);
    if (parsed?.kind !== 'day') throw validationError([{ path: name, message: 'must be YYYY-MM-DD' }]);
  }
  if (range.from > range.to) throw validationError([{ path: 'from', message: 'must not be after to' }]);
}

/** The SQL pieces every statement of a rebuild shares. */
interface RangeSql {
  readonly range: DayRange;
  /** `column` falls on one of the range's days. */
  inRange(column: string): SQL;
  /** The UTC day of a timestamp expression. */
  utcDay(expression: string): SQL;
  /** chain_events of known vaults, with the vault's id as its metrics key. */
  readonly events: SQL;
}

function rangeSql(range: DayRange): RangeSql {
  const fromTs = new Date(dayStartMs(range.from)).toISOString();
  const toTs = new Date(dayStartMs(addDays(range.to, 1))).toISOString();
  return {
    range,
    inRange: (column) =>
      sql`${sql.raw(column)} >= ${fromTs}::timestamptz and ${sql.raw(column)} < ${toTs}::timestamptz`,
    utcDay: (expression) => sql.raw(`((${expression}) at time zone 'UTC')::date`),
    events: sql`
      select v.id::text as vault_key, e.block_time, e.name, e.instruction, e.transaction_failed as failed, e.data
      from chain_events e join vaults v on v.address = e.vault_address
    `,
  };
}

/** Transfers per vault and day: executed and blocked counts and volumes, fees, override executions. */
function transfersSql({ utcDay }: RangeSql): SQL {
  return sql`
        select vault_key, ${utcDay('block_time')} as day,
          count(*) filter (where name = 'TransactionExecuted' and not failed)::int as executed_count,
          coalesce(sum((data->>'amount')::numeric) filter (where name = 'TransactionExecuted' and not failed), 0)
            as executed_volume,
          count(*) filter (where name = 'TransactionBlocked')::int as blocked_count,
          coalesce(sum((data->>'amount')::numeric) filter (where name = 'TransactionBlocked'), 0) as blocked_volume,
          coalesce(sum((data->>'feeCollected')::numeric) filter (where name = 'TransactionExecuted' and not failed), 0)
            as fees,
          count(*) filter (where name = 'TransactionExecuted' and not failed
            and instruction in (${sql.join(
              OVERRIDE_EXECUTION.map((n) => sql`${n}`),
              sql`, `,
            )}))::int as overrides_executed
        from ev group by 1, 2`;
}

/**
 * Every blocked attempt that announced a nonce is a request of its own. An OverrideCreated is one
 * unless it was linked to such a request: as the overrides table says, or, where it has no row,
 * when an earlier blocked attempt of the vault asked for the same destination and amount.
 */
function requestedSql({ utcDay, events }: RangeSql): SQL {
  return sql`
        select vault_key, ${utcDay('block_time')} as day
        from (${events} where e.name = 'TransactionBlocked' and e.data->>'overrideNonce' is not null) b
        union all
        select vault_key, ${utcDay('min(block_time)')} as day
        from (${events}
          where e.name = 'OverrideCreated' and not e.transaction_failed and case
            when exists (select 1 from overrides o where o.vault_id = v.id
              and o.chain_nonce = (e.data->>'nonce')::numeric and o.transfer_signature is null) then true
            when exists (select 1 from overrides o where o.vault_id = v.id
              and o.chain_nonce = (e.data->>'nonce')::numeric) then false
            else not exists (select 1 from chain_events p
              where p.vault_address = e.vault_address and p.name = 'TransactionBlocked'
                and p.data->>'overrideNonce' is not null and p.block_time <= e.block_time
                and p.data->>'destination' = e.data->>'destination' and p.data->>'amount' = e.data->>'amount')
          end) c
        group by vault_key, data->>'nonce'`;
}

/** Writes the day rows of every vault and the global key; returns how many. */
async function writeDayRows(tx: Tx, r: RangeSql): Promise<number> {
  const { range, inRange, utcDay, events } = r;
  const [written] = await queryRows<{ count: number }>(
    tx,
    sql`
      with ev as (${events} where ${inRange('e.block_time')}),
      transfers as (${transfersSql(r)}
      ),
      requested as (${requestedSql(r)}
      ),
      approved as (
        select vault_key, ${utcDay('min(block_time)')} as day
        from (${events} where e.name = 'OverrideApproved' and not e.transaction_failed) a
        group by vault_key, data->>'nonce'
      ),
      rejected as (
        select vault_id::text as vault_key, ${utcDay('rejected_at')} as day from overrides
        where ${inRange('rejected_at')}
      ),
      per_day as (
        select vault_key, day, executed_count, executed_volume, blocked_count, blocked_volume, fees,
          0 as requested, 0 as approved, 0 as rejected, overrides_executed as executed
        from transfers
        union all select vault_key, day, 0, 0, 0, 0, 0, 1, 0, 0, 0 from requested
          where day between ${range.from} and ${range.to}
        union all select vault_key, day, 0, 0, 0, 0, 0, 0, 1, 0, 0 from approved
          where day between ${range.from} and ${range.to}
        union all select vault_key, day, 0, 0, 0, 0, 0, 0, 0, 1, 0 from rejected
      ),
      rows as (
        select vault_key, day, sum(executed_count)::int as ec, sum(executed_volume) as ev,
          sum(blocked_count)::int as bc, sum(blocked_volume) as bv, sum(fees) as fees,
          sum(requested)::int as rq, sum(approved)::int as ap, sum(rejected)::int as rj, sum(executed)::int as ex
        from per_day group by vault_key, day
      ),
      all_rows as (
        select * from rows
        union all
        select ${GLOBAL_METRICS_KEY}, day, sum(ec)::int, sum(ev), sum(bc)::int, sum(bv), sum(fees),
          sum(rq)::int, sum(ap)::int, sum(rj)::int, sum(ex)::int
        from rows group by day
      ),
      inserted as (
        insert into daily_metrics (vault_key, day, executed_count, executed_volume, blocked_count,
          blocked_volume, fees, overrides_requested, overrides_approved, overrides_rejected, overrides_executed)
        select * from all_rows
        returning 1
      )
      select count(*)::int as count from inserted
    `,
  );
  return written?.count ?? 0;
}

/** Per destination: executed transfers of every vault and the global key. */
async function writeDestinationRows(tx: Tx, { inRange, utcDay, events }: RangeSql): Promise<void> {
  await tx.execute(sql`
      with executed as (
        select e.vault_key, ${utcDay('e.block_time')} as day, e.data->>'destination' as destination,
          (e.data->>'amount')::numeric as amount
        from (${events} where e.name = 'TransactionExecuted' and not e.transaction_failed
          and ${inRange('e.block_time')}) e
      )
      insert into daily_destination_metrics (vault_key, day, destination, executed_count, executed_volume)
      select vault_key, day, destination, count(*)::int, sum(amount) from executed group by 1, 2, 3
      union all
      select ${GLOBAL_METRICS_KEY}, day, destination, count(*)::int, sum(amount) from executed group by 2, 3
    `);
}

/** Every block overlapping the range, of every key that has (or had) destination rows there. */
async function rewriteBlocksOfRange(tx: Tx, range: DayRange): Promise<void> {
  const keys = await queryRows<{ vault_key: string }>(
    tx,
    sql`
        select distinct vault_key from daily_destination_metrics where day between ${range.from} and ${range.to}
        union
        select distinct vault_key from destination_block_metrics
        where start_day between ${addDays(range.from, -(2 ** MAX_BLOCK_LEVEL))} and ${range.to}
      `,
  );
  const days = listDays(range.from, range.to);
  await rewriteDestinationBlocks(
    tx,
    keys.flatMap(({ vault_key }) => days.map((day) => ({ vaultKey: vault_key, day }))),
  );
}
