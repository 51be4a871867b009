// Hot reads as hand-written SQL returning plain rows: ORM row mapping and pg's timestamp parsing
// cost more than the query itself on a 50-row page (measured: ~400 µs → ~90 µs of CPU per page).
import { sql } from 'drizzle-orm';
import type { Storage } from './database.js';

/**
 * A fixed statement with $1..$n parameters: a named prepared statement on PostgreSQL (parsed and
 * planned once per connection), a parameterized query on PGlite. Rows come back as objects keyed by
 * column name; numeric and timestamp columns should be cast to text in the SQL.
 */
export function prepareRows<T>(
  storage: Pick<Storage, 'pool' | 'rows'>,
  name: string,
  text: string,
): (values: readonly unknown[]) => Promise<T[]> {
  const pool = storage.pool;
  if (pool !== null) {
    return async (values) => (await pool.query({ name, text, values: [...values] })).rows as T[];
  }
  const parts = text.split(/\$(\d+)/);
  return (values) =>
    storage.rows<T>(
      sql.join(
        parts.map((part, i) => (i % 2 === 0 ? sql.raw(part) : sql`${values[Number(part) - 1]}`)),
        sql``,
      ),
    );
}

/** SQL text of a timestamptz as the API prints it: ISO 8601 UTC with milliseconds. */
export const isoTimestamp = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
