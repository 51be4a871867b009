// What an export covers: the owner's vaults (all, or the one asked for), a time range and a status; and
// the budget of exports one owner may run at once.
import { type SQL, sql } from 'drizzle-orm';
import { AppError, validationError } from '../../errors.js';
import { createConcurrencySlots } from '../../lib/concurrency-slots.js';
import type { Storage } from '../../storage/database.js';
import { assertVaultOwner } from '../auth/ownership.js';
import { vaultNotFound } from '../vaults/vault-reads.js';

export interface ExportQuery {
  vault?: string | undefined;
  owner?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  status?: string | undefined;
}

export interface ExportVault {
  readonly address: string;
  readonly name: string;
}

export interface ExportScope {
  /** The vaults exported, by database id. */
  readonly vaults: ReadonlyMap<string, ExportVault>;
  /** As a PostgreSQL uuid[] literal, for `= any($n::uuid[])`. */
  readonly vaultIds: string;
  /** Inclusive. */
  readonly from: Date;
  /** Exclusive. */
  readonly to: Date;
  readonly status: string | null;
  /** For the file name: the vault's address or the owner's. */
  readonly subject: string;
  /** The owner exporting (the signer), and the one vault asked for (null: every vault of the owner). */
  readonly owner: string;
  readonly vault: string | null;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const DAY_MS = 86_400_000;
/** The instants an ISO text and PostgreSQL share: 1970 (nothing is older) to the end of year 9999. */
const LAST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** A date (a UTC day) or a date-time with its offset; `to` of a date means the end of that day. */
function parseBound(value: string | undefined, field: 'from' | 'to'): Date | null {
  if (value === undefined) return null;
  const dateOnly = DATE_ONLY.test(value);
  const parsed =
    dateOnly || DATE_TIME.test(value) ? Date.parse(dateOnly ? `${value}T00:00:00Z` : value) : NaN;
  if (Number.isNaN(parsed)) {
    throw validationError([
      {
        path: `query.${field}`,
        message: 'must be a date (YYYY-MM-DD, UTC) or an ISO 8601 date-time with offset',
      },
    ]);
  }
  const ms = dateOnly && field === 'to' ? parsed + DAY_MS : parsed;
  return new Date(Math.min(LAST_MS, Math.max(0, ms)));
}

/** from inclusive (default: the beginning), to exclusive (default: now; a date: through that day). */
export function parseExportRange(query: ExportQuery, now: Date): { from: Date; to: Date } {
  const from = parseBound(query.from, 'from') ?? new Date(0);
  const to = parseBound(query.to, 'to') ?? now;
  if (from.getTime() >= to.getTime()) {
    throw validationError([{ path: 'query.from', message: 'must be before to' }]);
  }
  return { from, to };
}

interface VaultRow {
  id: string;
  address: string;
  name: string;
  authority: string;
}

/** The vaults an export may read: the one named (its owner only) or every vault of the owner (the signer). */
async function findExportVaults(storage: Storage, wallet: string, query: ExportQuery) {
  if (query.vault !== undefined && query.owner !== undefined) {
    throw validationError([{ path: 'query.owner', message: 'give vault or owner, not both' }]);
  }
  if (query.vault !== undefined) {
    const rows = await storage.rows<VaultRow>(
      sql`select id, address, name, authority from vaults where address = ${query.vault}`,
    );
    const vault = rows[0];
    if (vault === undefined) throw vaultNotFound(query.vault);
    assertVaultOwner(wallet, vault.authority);
    return { rows, subject: vault.address };
  }
  const owner = query.owner ?? wallet;
  if (owner !== wallet) {
    throw new AppError('FORBIDDEN', "Only the owner may export the owner's records", { reason: 'not_owner' });
  }
  const rows = await storage.rows<VaultRow>(
    sql`select id, address, name, authority from vaults where authority = ${owner} order by created_at, id`,
  );
  return { rows, subject: owner };
}

export async function resolveExportScope(
  storage: Storage,
  wallet: string,
  query: ExportQuery,
  now: Date,
): Promise<ExportScope> {
  const range = parseExportRange(query, now);
  const { rows, subject } = await findExportVaults(storage, wallet, query);
  return {
    vaults: new Map(rows.map((r) => [r.id, { address: r.address, name: r.name }])),
    vaultIds: `{${rows.map((r) => r.id).join(',')}}`,
    ...range,
    status: query.status ?? null,
    subject,
    owner: wallet,
    vault: query.vault ?? null,
  };
}

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * The keyset range of one batch, ordered by (`time`, `id`): the scope's vaults and status, after the
 * last row read (or from the start), before the range's end. `alias` is the table's alias in the query.
 */
export function exportBatchRange(
  scope: ExportScope,
  alias: string,
  time: string,
  after: { time: string; id: string } | null,
): SQL {
  const [t, id] = [sql.raw(`${alias}.${time}`), sql.raw(`${alias}.id`)];
  const afterTime = after?.time ?? scope.from.toISOString();
  const afterId = after?.id ?? NIL_UUID;
  return sql`${sql.raw(`${alias}.vault_id`)} = any(${scope.vaultIds}::uuid[])
    and ${t} >= ${afterTime}::timestamptz
    and (${t} > ${afterTime}::timestamptz or ${id} > ${afterId}::uuid)
    and ${t} < ${scope.to.toISOString()}::timestamptz
    ${scope.status === null ? sql`` : sql`and ${sql.raw(`${alias}.status`)} = ${scope.status}`}
  order by ${t}, ${id}`;
}

/** Fills each row's vault address and name from the scope (the query reads only the vault's id). */
export function nameExportVaults<Row extends { vault_id: string; vault: string; vault_name: string }>(
  scope: ExportScope,
  rows: Row[],
): Row[] {
  for (const row of rows) {
    const vault = scope.vaults.get(row.vault_id);
    row.vault = vault?.address ?? '';
    row.vault_name = vault?.name ?? '';
  }
  return rows;
}

/** Exports one owner may run at once, and all owners together in this process. */
export const EXPORTS_PER_OWNER = 2;
export const EXPORTS_IN_PROCESS = 32;
const RETRY_AFTER_SECONDS = 10;

/** Slots of running exports: a third at once for an owner is 429 RATE_LIMIT_EXCEEDED. */
export function createExportSlots(perOwner = EXPORTS_PER_OWNER, total = EXPORTS_IN_PROCESS) {
  const slots = createConcurrencySlots({ perClient: perOwner, perNetwork: perOwner, total, reserve: 0 });
  return {
    open: slots.open,
    /** A slot for the owner's export: its release function (safe to call twice). */
    acquire(owner: string): () => void {
      const slot = slots.acquire({ clientKey: owner, networkKey: owner });
      if (typeof slot === 'function') return slot;
      const message =
        slot === 'total'
          ? 'The service is running as many exports as it allows; retry after the time in Retry-After'
          : `At most ${perOwner} exports at once per owner; retry when one has finished`;
      throw new AppError('RATE_LIMIT_EXCEEDED', message, {
        limit: slot === 'total' ? total : perOwner,
        retryAfter: RETRY_AFTER_SECONDS,
      });
    },
  };
}

export type ExportSlots = ReturnType<typeof createExportSlots>;
