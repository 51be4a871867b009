// A real database per test file: in-memory PGlite, or a fresh PostgreSQL database when DATABASE_URL is set.
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import type { DatabaseConfig } from '../../src/config.js';
import { createDatabase, type Storage } from '../../src/storage/database.js';

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
    const storage = await createDatabase(config);
    return { storage, config, reset: () => truncateAll(storage), close: () => storage.close() };
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

async function truncateAll(storage: Storage): Promise<void> {
  const tables = await storage.rows<{ name: string }>(
    sql`select tablename as name from pg_tables where schemaname = 'public'`,
  );
  if (tables.length === 0) return;
  await storage.db.execute(
    sql.raw(`truncate ${tables.map((t) => `"${t.name}"`).join(', ')} restart identity cascade`),
  );
}
