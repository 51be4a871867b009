// Before the database transaction: which rows the batch touches, and which accounts must be read
// from the chain (vaults we do not have yet, or whose events change fields only the account holds).
import { and, inArray, sql } from 'drizzle-orm';
import type { Queryable } from '../../storage/database.js';
import { overrides, vaults } from '../../storage/schema/index.js';
import type { BatchNeeds } from './batch-state.js';
import { isProjected } from './projections.js';
import { type ChainTransaction, type KnownChainEvent, overrideKey } from './types.js';

export interface BatchPlan {
  needs: BatchNeeds;
  vaultReads: string[];
  /** Accounts must be read at a slot no older than this (the newest event that asked for them). */
  minSlot: number;
  overrideReads: { vault: string; nonce: bigint }[];
}

/** Events after which the VaultConfig account holds something the event does not carry. */
function changesAccountOnlyFields(event: KnownChainEvent): boolean {
  switch (event.name) {
    case 'VaultCreated':
    case 'VaultInitialized':
    case 'OverrideCreated':
    case 'PolicyUpdated':
    case 'AgentSignerUpdated':
    case 'WhitelistUpdated':
      return true;
    case 'TransactionBlocked':
      // Announcing an override nonce moves the vault's override counter.
      return event.data.overrideNonce !== null;
    case 'TransactionExecuted':
      // spent_today == amount: the spending day was reset (or this is its first spend): read last_reset.
      return event.data.spentToday === event.data.amount;
    default:
      return false;
  }
}

export async function planBatch(db: Queryable, batch: readonly ChainTransaction[]): Promise<BatchPlan> {
  const newestSlot = new Map<string, number>();
  const readSlot = new Map<string, number>();
  const overrideKeys = new Map<string, { vault: string; nonce: bigint }>();
  const approvedKeys = new Map<string, { vault: string; nonce: bigint }>();
  const createdKeys = new Set<string>();
  const approvedOverridesOf = new Set<string>();

  for (const tx of batch) {
    for (const event of tx.events) {
      if (!isProjected(tx, event) || !('vault' in event.data)) continue;
      const vault = event.data.vault;
      newestSlot.set(vault, Math.max(newestSlot.get(vault) ?? 0, tx.slot));
      if (changesAccountOnlyFields(event)) readSlot.set(vault, Math.max(readSlot.get(vault) ?? 0, tx.slot));
      const nonce =
        event.name === 'TransactionBlocked'
          ? event.data.overrideNonce
          : event.name === 'OverrideCreated' || event.name === 'OverrideApproved'
            ? event.data.nonce
            : null;
      if (nonce !== null) {
        const key = overrideKey(vault, nonce);
        overrideKeys.set(key, { vault, nonce });
        if (event.name === 'OverrideApproved' && !createdKeys.has(key))
          approvedKeys.set(key, { vault, nonce });
        else createdKeys.add(key);
      }
      if (event.name === 'TransactionExecuted' && event.instruction === 'ExecuteApprovedOverride') {
        approvedOverridesOf.add(vault);
      }
    }
  }

  const addresses = [...newestSlot.keys()];
  const stored =
    addresses.length === 0
      ? []
      : await db
          .select({ address: vaults.address, syncedSlot: vaults.syncedSlot })
          .from(vaults)
          .where(inArray(vaults.address, addresses));
  const syncedSlot = new Map(stored.map((v) => [v.address, v.syncedSlot]));
  const vaultReads: string[] = [];
  let minSlot = 0;
  for (const [address, slot] of newestSlot) {
    const synced = syncedSlot.get(address);
    const wanted = readSlot.get(address);
    // A stored state at least as new as the event already reflects what the account would say.
    if (synced === undefined || (wanted !== undefined && wanted > synced)) {
      vaultReads.push(address);
      minSlot = Math.max(minSlot, wanted ?? slot);
    }
  }

  return {
    needs: {
      vaultAddresses: addresses,
      overrideKeys: [...overrideKeys.values()],
      approvedOverridesOf: [...approvedOverridesOf],
    },
    vaultReads,
    minSlot,
    overrideReads: await findUnknownOverrides(db, [...approvedKeys.values()]),
  };
}

/** Approved overrides we never saw created: their PendingOverride accounts tell amount and destination. */
async function findUnknownOverrides(
  db: Queryable,
  keys: { vault: string; nonce: bigint }[],
): Promise<{ vault: string; nonce: bigint }[]> {
  if (keys.length === 0) return [];
  const rows = await db
    .select({ address: vaults.address, nonce: overrides.nonce })
    .from(overrides)
    .innerJoin(vaults, sql`${vaults.id} = ${overrides.vaultId}`)
    .where(
      and(
        inArray(
          vaults.address,
          keys.map((k) => k.vault),
        ),
        inArray(
          overrides.nonce,
          keys.map((k) => k.nonce),
        ),
      ),
    );
  const known = new Set(rows.map((r) => overrideKey(r.address, r.nonce)));
  return keys.filter((k) => !known.has(overrideKey(k.vault, k.nonce)));
}
