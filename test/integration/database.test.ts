// The database itself: migrations create every table of the schema and apply nothing twice, and
// DATABASE_POOL_SIZE caps a process's PostgreSQL connections.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { is, sql } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { createDatabase, migrationsFolder } from '../../src/storage/database.js';
import * as schema from '../../src/storage/schema/index.js';
import { useTestApps } from '../support/test-apps.js';
import { waitFor } from '../support/wait.js';

// Every table the schema declares, read from the schema itself.
const TABLES = Object.values(schema)
  .filter((value) => is(value, PgTable))
  .map((table) => getTableConfig(table as PgTable).name)
  .sort();

const world = useTestApps({ emptyEachTest: false });

describe('migrations', () => {
  test('create every table of the schema', async () => {
    assert.ok(TABLES.includes('vaults') && TABLES.includes('webhook_deliveries'));
    const rows = await world.storage.rows<{ name: string }>(
      sql`select tablename as name from pg_tables where schemaname = 'public' order by 1`,
    );
    assert.deepEqual(
      rows.map((r) => r.name),
      TABLES,
    );
  });

  test('opening an already migrated database applies nothing twice', async () => {
    const { readFileSync } = await import('node:fs');
    const journal = JSON.parse(readFileSync(`${migrationsFolder()}/meta/_journal.json`, 'utf8')) as {
      entries: unknown[];
    };
    const migrations = journal.entries.length;
    if (world.databaseConfig.kind !== 'postgres') {
      // PGlite in memory is new at each open: migrate a fresh one twice over a data directory instead.
      const { mkdtempSync, rmSync } = await import('node:fs');
      const { join } = await import('node:path');
      const { tmpdir } = await import('node:os');
      const dataDir = mkdtempSync(join(tmpdir(), 'vk-pglite-'));
      try {
        const first = await createDatabase({ kind: 'pglite', dataDir });
        await first.close();
        const second = await createDatabase({ kind: 'pglite', dataDir });
        const [row] = await second.rows<{ n: number }>(
          sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
        );
        assert.equal(row?.n, migrations);
        await second.close();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
      return;
    }
    const again = await createDatabase(world.databaseConfig);
    const [row] = await again.rows<{ n: number }>(
      sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
    );
    assert.equal(row?.n, migrations);
    await again.close();
  });
});

describe('connection pool', () => {
  test('DATABASE_POOL_SIZE caps the PostgreSQL connections of a process; further queries wait their turn', async (t) => {
    if (world.databaseConfig.kind !== 'postgres') {
      t.skip('PostgreSQL only: PGlite has one connection');
      return;
    }
    const LOCK = 7_267_999;
    const storage = await createDatabase({ ...world.databaseConfig, poolSize: 4 });
    const holder = await world.storage.pool!.connect();
    try {
      await holder.query('select pg_advisory_lock($1)', [LOCK]);
      // Each query waits on the lock, so each holds its connection until the lock goes.
      const queries = Array.from({ length: 12 }, () =>
        storage.pool!.query('select pg_advisory_lock_shared($1), pg_advisory_unlock_shared($1)', [LOCK]),
      );
      const pool = storage.pool!;
      await waitFor(() => pool.totalCount === 4 && pool.waitingCount === 8, {
        message: `4 connections open and 8 queries waiting (${pool.totalCount}, ${pool.waitingCount})`,
      });
      await holder.query('select pg_advisory_unlock($1)', [LOCK]);
      assert.equal((await Promise.all(queries)).length, 12);
      assert.ok(pool.totalCount <= 4);
    } finally {
      holder.release();
      await storage.close();
    }
  });
});
