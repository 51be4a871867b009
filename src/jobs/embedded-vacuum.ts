// Scheduled job of the process that holds the embedded database (PGlite): VACUUM (ANALYZE), the upkeep
// PostgreSQL's autovacuum does on a server. PGlite runs no background workers, so without it no row
// version left behind by an update or a delete is ever reclaimed (the delivery queue's index would keep
// every delivery it ever held) and the planner never has statistics.
import { sql } from 'drizzle-orm';
import type { Storage } from '../storage/database.js';
import type { ScheduledJob } from './scheduler.js';

/** Often enough that the busiest tables' dead rows stay in the thousands at the soak's load. */
export const EMBEDDED_VACUUM_INTERVAL_MS = 5 * 60_000;

export function createEmbeddedVacuumJob(
  deps: { readonly storage: Pick<Storage, 'db'> },
  options: { intervalMs?: number } = {},
): ScheduledJob {
  return {
    name: 'embedded-vacuum',
    intervalMs: options.intervalMs ?? EMBEDDED_VACUUM_INTERVAL_MS,
    async run() {
      await deps.storage.db.execute(sql`vacuum (analyze)`);
    },
  };
}
