import { sql } from 'drizzle-orm';
import type { Queryable } from '../../storage/database.js';
import { GLOBAL_METRICS_KEY } from '../../storage/schema/metrics.js';

/**
 * Marks a UTC day of a vault (and the global row) for the daily metrics rollup; call it in the
 * transaction that changed that day's transactions or overrides, naming the destinations whose
 * executed transfers it changed (the rollup recomputes only those destinations of the day).
 */
export async function markDailyMetricsDirty(
  db: Queryable,
  vaultId: string,
  at: Date,
  destinations: readonly string[] = [],
): Promise<void> {
  const day = at.toISOString().slice(0, 10);
  await db.execute(sql`
    insert into daily_metrics_dirty (vault_key, day)
    values (${vaultId}, ${day}), (${GLOBAL_METRICS_KEY}, ${day})
    on conflict (vault_key, day) do update set marked_at = now()
  `);
  await markDestinationsDirty(
    db,
    destinations.map((destination) => ({ vaultId, day, destination })),
  );
}

/** A destination whose executed transfers of a vault's UTC day (`YYYY-MM-DD`) changed. */
export interface DestinationMark {
  readonly vaultId: string;
  readonly day: string;
  readonly destination: string;
}

/**
 * Marks destinations of vault days, and of the global day, for the rollup; call it in the transaction
 * that changed them, after their days' marks (the rollup claims a day, then its destinations).
 */
export async function markDestinationsDirty(db: Queryable, marks: readonly DestinationMark[]): Promise<void> {
  if (marks.length === 0) return;
  // One parameter however many marks (a backfill batch may hold thousands).
  await db.execute(sql`
    insert into destination_metrics_dirty (vault_key, day, destination)
    select k.vault_key, m.day, m.destination
    from json_to_recordset(${JSON.stringify(marks)}::json) as m("vaultId" text, day date, destination text)
    cross join lateral (values (m."vaultId"), (${GLOBAL_METRICS_KEY})) as k(vault_key)
    on conflict do nothing
  `);
}

/**
 * Marks every day in [from, to] (UTC, `YYYY-MM-DD`) that has transactions or overrides of a vault, and
 * the global row of each day, with every destination those days have or had figures for, so that the
 * rollup recomputes the range from the projections.
 */
export async function markDailyMetricsDirtyRange(db: Queryable, from: string, to: string): Promise<void> {
  const start = sql`(${from}::date::timestamp at time zone 'UTC')`;
  const end = sql`((${to}::date + 1)::timestamp at time zone 'UTC')`;
  const dayOf = (column: string) => sql.raw(`(${column} at time zone 'UTC')::date`);
  const overrideDays = ['created_at', 'approved_at', 'rejected_at', 'executed_at'].map(
    (column) =>
      sql`select vault_id::text, ${dayOf(column)} from overrides where ${sql.raw(column)} >= ${start} and ${sql.raw(column)} < ${end}`,
  );
  await db.execute(sql`
    insert into daily_metrics_dirty (vault_key, day)
    select distinct vault_id::text, ${dayOf('timestamp')} from transactions
      where timestamp >= ${start} and timestamp < ${end}
    ${sql.join(
      overrideDays.map((q) => sql`union ${q}`),
      sql` `,
    )}
    union
    select ${GLOBAL_METRICS_KEY}, d::date from generate_series(${from}::date, ${to}::date, interval '1 day') d
    on conflict (vault_key, day) do update set marked_at = now()
  `);
  await db.execute(sql`
    insert into destination_metrics_dirty (vault_key, day, destination)
    select distinct vault_id::text, ${dayOf('timestamp')}, destination from transactions
      where status = 'executed' and timestamp >= ${start} and timestamp < ${end}
    union
    select distinct ${GLOBAL_METRICS_KEY}, ${dayOf('timestamp')}, destination from transactions
      where status = 'executed' and timestamp >= ${start} and timestamp < ${end}
    union
    select vault_key, day, destination from daily_destination_metrics where day between ${from} and ${to}
    on conflict do nothing
  `);
}
