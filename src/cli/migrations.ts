// Which migrations the database has applied, read without applying any (the doctor only looks).
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import { migrationsFolder, withDataDirLock } from '../storage/database.js';

export interface MigrationState {
  applied: number;
  known: number;
}

const APPLIED = `select count(*)::int as n from drizzle.__drizzle_migrations`;
const HAS_TABLE = `select to_regclass('drizzle.__drizzle_migrations') is not null as present`;

/** Migrations in this release (the journal drizzle-kit writes). */
export function knownMigrations(): number {
  const journal = JSON.parse(readFileSync(join(migrationsFolder(), 'meta', '_journal.json'), 'utf8'));
  return (journal.entries as unknown[]).length;
}

/** Applied and known migrations; connects with a plain client, so nothing is migrated. */
export async function readMigrationState(config: DatabaseConfig): Promise<MigrationState> {
  const known = knownMigrations();
  if (config.kind === 'memory') return { applied: 0, known };
  const query = async (run: (text: string) => Promise<{ rows: unknown[] }>) => {
    const [presence] = (await run(HAS_TABLE)).rows as { present: boolean }[];
    if (!presence?.present) return 0;
    const [row] = (await run(APPLIED)).rows as { n: number }[];
    return Number(row?.n ?? 0);
  };
  if (config.kind === 'postgres') {
    const client = new pg.Client({ connectionString: config.url, connectionTimeoutMillis: 5_000 });
    await client.connect();
    try {
      return { applied: await query((text) => client.query(text)), known };
    } finally {
      await client.end();
    }
  }
  // The service keeps PGlite's files in DATA_DIR/pglite; a missing directory holds no migrations yet.
  if (!existsSync(resolve(config.dataDir, 'pglite'))) return { applied: 0, known };
  return withDataDirLock(config.dataDir, async (dataDir, lock) => {
    const db = await PGlite.create({ dataDir });
    try {
      return { applied: await query((text) => db.query(text)), known };
    } finally {
      await db.close();
      lock.release();
    }
  });
}
