// The rows a batch of signatures can change, loaded (and locked) inside the apply transaction, then
// changed in memory event by event and written back in a few bulk statements.
import { and, eq, inArray, or, sql } from 'drizzle-orm';
import type { Tx } from '../../storage/database.js';
import {
  type OverrideRow,
  overrides,
  type TransactionRow,
  transactions,
  type VaultRow,
  vaults,
} from '../../storage/schema/index.js';
import { overrideKey } from './types.js';

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
  /** By overrideKey(vault address, nonce). */
  overrides: Map<string, OverrideState>;
  /** Pending transactions by override id. */
  pendingByOverride: Map<string, TransactionState>;
  /** Every transaction row inserted or changed by the batch, in event order. */
  transactions: TransactionState[];
}

export interface BatchNeeds {
  vaultAddresses: readonly string[];
  overrideKeys: readonly { vault: string; nonce: bigint }[];
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

  const keyed = needs.overrideKeys
    .map(({ vault, nonce }) => ({ id: state.vaults.get(vault)?.row.id, nonce }))
    .filter((k): k is { id: string; nonce: bigint } => k.id !== undefined);
  const approvedVaultIds = needs.approvedOverridesOf
    .map((address) => state.vaults.get(address)?.row.id)
    .filter((id): id is string => id !== undefined);
  const conditions = [
    ...(keyed.length > 0
      ? [
          sql`(${overrides.vaultId}, ${overrides.nonce}) in (${sql.join(
            keyed.map((k) => sql`(${k.id}::uuid, ${k.nonce.toString()}::numeric)`),
            sql`, `,
          )})`,
        ]
      : []),
    ...(approvedVaultIds.length > 0
      ? [and(inArray(overrides.vaultId, approvedVaultIds), eq(overrides.status, 'approved'))]
      : []),
  ];
  if (conditions.length === 0) return state;
  const overrideRows = await tx
    .select()
    .from(overrides)
    .where(or(...conditions))
    .for('update');
  for (const row of overrideRows) {
    const vaultAddress = addressById.get(row.vaultId) ?? '';
    state.overrides.set(overrideKey(vaultAddress, row.nonce), {
      row,
      vaultAddress,
      dirty: false,
    });
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
