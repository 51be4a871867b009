// The rows a batch of signatures can change, loaded (and locked) inside the apply transaction, then
// changed in memory event by event and written back in a few bulk statements.
import { and, eq, inArray, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { Tx } from '../../storage/database.js';
import {
  type OverrideRow,
  overrides,
  type TransactionRow,
  transactions,
  type VaultRow,
  vaults,
} from '../../storage/schema/index.js';

/** This batch's changes to a vault's counters (the stored ones change through vault-stats.ts). */
export interface VaultStatsDelta {
  transactionCount: number;
  executedCount: number;
  blockedCount: number;
  totalVolume: bigint;
}

export interface VaultState {
  row: VaultRow;
  dirty: boolean;
  /** The batch's account read was applied (at most once per batch). */
  accountApplied: boolean;
  stats: VaultStatsDelta;
}

export interface OverrideState {
  row: OverrideRow;
  vaultAddress: string;
  dirty: boolean;
  /** Chain order among requests with the same createdAt: stored ones by id, then the batch's in event order. */
  order: number;
}

export interface TransactionState {
  row: TransactionRow;
  vaultAddress: string;
  /** The status the stored row had when loaded; null for a row this batch inserts. */
  loadedStatus: TransactionRow['status'] | null;
  dirty: boolean;
}

export interface BatchState {
  /** By vault address. */
  vaults: Map<string, VaultState>;
  /** By override id. */
  overrides: Map<string, OverrideState>;
  /** Pending transactions by override id. */
  pendingByOverride: Map<string, TransactionState>;
  /** Every transaction row inserted or changed by the batch, in event order. */
  transactions: TransactionState[];
}

export interface VaultNonce {
  vault: string;
  nonce: bigint;
}

export interface BatchNeeds {
  vaultAddresses: readonly string[];
  /** Nonces announced (or created on chain) in the batch: whether their first request exists decides addresses. */
  addressNonces: readonly VaultNonce[];
  /** Nonces of on-chain overrides the batch creates or approves. */
  chainNonces: readonly VaultNonce[];
  /** Vaults with an OverrideCreated: their unresolved requests may be the one it was created for. */
  unresolvedOf: readonly string[];
  /** Vaults with an ExecuteApprovedOverride transfer: their approved overrides are candidates. */
  approvedOverridesOf: readonly string[];
}

export const emptyStats = (): VaultStatsDelta => ({
  transactionCount: 0,
  executedCount: 0,
  blockedCount: 0,
  totalVolume: 0n,
});

/** Loads what the batch needs, locking the rows it may change so concurrent API writes wait. */
export async function loadBatchState(tx: Tx, needs: BatchNeeds): Promise<BatchState> {
  const state: BatchState = {
    vaults: new Map(),
    overrides: new Map(),
    pendingByOverride: new Map(),
    transactions: [],
  };
  if (needs.vaultAddresses.length === 0) return state;
  const vaultRows = await tx
    .select()
    .from(vaults)
    .where(inArray(vaults.address, [...needs.vaultAddresses]))
    .for('update');
  const addressById = new Map<string, string>();
  for (const row of vaultRows) {
    state.vaults.set(row.address, {
      row,
      dirty: false,
      accountApplied: false,
      stats: emptyStats(),
    });
    addressById.set(row.id, row.address);
  }

  const conditions = overrideConditions(needs, (address) => state.vaults.get(address)?.row.id);
  if (conditions.length === 0) return state;
  const overrideRows = await tx
    .select()
    .from(overrides)
    .where(or(...conditions))
    .orderBy(overrides.createdAt, overrides.id)
    .for('update');
  for (const [order, row] of overrideRows.entries()) {
    const vaultAddress = addressById.get(row.vaultId) ?? '';
    state.overrides.set(row.id, { row, vaultAddress, dirty: false, order });
  }
  if (overrideRows.length === 0) return state;
  const pendingRows = await tx
    .select()
    .from(transactions)
    .where(
      and(
        inArray(
          transactions.overrideId,
          overrideRows.map((o) => o.id),
        ),
        eq(transactions.status, 'pending'),
      ),
    )
    .for('update');
  for (const row of pendingRows) {
    if (row.overrideId === null) continue;
    state.pendingByOverride.set(row.overrideId, {
      row,
      vaultAddress: addressById.get(row.vaultId) ?? '',
      loadedStatus: row.status,
      dirty: false,
    });
  }
  return state;
}

/** Which stored overrides the batch may read or change. */
function overrideConditions(needs: BatchNeeds, vaultId: (address: string) => string | undefined): SQL[] {
  const ids = (addresses: readonly string[]) =>
    addresses.map(vaultId).filter((id): id is string => id !== undefined);
  const pairs = (keys: readonly VaultNonce[]) =>
    keys
      .map(({ vault, nonce }) => ({ id: vaultId(vault), nonce }))
      .filter((k): k is { id: string; nonce: bigint } => k.id !== undefined)
      .map((k) => sql`(${k.id}::uuid, ${k.nonce.toString()}::numeric)`);
  const conditions: (SQL | undefined)[] = [];
  const announced = pairs(needs.addressNonces);
  if (announced.length > 0) {
    conditions.push(
      and(
        sql`(${overrides.vaultId}, ${overrides.nonce}) in (${sql.join(announced, sql`, `)})`,
        isNull(overrides.addressSignature),
      ),
    );
  }
  const onChain = pairs(needs.chainNonces);
  if (onChain.length > 0) {
    conditions.push(sql`(${overrides.vaultId}, ${overrides.chainNonce}) in (${sql.join(onChain, sql`, `)})`);
  }
  const unresolved = ids(needs.unresolvedOf);
  if (unresolved.length > 0) {
    conditions.push(
      and(
        inArray(overrides.vaultId, unresolved),
        eq(overrides.status, 'pending'),
        isNull(overrides.chainNonce),
      ),
    );
  }
  const approved = ids(needs.approvedOverridesOf);
  if (approved.length > 0) {
    conditions.push(and(inArray(overrides.vaultId, approved), eq(overrides.status, 'approved')));
  }
  return conditions.filter((c): c is SQL => c !== undefined);
}
