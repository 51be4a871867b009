// Before the database transaction: which rows the batch touches, and which accounts must be read
// from the chain (vaults we do not have yet, or whose events change fields only the account holds).
import { and, inArray, sql } from 'drizzle-orm';
import type { Queryable } from '../../storage/database.js';
import { overrides, vaults } from '../../storage/schema/index.js';
import type { BatchNeeds, VaultNonce } from './batch-state.js';
import { isProjected } from './project-batch.js';
import { type ChainTransaction, type KnownChainEvent, overrideKey } from './types.js';

export interface BatchPlan {
  needs: BatchNeeds;
  vaultReads: string[];
  /** Accounts must be read at a slot no older than this (the newest event that asked for them). */
  minSlot: number;
  /** On-chain overrides approved in the batch that we never saw created: read their accounts. */
  overrideReads: VaultNonce[];
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
  const addressNonces = new Map<string, VaultNonce>();
  const chainNonces = new Map<string, VaultNonce>();
  const approvedKeys = new Map<string, VaultNonce>();
  const createdKeys = new Set<string>();
  const unresolvedOf = new Set<string>();
  const approvedOverridesOf = new Set<string>();

  for (const tx of batch) {
    for (const event of tx.events) {
      if (!isProjected(tx, event) || !('vault' in event.data)) continue;
      const vault = event.data.vault;
      newestSlot.set(vault, Math.max(newestSlot.get(vault) ?? 0, tx.slot));
      if (changesAccountOnlyFields(event)) readSlot.set(vault, Math.max(readSlot.get(vault) ?? 0, tx.slot));
      if (event.name === 'TransactionBlocked' && event.data.overrideNonce !== null) {
        const nonce = event.data.overrideNonce;
        addressNonces.set(overrideKey(vault, nonce), { vault, nonce });
      }
      if (event.name === 'OverrideCreated' || event.name === 'OverrideApproved') {
        const key = overrideKey(vault, event.data.nonce);
        const entry = { vault, nonce: event.data.nonce };
        // An override of its own may be created at this nonce, so its first request matters too.
        addressNonces.set(key, entry);
        chainNonces.set(key, entry);
        if (event.name === 'OverrideCreated') {
          createdKeys.add(key);
          unresolvedOf.add(vault);
        } else if (!createdKeys.has(key)) approvedKeys.set(key, entry);
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
      addressNonces: [...addressNonces.values()],
      chainNonces: [...chainNonces.values()],
      unresolvedOf: [...unresolvedOf],
      approvedOverridesOf: [...approvedOverridesOf],
    },
    vaultReads,
    minSlot,
    overrideReads: await findUnknownOverrides(db, [...approvedKeys.values()]),
  };
}

/** Approved overrides we never saw created: their PendingOverride accounts tell amount and destination. */
async function findUnknownOverrides(db: Queryable, keys: VaultNonce[]): Promise<VaultNonce[]> {
  if (keys.length === 0) return [];
  const rows = await db
    .select({ address: vaults.address, nonce: overrides.chainNonce })
    .from(overrides)
    .innerJoin(vaults, sql`${vaults.id} = ${overrides.vaultId}`)
    .where(
      and(
        inArray(
          vaults.address,
          keys.map((k) => k.vault),
        ),
        inArray(
          overrides.chainNonce,
          keys.map((k) => k.nonce),
        ),
      ),
    );
  const known = new Set(rows.flatMap((r) => (r.nonce === null ? [] : [overrideKey(r.address, r.nonce)])));
  return keys.filter((k) => !known.has(overrideKey(k.vault, k.nonce)));
}
