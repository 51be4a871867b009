// Scheduled job: drop expired in-process cache entries, expired Solana Actions sign-message nonces, and
// e-mail confirmations older than the per-address daily window.
import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Cache } from '../cache/cache.js';
import type { Clock } from '../lib/clock.js';
import type { Database } from '../storage/database.js';
import type { ScheduledJob } from './scheduler.js';

export const CACHE_CLEANUP_INTERVAL_MS = 60_000;
/** Rows deleted per statement, so a large backlog never holds long locks. */
const NONCE_BATCH = 1_000;

/** Deletes action nonces past their expiry, in batches; returns how many went. */
export async function deleteExpiredActionNonces(
  db: Database,
  now: Date,
  signal?: AbortSignal,
): Promise<number> {
  let deleted = 0;
  for (;;) {
    const result = (await db.execute(sql`
      delete from action_nonces where nonce in (
        select nonce from action_nonces where expires_at < ${now.toISOString()}::timestamptz limit ${NONCE_BATCH}
      )
    `)) as unknown as { rowCount?: number | null; affectedRows?: number };
    const count = Number(result.rowCount ?? result.affectedRows ?? 0);
    deleted += count;
    if (count < NONCE_BATCH || signal?.aborted) return deleted;
  }
}

/** Confirmations count towards an address's daily limit for 24 h; kept a day longer, then deleted. */
const CONFIRMATION_RETENTION_MS = 2 * 24 * 60 * 60 * 1000;

export async function deleteOldWebhookConfirmations(db: Database, now: Date): Promise<number> {
  const before = new Date(now.getTime() - CONFIRMATION_RETENTION_MS).toISOString();
  const result = (await db.execute(
    sql`delete from webhook_confirmations where created_at < ${before}::timestamptz`,
  )) as unknown as { rowCount?: number | null; affectedRows?: number };
  return Number(result.rowCount ?? result.affectedRows ?? 0);
}

export function createCacheCleanupJob(
  deps: {
    readonly db: Database;
    readonly cache: Cache;
    readonly clock: Clock;
    readonly logger: Pick<Logger, 'debug'>;
  },
  options: { intervalMs?: number } = {},
): ScheduledJob {
  return {
    name: 'cache-cleanup',
    intervalMs: options.intervalMs ?? CACHE_CLEANUP_INTERVAL_MS,
    async run(signal) {
      const purged = await deps.cache.purgeExpired();
      const nonces = await deleteExpiredActionNonces(deps.db, deps.clock.now(), signal);
      deps.logger.debug({ purged, nonces }, 'cache cleanup');
      const confirmations = await deleteOldWebhookConfirmations(deps.db, deps.clock.now());
      if (confirmations > 0) deps.logger.debug({ confirmations }, 'old e-mail confirmations deleted');
    },
  };
}
