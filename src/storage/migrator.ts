// Schema migrations from the journal drizzle-kit writes (migrations/meta/_journal.json), each in its own
// transaction: one that fails is rolled back whole, the ones before it stay applied, and the error names
// it. The bookkeeping is drizzle's own (drizzle.__drizzle_migrations: the SHA-256 of the file, the
// journal's `when` as created_at; a migration is pending when its `when` is later than the last one
// applied), so a database migrated by drizzle's migrator continues here and the reverse.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StartError } from '../lib/start-error.js';

export interface Migration {
  /** The file's name without .sql (the journal's tag), e.g. 0007_alerts. */
  readonly tag: string;
  /** The journal's `when` (milliseconds), stored as created_at. */
  readonly when: number;
  /** SHA-256 (hex) of the file as it is, what drizzle stores. */
  readonly hash: string;
  readonly statements: readonly string[];
}

/** One connection: runs SQL (one or more statements, no parameters) and answers the last one's rows. */
export interface MigrationSession {
  run(text: string): Promise<unknown[]>;
}

const BOOKKEEPING = 'drizzle.__drizzle_migrations';
const BREAKPOINT = '--> statement-breakpoint';

/** A migration that failed: its tag, the statement's error, and that it left nothing behind. */
export class MigrationError extends StartError {
  readonly tag: string;
  /** The SQLSTATE of the statement that failed, when the database gave one. */
  readonly code: string | undefined;

  constructor(tag: string, cause: unknown) {
    const reason = (cause as Error)?.message ?? String(cause);
    super(
      `migration ${tag} failed and was rolled back (the migrations before it stay applied): ${reason}`,
      `the database is as it was before ${tag}; fix what the error names, or run the previous release`,
      { cause },
    );
    this.name = 'MigrationError';
    this.tag = tag;
    this.code = (cause as { code?: unknown })?.code as string | undefined;
  }
}

/** The migrations of a folder, in the journal's order. */
export function readMigrations(folder: string): Migration[] {
  const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string; when: number }[];
  };
  return journal.entries.map(({ tag, when }) => {
    const text = readFileSync(join(folder, `${tag}.sql`), 'utf8');
    return {
      tag,
      when,
      hash: createHash('sha256').update(text).digest('hex'),
      statements: text.split(BREAKPOINT).filter((statement) => statement.trim() !== ''),
    };
  });
}

/** Applies the folder's pending migrations, each in its own transaction; answers the tags applied. */
export async function runMigrations(session: MigrationSession, folder: string): Promise<string[]> {
  const migrations = readMigrations(folder);
  await session.run('create schema if not exists drizzle');
  await session.run(
    `create table if not exists ${BOOKKEEPING} (id serial primary key, hash text not null, created_at bigint)`,
  );
  const [last] = (await session.run(
    `select created_at from ${BOOKKEEPING} order by created_at desc limit 1`,
  )) as { created_at: string | number | null }[];
  const lastWhen = last === undefined ? null : Number(last.created_at);
  const applied: string[] = [];
  for (const migration of migrations) {
    if (lastWhen !== null && migration.when <= lastWhen) continue;
    await applyOne(session, migration);
    applied.push(migration.tag);
  }
  return applied;
}

async function applyOne(session: MigrationSession, migration: Migration): Promise<void> {
  await session.run('begin');
  try {
    for (const statement of migration.statements) await session.run(statement);
    // Hex and an integer: nothing to escape.
    await session.run(
      `insert into ${BOOKKEEPING} (hash, created_at) values ('${migration.hash}', ${migration.when})`,
    );
    await session.run('commit');
  } catch (error) {
    await session.run('rollback').catch(() => {});
    throw new MigrationError(migration.tag, error);
  }
}
