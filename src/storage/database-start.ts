// Opening the database when the service starts: PostgreSQL that is not up yet is waited for a bounded
// time; a refusal that waiting cannot fix (no such database or role, wrong password) stops at once.
import type { Logger } from 'pino';
import type { DatabaseConfig } from '../config.js';
import { createBackoff, sleep } from '../lib/backoff.js';
import { StartError } from '../lib/start-error.js';
import { createDatabase, type Storage } from './database.js';
import { MigrationError } from './migrator.js';

export interface DatabaseStartOptions {
  readonly logger: Logger;
  readonly signal: AbortSignal;
  /** Connection attempts before giving up (default 10: about a minute with the default delays). */
  readonly attempts?: number;
  readonly baseDelayMs?: number;
  /** The migrations to apply (default: this release's). */
  readonly migrationsFolder?: string;
}

/** host:port/database of a PostgreSQL URL: never its user's password. */
export function describePostgresTarget(url: string): { host: string; database: string; user: string } {
  const parsed = new URL(url);
  return {
    host: `${parsed.hostname}:${parsed.port || '5432'}`,
    database:
      decodeURIComponent(parsed.pathname.slice(1)) || decodeURIComponent(parsed.username) || 'postgres',
    user: decodeURIComponent(parsed.username) || '(the operating system user)',
  };
}

/** SQLSTATEs that retrying cannot fix, with what to do. */
function refusalHint(code: string, target: ReturnType<typeof describePostgresTarget>): string | null {
  if (code === '3D000') {
    return `create it (\`createdb -h ${target.host.split(':')[0]} ${target.database}\`) or name an existing database in DATABASE_URL`;
  }
  if (code === '28000') return `create the role ${target.user} or name an existing one in DATABASE_URL`;
  if (code === '28P01') return `check the user and password in DATABASE_URL (user ${target.user})`;
  if (code === '42501') return `grant the role ${target.user} CREATE on the database, or use its owner`;
  return null;
}

/**
 * A database error as StartError when waiting cannot fix it; null when it may (the server is not up,
 * not reachable yet, or starting).
 */
export function describeDatabaseRefusal(error: unknown, url: string): StartError | null {
  const target = describePostgresTarget(url);
  const { code, message } = error as { code?: string; message?: string };
  const where = `PostgreSQL at ${target.host}, database ${target.database}`;
  const text = String(message ?? error);
  if (/SASL|password/i.test(text) && code === undefined) {
    return new StartError(`${where}: ${text}`, `put the password in DATABASE_URL (user ${target.user})`);
  }
  if (typeof code !== 'string' || !/^[0-9A-DF-Z][0-9A-Z]{4}$/.test(code)) return null;
  // SQLSTATEs never start with E (errno codes do). Class 08 (connection exceptions) and 57P03 (the server is starting) pass with time.
  if (code.startsWith('08') || code === '57P03') return null;
  return new StartError(
    `${where}: ${text}`,
    refusalHint(code, target) ?? 'check DATABASE_URL, then `vaultkeeper doctor`',
  );
}

/** Opens the database, waiting a bounded time for PostgreSQL to come up; says what to do when it cannot. */
export async function openDatabaseAtStart(
  config: DatabaseConfig,
  options: DatabaseStartOptions,
): Promise<Storage> {
  const databaseOptions = { migrationsFolder: options.migrationsFolder };
  if (config.kind !== 'postgres') return createDatabase(config, databaseOptions);
  const attempts = options.attempts ?? 10;
  const backoff = createBackoff({ baseMs: options.baseDelayMs ?? 500, capMs: 10_000, jitter: false });
  const target = describePostgresTarget(config.url);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await createDatabase(config, databaseOptions);
    } catch (error) {
      if (options.signal.aborted) throw error;
      // A migration that failed on its own SQL names itself; one cut off with its connection is retried.
      if (error instanceof MigrationError && describeDatabaseRefusal(error.cause, config.url) !== null) {
        throw error;
      }
      const refusal = describeDatabaseRefusal(error, config.url);
      if (refusal !== null) throw refusal;
      const reason = (error as Error).message || (error as NodeJS.ErrnoException).code || String(error);
      if (attempt >= attempts) {
        throw new StartError(
          `PostgreSQL at ${target.host} (database ${target.database}) did not answer after ${attempts} attempts: ${reason}`,
          'check that PostgreSQL runs and that DATABASE_URL names its host and port; a supervisor restarts the service',
        );
      }
      const delayMs = backoff.next();
      options.logger.warn(
        { host: target.host, database: target.database, err: reason, attempt, attempts, retryInMs: delayMs },
        `database unavailable at start (${target.host}, attempt ${attempt} of ${attempts}); retrying`,
      );
      await sleep(delayMs, options.signal);
    }
  }
}
