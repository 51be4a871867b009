// A real database per test file: in-memory PGlite, or a fresh PostgreSQL database when DATABASE_URL is set.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type SQL, sql } from 'drizzle-orm';
import pg from 'pg';
import { startTcpProxy, type TcpProxy } from '../../dev/support/tcp-proxy.js';
import type { DatabaseConfig } from '../../src/config.js';
import {
  createDatabase,
  createMemorySnapshot,
  openMemorySnapshot,
  type Storage,
} from '../../src/storage/database.js';

/**
 * A second connection to the PostgreSQL database at `url`, through a TCP proxy on 127.0.0.1 that the test
 * can cut (`proxy.cut()`) and restore; the caller closes both.
 */
export async function openThroughProxy(url: string): Promise<{ storage: Storage; proxy: TcpProxy }> {
  const target = new URL(url);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = new URL(target);
  viaProxy.host = `127.0.0.1:${proxy.port}`;
  const storage = await createDatabase({ kind: 'postgres', url: viaProxy.toString() });
  return { storage, proxy };
}

export interface TestStorage {
  readonly storage: Storage;
  readonly config: DatabaseConfig;
  /** Empties every table (fast; keeps the schema). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function createTestStorage(): Promise<TestStorage> {
  const url = process.env.DATABASE_URL;
  if (url === undefined || !/^postgres(ql)?:/.test(url)) {
    const config: DatabaseConfig = { kind: 'memory' };
    const storage = await openMemoryDatabase();
    return { storage, config, reset: () => emptyPglite(storage), close: () => storage.close() };
  }
  const name = `vk_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(url, `create database ${name}`);
  const testUrl = new URL(url);
  testUrl.pathname = `/${name}`;
  const config: DatabaseConfig = { kind: 'postgres', url: testUrl.toString() };
  const storage = await createDatabase(config);
  return {
    storage,
    config,
    reset: () => truncateAll(storage),
    async close() {
      await storage.close();
      await adminQuery(url, `drop database if exists ${name} with (force)`);
    },
  };
}

/** One statement on an admin connection (create or drop a database). */
export async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * A memory database. Under the test runner (scripts/test.mjs names a directory for the run in
 * VK_TEST_RUN_DIR) it starts from a snapshot of a migrated one, which the first file to need it writes:
 * initdb and the migrations run once a run instead of once a file.
 */
async function openMemoryDatabase(): Promise<Storage> {
  const runDir = process.env.VK_TEST_RUN_DIR;
  if (runDir === undefined) return createDatabase({ kind: 'memory' });
  const file = join(runDir, 'migrated-database.tar');
  if (!existsSync(file)) {
    // Files that start together may each write it; the rename makes whichever lands whole.
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, Buffer.from(await (await createMemorySnapshot()).arrayBuffer()));
    renameSync(partial, file);
  }
  return openMemorySnapshot(new Blob([readFileSync(file)]));
}

/**
 * Empties PGlite's tables with deletes and restarts its sequences, with triggers and foreign keys off
 * for the transaction (PGlite's user is a superuser): a truncate makes new files for every table and
 * index, several times slower on its in-memory file system.
 */
async function emptyPglite(storage: Storage): Promise<void> {
  const [tables, sequences] = await Promise.all([
    publicTables(storage),
    publicNames(storage, sql`select sequencename as name from pg_sequences where schemaname = 'public'`),
  ]);
  await storage.db.transaction(async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`);
    for (const name of tables) await tx.execute(sql.raw(`delete from "${name}"`));
    for (const name of sequences) await tx.execute(sql.raw(`alter sequence "${name}" restart`));
  });
}

async function publicNames(storage: Storage, query: SQL): Promise<string[]> {
  return (await storage.rows<{ name: string }>(query)).map(({ name }) => name);
}

const publicTables = (storage: Storage) =>
  publicNames(storage, sql`select tablename as name from pg_tables where schemaname = 'public'`);

async function truncateAll(storage: Storage): Promise<void> {
  const tables = await publicTables(storage);
  if (tables.length === 0) return;
  await storage.db.execute(
    sql.raw(`truncate ${tables.map((name) => `"${name}"`).join(', ')} restart identity cascade`),
  );
}
