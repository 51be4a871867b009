// Only one ingestor is active among processes sharing a database: a PostgreSQL session advisory lock
// held on a dedicated connection, re-checked on a timer, and fenced inside every apply transaction.
// On PGlite the single process that opened the data directory holds it.
import { sql } from 'drizzle-orm';
import type pg from 'pg';
import type { Logger } from 'pino';
import { sleep } from '../lib/backoff.js';
import { queryRows, type Storage, type Tx } from '../storage/database.js';

/** Advisory lock key of the active ingestor (below 2^31: pg_locks shows it as classid 0, objid key). */
export const INGESTOR_LOCK_KEY = 7_267_002;

export class IngestorLockLostError extends Error {
  constructor() {
    super('this process no longer holds the ingestor lock');
    this.name = 'IngestorLockLostError';
  }
}

export interface IngestorLock {
  /** Waits until this process holds the lock (true), or the signal aborts (false). */
  acquire(signal: AbortSignal): Promise<boolean>;
  /** Aborts when the held lock is lost (connection gone, lock released server-side). */
  readonly lost: AbortSignal;
  /** Inside an apply transaction: throws IngestorLockLostError unless the lock is still ours. */
  fence(tx: Tx): Promise<void>;
  release(): Promise<void>;
}

export function createIngestorLock(deps: {
  storage: Storage;
  logger: Logger;
  pollMs?: number;
  recheckMs?: number;
}): IngestorLock {
  const pool = deps.storage.pool;
  if (pool === null) {
    const never = new AbortController();
    return {
      acquire: async (signal) => !signal.aborted,
      lost: never.signal,
      fence: async () => {},
      release: async () => {},
    };
  }
  return createPostgresLock(pool, deps.logger, deps.pollMs ?? 1_000, deps.recheckMs ?? 2_000);
}

function createPostgresLock(pool: pg.Pool, logger: Logger, pollMs: number, recheckMs: number): IngestorLock {
  let client: pg.PoolClient | null = null;
  let holderPid = 0;
  let lost = new AbortController();
  let recheck: NodeJS.Timeout | undefined;
  const onError = (error: Error) => drop(error.message);

  /** Gives the connection back to the pool without our listener (pooled clients are reused). */
  const letGo = (held: pg.PoolClient, destroy: boolean) => {
    clearInterval(recheck);
    held.off('error', onError);
    held.release(destroy);
  };

  const drop = (reason: string) => {
    if (client === null) return;
    logger.warn({ reason }, 'ingestor lock lost');
    const held = client;
    client = null;
    letGo(held, true);
    lost.abort(new IngestorLockLostError());
  };

  return {
    get lost() {
      return lost.signal;
    },

    async acquire(signal) {
      let waiting = false;
      while (!signal.aborted) {
        let candidate: pg.PoolClient | undefined;
        try {
          candidate = await pool.connect();
          const { rows } = await candidate.query<{ ok: boolean; pid: number }>(
            'select pg_try_advisory_lock($1) as ok, pg_backend_pid() as pid',
            [INGESTOR_LOCK_KEY],
          );
          if (rows[0]?.ok === true) {
            client = candidate;
            holderPid = rows[0].pid;
            lost = new AbortController();
            client.on('error', onError);
            recheck = setInterval(() => void checkHeld(), recheckMs);
            recheck.unref();
            return true;
          }
          candidate.release();
          if (!waiting) logger.info('another process ingests; standing by for the ingestor lock');
          waiting = true;
        } catch (error) {
          candidate?.release(true);
          logger.warn({ err: (error as Error).message }, 'ingestor lock: database unavailable');
        }
        await sleep(pollMs * (0.75 + Math.random() / 2), signal);
      }
      return false;
    },

    async fence(tx) {
      const [row] = await queryRows<{ held: boolean }>(
        tx,
        sql`
        select exists (
          select 1 from pg_locks
          where locktype = 'advisory' and classid = 0 and objid = ${INGESTOR_LOCK_KEY} and objsubid = 1
            and pid = ${holderPid} and granted
        ) as held`,
      );
      if (client === null || row?.held !== true) throw new IngestorLockLostError();
    },

    async release() {
      const held = client;
      client = null;
      if (held === null) return;
      try {
        await held.query('select pg_advisory_unlock($1)', [INGESTOR_LOCK_KEY]);
        letGo(held, false);
      } catch {
        letGo(held, true);
      }
    },
  };

  async function checkHeld(): Promise<void> {
    const held = client;
    if (held === null) return;
    try {
      const { rows } = await held.query<{ held: boolean }>(
        `select exists (select 1 from pg_locks where locktype = 'advisory' and classid = 0
           and objid = $1 and objsubid = 1 and pid = pg_backend_pid() and granted) as held`,
        [INGESTOR_LOCK_KEY],
      );
      if (rows[0]?.held !== true) drop('lock no longer granted');
    } catch (error) {
      drop((error as Error).message);
    }
  }
}
