// Schema migrations (src/storage/migrator.ts): each in its own transaction, a failing one leaves the
// database as it was before it and names itself, and the bookkeeping is drizzle's own, so databases
// that drizzle's migrator made carry on. On PGlite, or on a fresh PostgreSQL database when DATABASE_URL
// is set.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import pino from 'pino';
import type { DatabaseConfig } from '../../src/config.js';
import { StartError } from '../../src/lib/start-error.js';
import { createDatabase, migrationsFolder } from '../../src/storage/database.js';
import { openDatabaseAtStart } from '../../src/storage/database-start.js';
import { MigrationError, type MigrationSession, runMigrations } from '../../src/storage/migrator.js';
import { vaults } from '../../src/storage/schema/index.js';
import { adminQuery } from '../support/database.js';
import { createVault } from '../support/factories.js';

const ADMIN_URL = process.env.DATABASE_URL;
const POSTGRES = ADMIN_URL !== undefined && /^postgres(ql)?:/.test(ADMIN_URL);
const scratch = mkdtempSync(join(tmpdir(), 'vk-migrations-'));
const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

let counter = 0;

/** A new, empty database: a PGlite data directory, or a PostgreSQL database dropped after the file. */
async function freshDatabase(): Promise<DatabaseConfig> {
  counter += 1;
  if (!POSTGRES) return { kind: 'pglite', dataDir: join(scratch, `data-${counter}`) };
  const name = `vk_migr_${process.pid}_${counter}`;
  await adminQuery(ADMIN_URL, `create database ${name}`);
  cleanups.push(() => adminQuery(ADMIN_URL, `drop database if exists ${name} with (force)`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { kind: 'postgres', url: url.toString() };
}

/** The release's migrations plus `extra` ([tag, SQL]) in a folder of their own. */
function migrationsWith(extra: readonly (readonly [string, string])[]): string {
  counter += 1;
  const folder = join(scratch, `migrations-${counter}`);
  cpSync(migrationsFolder(), folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8'));
  for (const [tag, text] of extra) {
    const last = journal.entries.at(-1);
    journal.entries.push({ ...last, idx: last.idx + 1, when: last.when + 1000, tag });
    writeFileSync(join(folder, `${tag}.sql`), text);
  }
  writeFileSync(journalPath, JSON.stringify(journal, null, 2));
  return folder;
}

const releaseCount = () =>
  JSON.parse(readFileSync(join(migrationsFolder(), 'meta', '_journal.json'), 'utf8')).entries
    .length as number;

/** A plain connection (nothing migrated at open) as a migration session, and drizzle's migrator on it. */
async function rawConnection(config: DatabaseConfig) {
  if (config.kind === 'postgres') {
    const client = new pg.Client({ connectionString: config.url });
    await client.connect();
    const session: MigrationSession = {
      async run(text) {
        const result = (await client.query(text)) as unknown as pg.QueryResult | pg.QueryResult[];
        return (Array.isArray(result) ? result.at(-1) : result)?.rows ?? [];
      },
    };
    return {
      session,
      drizzleMigrate: () =>
        migrateNodePg(drizzleNodePg({ client }), { migrationsFolder: migrationsFolder() }),
      close: () => client.end(),
    };
  }
  const client = await PGlite.create();
  const session: MigrationSession = { run: async (text) => (await client.exec(text)).at(-1)?.rows ?? [] };
  return {
    session,
    drizzleMigrate: () => migratePglite(drizzlePglite({ client }), { migrationsFolder: migrationsFolder() }),
    close: () => client.close(),
  };
}

const BOOKKEEPING =
  'select id, hash, created_at::text as created_at from drizzle.__drizzle_migrations order by id';
const CATALOGUE = sql`select table_name, column_name, data_type from information_schema.columns
  where table_schema = 'public' order by 1, 2`;

describe('migrations', () => {
  test('the bookkeeping is what drizzle keeps: a database drizzle migrated applies nothing more, and the rows match', async () => {
    const byDrizzle = await rawConnection(await freshDatabase());
    const byUs = await rawConnection(await freshDatabase());
    try {
      await byDrizzle.drizzleMigrate();
      assert.deepEqual(await runMigrations(byDrizzle.session, migrationsFolder()), []);
      const applied = await runMigrations(byUs.session, migrationsFolder());
      assert.equal(applied.length, releaseCount());
      assert.equal(applied[0], '0000_init');
      assert.deepEqual(await byUs.session.run(BOOKKEEPING), await byDrizzle.session.run(BOOKKEEPING));
    } finally {
      await byDrizzle.close();
      await byUs.close();
    }
  });

  test('a migration that fails halfway is rolled back whole, the one before it stays, and the error names it', async () => {
    const config = await freshDatabase();
    const first = await createDatabase(config);
    const vault = await createVault(first.db, { name: 'Kept as it was' });
    const columnsBefore = await first.rows(CATALOGUE);
    await first.close();

    const folder = migrationsWith([
      ['0100_good', 'create table upgrade_probe (id integer primary key);'],
      [
        '0101_broken',
        [
          'alter table vaults add column broken_probe text;',
          "update vaults set name = 'overwritten';",
          'select * from no_such_table;',
        ].join('\n--> statement-breakpoint\n'),
      ],
    ]);
    const failed = await createDatabase(config, { migrationsFolder: folder }).then(
      () => assert.fail('the broken migration was applied'),
      (error: unknown) => error,
    );
    assert.ok(failed instanceof MigrationError && failed instanceof StartError, String(failed));
    assert.equal(failed.tag, '0101_broken');
    assert.match(failed.message, /^migration 0101_broken failed and was rolled back/);
    assert.match(failed.message, /no_such_table/);

    const reopened = await createDatabase(config);
    try {
      const [row] = await reopened.db.select().from(vaults);
      assert.deepEqual(row, vault);
      const columnsAfter = await reopened.rows(CATALOGUE);
      assert.deepEqual(
        columnsAfter.filter((c) => (c as { table_name: string }).table_name !== 'upgrade_probe'),
        columnsBefore,
      );
      assert.ok(columnsAfter.some((c) => (c as { table_name: string }).table_name === 'upgrade_probe'));
      const [count] = await reopened.rows<{ n: number }>(
        sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
      );
      assert.equal(count?.n, releaseCount() + 1);
    } finally {
      await reopened.close();
    }
  });

  test('at start-up a failed migration stops the service at once with its name, not after retries', async () => {
    const config = await freshDatabase();
    const folder = migrationsWith([['0100_broken', 'select * from no_such_table;']]);
    const logger = pino({ level: 'silent' });
    const warnings: unknown[] = [];
    logger.warn = ((entry: unknown) => warnings.push(entry)) as typeof logger.warn;
    const opened = openDatabaseAtStart(config, {
      logger,
      signal: new AbortController().signal,
      baseDelayMs: 1,
      migrationsFolder: folder,
    });
    await assert.rejects(
      opened,
      (error: unknown) => error instanceof MigrationError && error.tag === '0100_broken',
    );
    assert.deepEqual(warnings, []);
  });
});
