// Scheduled job: drop expired in-process cache entries, expired Solana Actions sign-message nonces,
// e-mail confirmations older than the per-address daily window, agent transfers' idempotency keys older
// than two days, and audit entries past their retention.
import { type SQL, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Cache } from '../cache/cache.js';
import type { Clock } from '../lib/clock.js';
import type { Database } from '../storage/database.js';
import type { ScheduledJob } from './scheduler.js';

export const CACHE_CLEANUP_INTERVAL_MS = 60_000;
/** Rows deleted per statement, so a large backlog never holds long locks. */
const DELETE_BATCH = 1_000;

/** Deletes the rows of `table` matching `condition`, DELETE_BATCH at a time by `key`; returns how many went. */
async function deleteInBatches(
  db: Database,
  table: string,
  key: string,
  condition: SQL,
  signal?: AbortSignal,
): Promise<number> {
  const [from, column] = [sql.identifier(table), sql.identifier(key)];
  let deleted = 0;
  for (;;) {
    const result = (await db.execute(sql`
      delete from ${from} where ${column} in (
        select ${column} from ${from} where ${condition} limit ${DELETE_BATCH}
      )
    `)) as unknown as { rowCount?: number | null; affectedRows?: number };
    const count = Number(result.rowCount ?? result.affectedRows ?? 0);
    deleted += count;
    if (count < DELETE_BATCH || signal?.aborted) return deleted;
  }
}

/** Deletes action nonces past their expiry, in batches; returns how many went. */
export function deleteExpiredActionNonces(db: Database, now: Date, signal?: AbortSignal): Promise<number> {
  const expired = sql`expires_at < ${now.toISOString()}::timestamptz`;
  return deleteInBatches(db, 'action_nonces', 'nonce', expired, signal);
}

/** Confirmations count towards an address's daily limit for 24 h; kept a day longer, then deleted. */
const CONFIRMATION_RETENTION_MS = 2 * 24 * 60 * 60 * 1000;

/** Deletes e-mail confirmations past their retention, in batches; returns how many went. */
export function deleteOldWebhookConfirmations(
  db: Database,
  now: Date,
  signal?: AbortSignal,
): Promise<number> {
  const before = new Date(now.getTime() - CONFIRMATION_RETENTION_MS).toISOString();
  const old = sql`created_at < ${before}::timestamptz`;
  return deleteInBatches(db, 'webhook_confirmations', 'id', old, signal);
}

/** An idempotency key names its first request for 24 h; its row is kept a day longer, then deleted. */
const AGENT_TRANSFER_KEY_RETENTION_MS = 2 * 24 * 60 * 60 * 1000;

/** Deletes relayed agent transfers' idempotency keys past their retention, in batches (by row id). */
export function deleteOldAgentTransferKeys(db: Database, now: Date, signal?: AbortSignal): Promise<number> {
  const before = new Date(now.getTime() - AGENT_TRANSFER_KEY_RETENTION_MS).toISOString();
  const old = sql`created_at < ${before}::timestamptz`;
  return deleteInBatches(db, 'agent_transfer_requests', 'ctid', old, signal);
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Deletes audit entries older than the retention, in batches; returns how many went. */
export function deleteOldAuditEntries(
  db: Database,
  now: Date,
  retentionDays: number,
  signal?: AbortSignal,
): Promise<number> {
  const before = new Date(now.getTime() - retentionDays * DAY_MS).toISOString();
  return deleteInBatches(db, 'audit_entries', 'id', sql`at < ${before}::timestamptz`, signal);
}

export function createCacheCleanupJob(
  deps: {
    readonly db: Database;
    readonly cache: Cache;
    readonly clock: Clock;
    readonly logger: Pick<Logger, 'debug'>;
    /** AUDIT_RETENTION_DAYS. */
    readonly auditRetentionDays: number;
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
      const confirmations = await deleteOldWebhookConfirmations(deps.db, deps.clock.now(), signal);
      if (confirmations > 0) deps.logger.debug({ confirmations }, 'old e-mail confirmations deleted');
      const keys = await deleteOldAgentTransferKeys(deps.db, deps.clock.now(), signal);
      if (keys > 0) deps.logger.debug({ keys }, 'old agent transfer idempotency keys deleted');
      const audit = await deleteOldAuditEntries(deps.db, deps.clock.now(), deps.auditRetentionDays, signal);
      if (audit > 0) deps.logger.debug({ audit }, 'audit entries past retention deleted');
    },
  };
}
