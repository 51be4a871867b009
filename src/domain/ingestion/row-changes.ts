// The rows an event adds or changes in the batch state: transfers, overrides and their pending
// transfers, and the metric days they dirty. Used through the transaction context.
import { randomUUID } from 'node:crypto';
import type { TransactionStatus } from '../../storage/schema/index.js';
import type { ProjectionInput, ProjectionOutput } from './batch-io.js';
import type { OverrideState, TransactionState, VaultState } from './batch-state.js';
import { buildBlinkUrl } from './payloads.js';
import { type ChainTransaction, overrideKey } from './types.js';
import { findByChainNonce, findFirstRequest, fromUnix } from './vault-rows.js';

export interface NewOverride {
  /** The nonce it is addressed by: the announced one, or the on-chain one for an override of its own. */
  nonce: bigint;
  transferSignature: string | null;
  chainNonce: bigint | null;
  amount: bigint;
  destination: string;
  expiresAt: Date;
  reason: string | null;
}

export interface NewTransfer {
  status: TransactionStatus;
  amount: bigint;
  destination: string;
  feeCollected?: bigint;
  blockReason?: string;
  overrideId?: string;
}

export interface ExecutedTransfer {
  amount: bigint;
  destination: string;
  feeCollected: bigint;
}

/** What the steps below share: the transaction, the batch's inputs and state, and the output. */
export interface Scope {
  readonly tx: ChainTransaction;
  readonly at: Date;
  readonly input: ProjectionInput;
  readonly out: ProjectionOutput;
}

export const addressOf = (o: OverrideState) => ({
  vault: o.vaultAddress,
  nonce: o.row.nonce,
  transfer: o.row.addressSignature,
});

export function markDay(scope: Scope, vaultId: string, when: Date): void {
  const day = when.toISOString().slice(0, 10);
  scope.out.dirtyDays.set(`${vaultId}|${day}`, { vaultId, day });
}

export function addTransaction(
  scope: Scope,
  v: VaultState,
  index: number | null,
  fields: NewTransfer,
): TransactionState {
  const { tx, at, input } = scope;
  const pending = fields.status === 'pending';
  const entry: TransactionState = {
    row: {
      id: randomUUID(),
      vaultId: v.row.id,
      signature: pending ? null : tx.signature,
      eventIndex: pending ? null : index,
      destination: fields.destination,
      amount: fields.amount,
      feeCollected: fields.feeCollected ?? null,
      status: fields.status,
      blockReason: fields.blockReason ?? null,
      overrideId: fields.overrideId ?? null,
      slot: tx.slot,
      commitment: 'confirmed',
      timestamp: at,
      createdAt: input.now,
      updatedAt: input.now,
    },
    vaultAddress: v.row.address,
    loadedStatus: null,
    dirty: true,
  };
  input.state.transactions.push(entry);
  v.stats.transactionCount += 1;
  if (fields.status === 'executed') {
    v.stats.executedCount += 1;
    v.stats.totalVolume += fields.amount;
  }
  if (fields.status === 'blocked') v.stats.blockedCount += 1;
  markDay(scope, v.row.id, at);
  return entry;
}

/** A new request (or override of its own): the nonce's first is addressed by it alone, later ones add a signature. */
export function addOverride(scope: Scope, v: VaultState, fields: NewOverride): OverrideState {
  const { tx, at, input } = scope;
  const first = findFirstRequest(input.state, v.row.address, fields.nonce);
  const o: OverrideState = {
    row: {
      id: randomUUID(),
      vaultId: v.row.id,
      nonce: fields.nonce,
      transferSignature: fields.transferSignature,
      addressSignature: first === undefined ? null : (fields.transferSignature ?? tx.signature),
      chainNonce: fields.chainNonce,
      destination: fields.destination,
      amount: fields.amount,
      reason: fields.reason,
      status: 'pending',
      expiresAt: fields.expiresAt,
      approvedAt: null,
      rejectedAt: null,
      executedAt: null,
      createdAt: at,
      updatedAt: input.now,
    },
    vaultAddress: v.row.address,
    dirty: true,
    order: input.state.overrides.size,
  };
  input.state.overrides.set(o.row.id, o);
  scope.out.blinks.push({
    id: randomUUID(),
    overrideId: o.row.id,
    url: buildBlinkUrl(input.publicBaseUrl, addressOf(o)),
  });
  markDay(scope, v.row.id, at);
  return o;
}

export function changeOverride(scope: Scope, o: OverrideState): void {
  o.dirty = true;
  o.row.updatedAt = scope.input.now;
  markDay(scope, o.row.vaultId, scope.at);
}

/** Records the approved override's pending transfer, unless it has one already. */
export function addPendingTransfer(scope: Scope, v: VaultState, o: OverrideState): void {
  const { pendingByOverride } = scope.input.state;
  if (pendingByOverride.has(o.row.id)) return;
  const pending = addTransaction(scope, v, null, {
    status: 'pending',
    amount: o.row.amount,
    destination: o.row.destination,
    overrideId: o.row.id,
  });
  pendingByOverride.set(o.row.id, pending);
}

/** The approved override's pending transfer becomes this executed transaction (same row). */
export function settlePendingTransfer(
  scope: Scope,
  v: VaultState,
  o: OverrideState,
  pending: TransactionState,
  index: number,
  transfer: ExecutedTransfer,
): TransactionState {
  const { tx, at, input } = scope;
  markDay(scope, v.row.id, pending.row.timestamp);
  Object.assign(pending.row, {
    signature: tx.signature,
    eventIndex: index,
    amount: transfer.amount,
    destination: transfer.destination,
    feeCollected: transfer.feeCollected,
    status: 'executed',
    slot: tx.slot,
    timestamp: at,
    updatedAt: input.now,
  });
  pending.dirty = true;
  input.state.pendingByOverride.delete(o.row.id);
  if (!input.state.transactions.includes(pending)) input.state.transactions.push(pending);
  v.stats.executedCount += 1;
  v.stats.totalVolume += transfer.amount;
  markDay(scope, v.row.id, at);
  return pending;
}

/** The override of an on-chain nonce, or one created from its PendingOverride account when we never saw it. */
export function findOrReadOverride(
  scope: Scope,
  v: VaultState,
  chainNonce: bigint,
): OverrideState | undefined {
  const { state, overrideReads } = scope.input;
  const known = findByChainNonce(state, v.row.address, chainNonce);
  if (known !== undefined) return known;
  const account = overrideReads.get(overrideKey(v.row.address, chainNonce));
  if (account === undefined) return undefined;
  return addOverride(scope, v, {
    nonce: chainNonce,
    transferSignature: null,
    chainNonce,
    amount: account.amount,
    destination: account.destination,
    expiresAt: fromUnix(account.expiresAt),
    reason: null,
  });
}
