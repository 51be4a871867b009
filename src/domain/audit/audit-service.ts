// The audit trail: entries are appended (by requests, and by ingestion for the owner's acts on chain),
// read by their owner newest first, exported oldest first, and pruned past the retention. Nothing
// changes an entry.
import { and, asc, desc, eq, gte, inArray, lt, or, type SQL, sql } from 'drizzle-orm';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Database, Queryable } from '../../storage/database.js';
import { auditEntries, vaults } from '../../storage/schema/index.js';
import { encodeAuditCursor, parseAuditCursor } from './audit-cursor.js';
import { type AuditEntry, toAuditEntry } from './audit-entry.js';

export const DEFAULT_AUDIT_LIMIT = 50;
export const MAX_AUDIT_LIMIT = 100;

/** An entry as a request or ingestion records it (`at` defaults to now). */
export interface AuditRecord {
  readonly owner: string;
  readonly vault: string | null;
  readonly actor: string;
  readonly action: string;
  readonly target: string;
  readonly requestId: string | null;
  readonly client: string | null;
  readonly outcome: string;
  readonly at?: Date;
  readonly dedupeKey?: string;
}

export interface AuditQuery {
  readonly owner?: string | undefined;
  readonly vault?: string | undefined;
  readonly action?: string | undefined;
  readonly before?: string | undefined;
  readonly limit?: number | undefined;
}

export interface AuditPage {
  entries: AuditEntry[];
  pagination: { limit: number; next: string | null };
}

/**
 * Appends entries in the caller's transaction (an entry without `at` is stamped `now`, else the
 * database's time); a chain act already recorded (same dedupeKey) is skipped.
 */
export async function insertAuditEntries(db: Queryable, records: readonly AuditRecord[], now?: Date) {
  if (records.length === 0) return;
  const values = records.map((r) => ({
    ...r,
    at: r.at ?? now ?? sql`now()`,
    dedupeKey: r.dedupeKey ?? null,
  }));
  await db.insert(auditEntries).values(values).onConflictDoNothing();
}

/**
 * Who is writing, for the entry a write records in its own transaction: the HTTP layer builds it for
 * an audited request and hands it to the use case, which adds what was written (`recordDone`).
 */
export interface AuditStamp {
  readonly owner: string;
  readonly actor: string;
  readonly action: string;
  readonly requestId: string;
  readonly client: string;
  /** True once the write's transaction holds the entry: the HTTP layer then writes none of its own. */
  recorded: boolean;
}

/** The write's `ok` entry, in the write's transaction (nothing without a stamp: a call from no request). */
export async function recordDone(
  db: Queryable,
  stamp: AuditStamp | null | undefined,
  subject: { readonly target: string; readonly vault: string | null },
  now: Date,
): Promise<void> {
  if (stamp === null || stamp === undefined) return;
  const { recorded: _recorded, ...who } = stamp;
  await insertAuditEntries(db, [{ ...who, ...subject, outcome: 'ok' }], now);
  stamp.recorded = true;
}

/** Entries about `owner`'s records: its own acts, and anything done (or tried) to one of its vaults. */
function ownerCondition(owner: string): SQL {
  const owned = sql`(select ${vaults.address} from ${vaults} where ${vaults.authority} = ${owner})`;
  return or(eq(auditEntries.owner, owner), inArray(auditEntries.vault, owned))!;
}

export function createAuditService(deps: { readonly db: Database; readonly clock: Clock }) {
  const { db, clock } = deps;

  /** The wallet may read the trail it asks for: its own, or one of its vaults'. */
  async function scopeOf(wallet: string, query: AuditQuery): Promise<SQL> {
    if (query.owner !== undefined && query.owner !== wallet) throw notOwner();
    if (query.vault === undefined) return ownerCondition(wallet);
    const [vault] = await db
      .select({ authority: vaults.authority })
      .from(vaults)
      .where(eq(vaults.address, query.vault));
    if (vault === undefined) {
      throw new AppError('VAULT_NOT_FOUND', 'Vault not found', { address: query.vault });
    }
    if (vault.authority !== wallet) throw notOwner();
    return eq(auditEntries.vault, query.vault);
  }

  return {
    async recordAuditEntry(record: AuditRecord): Promise<void> {
      await insertAuditEntries(db, [record], clock.now());
    },

    /** A page of the trail, newest first; `pagination.next` is the `before` of the next page. */
    async listAuditEntries(wallet: string, query: AuditQuery): Promise<AuditPage> {
      const limit = query.limit ?? DEFAULT_AUDIT_LIMIT;
      const conditions = [await scopeOf(wallet, query)];
      if (query.action !== undefined) conditions.push(eq(auditEntries.action, query.action));
      if (query.before !== undefined) {
        const { at, id } = parseAuditCursor(query.before, 'before');
        conditions.push(
          sql`(${auditEntries.at}, ${auditEntries.id}) < (${at.toISOString()}::timestamptz, ${id}::uuid)`,
        );
      }
      const rows = await db
        .select()
        .from(auditEntries)
        .where(and(...conditions))
        .orderBy(desc(auditEntries.at), desc(auditEntries.id))
        .limit(limit + 1);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      const next = rows.length > limit && last !== undefined ? encodeAuditCursor(last) : null;
      return { entries: page.map(toAuditEntry), pagination: { limit, next } };
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;

const notOwner = () =>
  new AppError('FORBIDDEN', "Only the owner may read an owner's audit trail", { reason: 'not_owner' });

export interface AuditRangeQuery {
  /** The owner whose trail this is (its acts, and acts on its vaults); with `vault`, that vault only. */
  readonly owner: string;
  readonly vault?: string | undefined;
  /** Inclusive start and exclusive end of the range. */
  readonly from: Date;
  readonly to: Date;
  /** The `next` of the previous page. */
  readonly after?: string | undefined;
  readonly limit: number;
}

/**
 * For exports: a range of the trail oldest first, a page at a time by keyset cursor (the caller has
 * checked that the owner is the requester). `next` is null on the last page.
 */
export async function listAuditEntriesAscending(
  db: Queryable,
  query: AuditRangeQuery,
): Promise<{ entries: AuditEntry[]; next: string | null }> {
  const conditions = [
    query.vault === undefined ? ownerCondition(query.owner) : eq(auditEntries.vault, query.vault),
    gte(auditEntries.at, query.from),
    lt(auditEntries.at, query.to),
  ];
  if (query.after !== undefined) {
    const { at, id } = parseAuditCursor(query.after, 'after');
    conditions.push(
      sql`(${auditEntries.at}, ${auditEntries.id}) > (${at.toISOString()}::timestamptz, ${id}::uuid)`,
    );
  }
  const rows = await db
    .select()
    .from(auditEntries)
    .where(and(...conditions))
    .orderBy(asc(auditEntries.at), asc(auditEntries.id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    entries: page.map(toAuditEntry),
    next: rows.length > query.limit && last !== undefined ? encodeAuditCursor(last) : null,
  };
}
