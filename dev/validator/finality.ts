import type { Address } from '@solana/kit';
import type { LedgerState, TransactionRecord } from './state.js';

/**
 * How the fake cluster finalizes and forks. The finalized slot trails the confirmed one by
 * FINALIZED_DEPTH unless a test fixes it. A fork drops a confirmed transaction: it leaves
 * getSignatureStatuses, getTransaction and getSignaturesForAddress, and what it wrote is undone (exact
 * when no later transaction wrote the same accounts). A dead slot is a fork of a whole slot: its
 * transactions are dropped and the slot is reported `dead`. Slot statuses (finalized as the finalized
 * slot advances, dead when a test kills one) go to onSlotStatus listeners, as a gRPC `slots` stream does.
 */

/** How deep a slot is once a supermajority has rooted it (finalized). */
export const FINALIZED_DEPTH = 32;
/** Finalized slots announced per advance at most (a test that jumps far does not flood listeners). */
const MAX_ANNOUNCED = 512;

export type SlotStatus = 'finalized' | 'dead';

export type ClusterFinality = ReturnType<typeof createClusterFinality>;

export function createClusterFinality(state: LedgerState) {
  let fixed: number | null = null;
  const deadSlots = new Set<number>();
  const listeners = new Set<(slot: number, status: SlotStatus) => void>();
  const finalizedSlot = () => fixed ?? Math.max(0, state.slot - FINALIZED_DEPTH);
  let announced = finalizedSlot();

  function announce(): void {
    const upTo = finalizedSlot();
    if (upTo <= announced) return;
    const from = Math.max(announced + 1, upTo - MAX_ANNOUNCED + 1);
    announced = upTo;
    for (let slot = from; slot <= upTo; slot++) {
      if (deadSlots.has(slot)) continue;
      for (const listener of listeners) listener(slot, 'finalized');
    }
  }
  state.onSlot(announce);

  function dropTransaction(signature: string): TransactionRecord | null {
    const record = state.bySignature.get(signature);
    if (record === undefined) return null;
    state.bySignature.delete(signature);
    const at = state.transactions.indexOf(record);
    if (at >= 0) state.transactions.splice(at, 1);
    for (const key of new Set(record.accountKeys)) {
      const list = state.byAddress.get(key);
      const i = list?.indexOf(record) ?? -1;
      if (list !== undefined && i >= 0) list.splice(i, 1);
    }
    const undo = state.undos.get(signature);
    state.undos.delete(signature);
    undo?.();
    // Subscribers of the accounts it wrote hear of them again, in a new slot.
    if (undo !== undefined) state.touchAccounts(record.accountKeys as Address[]);
    return record;
  }

  return {
    /** The slot getSlot answers at `finalized`: every transaction at or below it is finalized. */
    finalizedSlot,
    /** Fixes the finalized slot (null: FINALIZED_DEPTH behind the confirmed slot again). */
    setFinalizedSlot(slot: number | null): void {
      fixed = slot;
      announce();
    },
    isDead: (slot: number) => deadSlots.has(slot),
    /** A fork drops this confirmed transaction; returns false when the ledger does not hold it. */
    dropTransaction: (signature: string): boolean => dropTransaction(signature) !== null,
    /** A fork kills the slot: its transactions are dropped (newest first) and it is reported dead. */
    killSlot(slot: number): string[] {
      const dropped = state.transactions
        .filter((r) => r.slot === slot)
        .reverse()
        .map((r) => {
          dropTransaction(r.signature);
          return r.signature;
        });
      deadSlots.add(slot);
      for (const listener of listeners) listener(slot, 'dead');
      return dropped;
    },
    /** Listens to slot statuses (finalized as the finalized slot advances, dead when killed). */
    onSlotStatus(listener: (slot: number, status: SlotStatus) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
