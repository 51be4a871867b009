// The attempts the policy preview replays, read once per vault and data version and kept in process: every
// executed and blocked transfer attempt of the vault from 90 days back on, in chain order. A preview
// then replays a slice of them (its period) in memory, so a burst of previews costs one database read.
// The version is the vault row's transaction counters, which the ingestor moves in the same database
// transaction as every attempt it writes (an inserted row, a pending transfer that executed): a version
// that matches means the stored attempts are exactly what the table holds.
import { sql } from 'drizzle-orm';
import type { Storage } from '../../storage/database.js';
import type { BlockReason } from '../transactions/transaction-resource.js';
import type { ReplayAttempt } from './policy-replay.js';

/** A stored attempt: what the replay reads, and what a listed change shows. */
export interface StoredAttempt extends ReplayAttempt {
  /** Block time in unix microseconds (the column's precision), for the period's bounds. */
  readonly micros: number;
  readonly signature: string | null;
}

/** The vault's counters that change with every attempt written (vault-stats.ts). */
export interface AttemptsVersion {
  readonly transactionCount: number;
  readonly executedCount: number;
  readonly blockedCount: number;
}

interface Entry {
  readonly key: string;
  /** Attempts before this instant (unix µs) are not held. */
  readonly fromMicros: number;
  readonly attempts: readonly StoredAttempt[];
}

/** The chain's order of attempts: block time, slot, then a stable tie-break. */
const CHAIN_ORDER = sql`timestamp, slot nulls last, signature, event_index, id`;
// Separators no base58 signature, address, number or reason contains.
const FIELD = '\u001f';
const RECORD = '\u001e';

/**
 * One vault's attempts from `from` on (no upper bound: a block time a little ahead of this clock is
 * kept), each packed into one text value: one row instead of thousands, which the embedded database
 * hands over far faster than as rows.
 */
async function readAttempts(storage: Storage, vaultId: string, from: Date): Promise<StoredAttempt[]> {
  const [row] = await storage.rows<{ packed: string | null }>(sql`
    select string_agg(
      (extract(epoch from timestamp) * 1000000)::bigint || ${FIELD} || amount || ${FIELD} ||
      case when status = 'blocked' then coalesce(block_reason, 'blocked')
           when override_id is null then 'executed' else 'override' end || ${FIELD} ||
      destination || ${FIELD} || coalesce(signature, ''),
      ${RECORD} order by ${CHAIN_ORDER}) as packed
    from transactions
    where vault_id = ${vaultId} and timestamp >= ${from.toISOString()}::timestamptz
      and status in ('executed', 'blocked')`);
  if (row?.packed == null) return [];
  const destinations = new Map<string, string>();
  return row.packed.split(RECORD).map((entry) => {
    const [micros, amount, kind, destination, signature] = entry.split(FIELD) as [
      string,
      string,
      string,
      string,
      string,
    ];
    const blocked = kind !== 'executed' && kind !== 'override';
    // One string per destination, however many attempts went there.
    const shared = destinations.get(destination) ?? destination;
    destinations.set(shared, shared);
    const at = Number(micros);
    return {
      micros: at,
      // Milliseconds as the column rounds to them (half away from zero).
      at: Math.round(at / 1000),
      amount: BigInt(amount),
      status: blocked ? 'blocked' : 'executed',
      blockReason: blocked ? (kind as BlockReason) : null,
      override: kind === 'override',
      destination: shared,
      signature: signature === '' ? null : signature,
    };
  });
}

/** The first index whose attempt is at or after `micros` (attempts are in time order). */
export function firstAtOrAfter(attempts: readonly StoredAttempt[], micros: number): number {
  let low = 0;
  let high = attempts.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (attempts[middle]!.micros < micros) low = middle + 1;
    else high = middle;
  }
  return low;
}

export interface AttemptStoreOptions {
  /** Attempts held in all, over every vault; the least recently used vaults go first. */
  readonly maxAttempts: number;
  /** How far back a vault's attempts are held (the longest period a preview may ask for). */
  readonly keepMs: number;
}

export function createAttemptStore(storage: Storage, options: AttemptStoreOptions) {
  const entries = new Map<string, Entry>();
  const loading = new Map<string, Promise<Entry>>();
  let held = 0;
  let reads = 0;

  const keep = (vaultId: string, entry: Entry) => {
    const old = entries.get(vaultId);
    if (old !== undefined) held -= old.attempts.length;
    entries.delete(vaultId);
    if (entry.attempts.length > options.maxAttempts) return;
    entries.set(vaultId, entry);
    held += entry.attempts.length;
    for (const [id, oldest] of entries) {
      if (held <= options.maxAttempts) break;
      entries.delete(id);
      held -= oldest.attempts.length;
    }
  };

  return {
    /** Database reads made so far (the others were served from memory or shared a read in flight). */
    reads: () => reads,
    /** Vaults held now. */
    size: () => entries.size,
    /**
     * The vault's attempts from `start` on (at least), oldest first, as of `version`. `read` runs
     * around a database read, so the caller can bound them; concurrent callers share one read.
     */
    async get(
      vaultId: string,
      version: AttemptsVersion,
      start: Date,
      now: Date,
      read: <T>(load: () => Promise<T>) => Promise<T> = (load) => load(),
    ): Promise<readonly StoredAttempt[]> {
      const key = keyOf(version);
      const entry = entries.get(vaultId);
      if (entry !== undefined && entry.key === key && entry.fromMicros <= start.getTime() * 1000) {
        entries.delete(vaultId);
        entries.set(vaultId, entry);
        return entry.attempts;
      }
      const flightKey = `${vaultId} ${key}`;
      let flight = loading.get(flightKey);
      if (flight === undefined) {
        const from = new Date(Math.min(start.getTime(), now.getTime() - options.keepMs));
        flight = read(async () => {
          reads += 1;
          const attempts = await readAttempts(storage, vaultId, from);
          return { key, fromMicros: from.getTime() * 1000, attempts };
        })
          .then((loaded) => {
            keep(vaultId, loaded);
            return loaded;
          })
          .finally(() => loading.delete(flightKey));
        loading.set(flightKey, flight);
      }
      return (await flight).attempts;
    },
  };
}

const keyOf = (v: AttemptsVersion) => `${v.transactionCount}/${v.executedCount}/${v.blockedCount}`;

export type AttemptStore = ReturnType<typeof createAttemptStore>;
