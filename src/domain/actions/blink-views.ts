// Blink views are counted in memory and written in one statement per interval: a commit per GET
// would cost more than the rest of the request. At most one interval of counts is lost on a crash.
import { sql } from 'drizzle-orm';
import type { Database } from '../../storage/database.js';

const DEFAULT_INTERVAL_MS = 250;
/** Rows per INSERT: keeps the statement's parameter count far below PostgreSQL's limit. */
const BATCH_ROWS = 500;

interface PendingViews {
  url: string;
  views: number;
  lastAt: Date;
}

export function createBlinkViewCounter(deps: {
  db: Database;
  logger: { warn(obj: object, msg: string): void };
  intervalMs?: number;
}) {
  const interval = deps.intervalMs ?? DEFAULT_INTERVAL_MS;
  let pending = new Map<string, PendingViews>();
  let timer: NodeJS.Timeout | null = null;
  let flushing: Promise<void> = Promise.resolve();

  function flush(): Promise<void> {
    timer = null;
    const batch = pending;
    pending = new Map();
    flushing = flushing.then(async () => {
      if (batch.size === 0) return;
      try {
        await write(deps.db, batch);
      } catch (error) {
        // Kept for the next interval: a database blip must not lose counts.
        merge(pending, batch);
        schedule();
        deps.logger.warn(
          { err: (error as Error).message, overrides: batch.size },
          'blink view counts not saved',
        );
      }
    });
    return flushing;
  }

  function schedule(): void {
    if (timer !== null) return;
    timer = setTimeout(() => void flush(), interval);
    timer.unref();
  }

  return {
    add(overrideId: string, url: string, at: Date): void {
      const current = pending.get(overrideId);
      if (current === undefined) pending.set(overrideId, { url, views: 1, lastAt: at });
      else {
        current.views += 1;
        if (at > current.lastAt) current.lastAt = at;
      }
      schedule();
    },
    /** Writes what is pending now (shutdown calls it). */
    async close(): Promise<void> {
      if (timer !== null) clearTimeout(timer);
      await flush();
    },
  };
}

export type BlinkViewCounter = ReturnType<typeof createBlinkViewCounter>;

/** Adds the counts to the stored ones, in statements of BATCH_ROWS rows. */
async function write(db: Database, batch: Map<string, PendingViews>): Promise<void> {
  const entries = [...batch.entries()];
  for (let i = 0; i < entries.length; i += BATCH_ROWS) {
    const rows = entries
      .slice(i, i + BATCH_ROWS)
      .map(
        ([id, v]) => sql`(${id}::uuid, ${v.url}, ${v.views}::int, ${v.lastAt.toISOString()}::timestamptz)`,
      );
    // Rows of overrides deleted meanwhile are skipped instead of failing the batch on the foreign key.
    await db.execute(sql`
      insert into blinks (override_id, url, view_count, last_used_at)
      select v.override_id, v.url, v.view_count, v.last_used_at
      from (values ${sql.join(rows, sql`, `)}) as v(override_id, url, view_count, last_used_at)
      where exists (select 1 from overrides o where o.id = v.override_id)
      on conflict (override_id) do update set
        view_count = blinks.view_count + excluded.view_count,
        last_used_at = greatest(blinks.last_used_at, excluded.last_used_at)
    `);
  }
}

/** Puts counts that could not be saved back in front of the newer ones. */
function merge(into: Map<string, PendingViews>, from: Map<string, PendingViews>): void {
  for (const [id, v] of from) {
    const current = into.get(id);
    if (current === undefined) into.set(id, v);
    else {
      current.views += v.views;
      if (v.lastAt > current.lastAt) current.lastAt = v.lastAt;
    }
  }
}
