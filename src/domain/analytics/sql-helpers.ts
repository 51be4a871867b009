// Small SQL helpers shared by the analytics queries.
import { type SQL, sql } from 'drizzle-orm';

const SAFE_ELEMENT = /^[A-Za-z0-9*:._-]*$/;

/**
 * A PostgreSQL array literal parameter (`'{"a","b"}'`), since drizzle expands JS arrays into value
 * lists. Elements are ids, days and addresses; anything else is refused rather than escaped.
 */
export function textArray(values: readonly string[]): string {
  for (const value of values) {
    if (!SAFE_ELEMENT.test(value)) throw new Error(`unexpected array element ${JSON.stringify(value)}`);
  }
  return `{${values.map((v) => `"${v}"`).join(',')}}`;
}

/** 00:00 UTC of a SQL date expression, whatever the session time zone. */
export const utcStart = (day: SQL) => sql`((${day})::timestamp at time zone 'UTC')`;
/** 00:00 UTC of the day after a SQL date expression. */
export const utcEnd = (day: SQL) => sql`(((${day}) + 1)::timestamp at time zone 'UTC')`;

/** Advisory lock key serialising rollups and rebuilds (both rewrite destination blocks from day rows). */
export const DAILY_METRICS_LOCK_KEY = 7_267_008;
