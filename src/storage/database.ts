// createDatabase(config): one Drizzle API over embedded PGlite or PostgreSQL, migrated at open.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import type { SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import type pg from 'pg';
import { type DatabaseConfig, DEFAULT_DATABASE_POOL_SIZE } from '../config.js';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.js';
import { secureDataDir } from './data-dir-permissions.js';
import { type MigrationSession, runMigrations } from './migrator.js';
import * as schema from './schema/index.js';

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
/** A transaction handle: what `db.transaction(async (tx) => …)` passes in. */
export type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];
/** Either the database or a transaction inside it. */
export type Queryable = Database | Tx;

/** The rows of a raw SQL statement, the one place the driver's result shape is read (numeric columns come back as strings: cast in SQL as needed). */
export async function queryRows<T = Record<string, unknown>>(db: Queryable, query: SQL): Promise<T[]> {
  const result = await db.execute(query);
  return (result as unknown as { rows: T[] }).rows;
}

export interface Storage {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Database;
  /** The PostgreSQL pool (null on PGlite), for session-level locks that need a dedicated connection. */
  readonly pool: pg.Pool | null;
  /** Runs a query and returns its rows (numeric columns come back as strings: cast in SQL as needed). */
  rows<T = Record<string, unknown>>(query: SQL): Promise<T[]>;
  /** True when the database answers within the timeout. */
  ping(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

/** Advisory lock key of schema migrations, so concurrent starts migrate once. */
const MIGRATION_LOCK_KEY = 7_267_001;

export function migrationsFolder(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [resolve(here, 'migrations'), resolve(here, '../../src/storage/migrations')];
  const found = candidates.find((dir) => existsSync(resolve(dir, 'meta/_journal.json')));
  if (found === undefined) throw new Error(`No migrations found (looked in ${candidates.join(', ')})`);
  return found;
}

export interface DatabaseOptions {
  /** The migrations to apply at open (default: this release's, migrationsFolder()). */
  readonly migrationsFolder?: string;
}

/** Opens the database and applies its pending migrations, each in its own transaction (./migrator.ts). */
export async function createDatabase(
  config: DatabaseConfig,
  options: DatabaseOptions = {},
): Promise<Storage> {
  const folder = options.migrationsFolder ?? migrationsFolder();
  return config.kind === 'postgres'
    ? openPostgres(config.url, config.poolSize, folder)
    : openPglite(config, folder);
}

/** PGlite as a migration session: exec runs several statements in one string, as a migration file may hold. */
const pgliteSession = (client: PGlite): MigrationSession => ({
  run: async (text) => (await client.exec(text)).at(-1)?.rows ?? [],
});

/**
 * Embedded PostgreSQL sized for one small service (docs/OPERATIONS.md, The embedded default): its
 * memory is WebAssembly memory, which grows to the peak and never shrinks, so the buffers are small
 * (the operating system's page cache still holds the data files on disk) and sorts stay in work_mem.
 */
export const PGLITE_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: '16MB',
  work_mem: '2MB',
  maintenance_work_mem: '16MB',
  temp_buffers: '2MB',
  wal_buffers: '1MB',
};

function pgliteOptions(dataDir: string | undefined, snapshot?: Blob) {
  const settings = Object.entries(PGLITE_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
  return {
    ...(dataDir === undefined ? {} : { dataDir }),
    ...(snapshot === undefined ? {} : { loadDataDir: snapshot }),
    // The smallest initial memory the PostgreSQL module accepts (128 MB); it grows on demand.
    initialMemory: 128 * 1024 * 1024,
    startParams: [...PGlite.defaultStartParams, ...settings],
  };
}

/**
 * Creates a new data directory (initdb) in a short-lived child process: initdb's peak memory would
 * otherwise stay in this process's resident set for good (about 450 MB).
 */
async function initDataDir(dataDir: string): Promise<void> {
  if (existsSync(resolve(dataDir, 'PG_VERSION'))) return;
  const pglite = import.meta.resolve('@electric-sql/pglite');
  const script = `const { PGlite } = await import(${JSON.stringify(pglite)});
    const db = await PGlite.create({ dataDir: process.argv[1] });
    await db.close();`;
  await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, dataDir], {
    timeout: 120_000,
  });
}

/**
 * Opens PGlite on the data directory under its lock (one process per directory), then runs `open`;
 * the lock goes with the database's close, or at once when opening fails.
 */
export async function withDataDirLock<T>(
  dataDir: string,
  open: (pgliteDir: string, lock: DataDirLock) => Promise<T>,
): Promise<T> {
  secureDataDir(dataDir);
  const lock = acquireDataDirLock(dataDir);
  try {
    return await open(resolve(dataDir, 'pglite'), lock);
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function openPglite(
  config: Exclude<DatabaseConfig, { kind: 'postgres' }>,
  folder: string,
): Promise<Storage> {
  if (config.kind === 'memory') return openPgliteAt(undefined, null, folder);
  return withDataDirLock(config.dataDir, async (dataDir, lock) => {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    await initDataDir(dataDir);
    return openPgliteAt(dataDir, lock, folder);
  });
}

/**
 * The data directory of a new, migrated memory database as an uncompressed tarball (PGlite's
 * dumpDataDir): a memory database opened from it with openMemorySnapshot skips initdb and the migrations.
 */
export async function createMemorySnapshot(): Promise<Blob> {
  const client = await PGlite.create(pgliteOptions(undefined));
  try {
    await runMigrations(pgliteSession(client), migrationsFolder());
    return await client.dumpDataDir('none');
  } finally {
    await client.close();
  }
}

/** A memory database that starts as a copy of a snapshot (createMemorySnapshot); migrated at open like any other. */
export function openMemorySnapshot(snapshot: Blob): Promise<Storage> {
  return openPgliteAt(undefined, null, migrationsFolder(), snapshot);
}

async function openPgliteAt(
  dataDir: string | undefined,
  lock: DataDirLock | null,
  folder: string,
  snapshot?: Blob,
): Promise<Storage> {
  const client = await PGlite.create(pgliteOptions(dataDir, snapshot));
  const db = drizzlePglite({ client, schema }) as unknown as Database;
  try {
    await runMigrations(pgliteSession(client), folder);
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  let closed = false;
  return {
    kind: 'pglite',
    db,
    pool: null,
    rows: (query) => queryRows(db, query),
    async ping() {
      if (closed) return false;
      try {
        await client.query('select 1');
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await client.close();
      } finally {
        lock?.release();
      }
    },
  };
}

/** The PostgreSQL driver, loaded only when PostgreSQL is configured (the embedded default never holds it). */
async function loadPostgresDriver() {
  const [{ default: pg }, { drizzle }] = await Promise.all([
    import('pg'),
    import('drizzle-orm/node-postgres'),
  ]);
  // PostgreSQL returns bigint (int8) as a string by default; our int8 columns (slots, counts) fit a number.
  pg.types.setTypeParser(20, (value) => Number(value));
  return { pg, drizzleNodePg: drizzle };
}

/** pg-pool uses one timeout for a new connection and for a wait for a free one. */
const POOL_WAIT_MS = 30_000;

async function openPostgres(
  url: string,
  poolSize = DEFAULT_DATABASE_POOL_SIZE,
  folder = migrationsFolder(),
): Promise<Storage> {
  const { pg, drizzleNodePg } = await loadPostgresDriver();
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // Also the longest a query waits for a free connection: a burst (130 creates of one owner queueing on
    // its lock) must queue, not fail, on a busy machine. A refused connection still fails at once.
    connectionTimeoutMillis: POOL_WAIT_MS,
    idleTimeoutMillis: 30_000,
    application_name: 'vaultkeeper',
  });
  // An idle client losing its server (a restart) must not crash the process.
  pool.on('error', () => {});
  const db = drizzleNodePg({ client: pool, schema }) as unknown as Database;
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    // Without parameters pg sends the simple protocol: a string may hold several statements.
    const session: MigrationSession = {
      async run(text) {
        const result = (await client.query(text)) as unknown as { rows: unknown[] } | { rows: unknown[] }[];
        return (Array.isArray(result) ? result.at(-1) : result)?.rows ?? [];
      },
    };
    await runMigrations(session, folder);
  } catch (error) {
    client.release();
    await pool.end().catch(() => {});
    throw error;
  }
  await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
  client.release();
  let closed = false;
  return {
    kind: 'postgres',
    db,
    pool,
    rows: (query) => queryRows(db, query),
    async ping(timeoutMs = 2_000) {
      if (closed) return false;
      let timer: NodeJS.Timeout | undefined;
      try {
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('ping timeout')), timeoutMs);
        });
        await Promise.race([pool.query('select 1'), timeout]);
        return true;
      } catch {
        return false;
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
