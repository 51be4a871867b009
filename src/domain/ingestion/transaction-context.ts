// The per-transaction toolkit the event handlers use: find or create the vault, add transaction and
// override rows, queue webhooks, mark metric days. Everything lands in the batch state or output.
import { toChainAuditRecord } from '../audit/chain-acts.js';
import type { OutboxEvent } from '../webhooks/outbox.js';
import type { IngestionWarning, ProjectionInput, ProjectionOutput } from './batch-io.js';
import type { BatchState, OverrideState, VaultState } from './batch-state.js';
import {
  buildApprovalUrl,
  buildBlinkUrl,
  buildOverridePayload,
  buildVaultPayload,
  type OverrideLinks,
} from './payloads.js';
import {
  addOverride,
  addPendingTransfer,
  addressOf,
  addTransaction,
  changeOverride,
  findOrReadOverride,
  markDay,
  type Scope,
  settlePendingTransfer,
} from './row-changes.js';
import type { ChainTransaction } from './types.js';
import { applyAccount, createVault } from './vault-rows.js';

export type { IngestionWarning, ProjectionInput, ProjectionOutput } from './batch-io.js';

export type TransactionContext = ReturnType<typeof createTransactionContext>;

/**
 * The per-transaction toolkit: every change an event makes to the batch state or output goes through
 * it. `state` is there for lookups.
 */
export function createTransactionContext(
  tx: ChainTransaction,
  input: ProjectionInput,
  out: ProjectionOutput,
) {
  const { publicBaseUrl } = input;
  const scope: Scope = { tx, at: tx.blockTime ?? input.now, input, out };
  return {
    tx,
    at: scope.at,
    now: input.now,
    state: input.state as Readonly<BatchState>,
    /** Overrides approved earlier in this same signature: a Blink's execute settles these first. */
    approvedHere: new Set<string>(),
    /** An override was asked for by this signature's blocked transfer (the program fails at the first). */
    requestedHere: false,
    warn: warn.bind(null, scope),
    recordSpend: recordSpend.bind(null, scope),
    recordAttempt: recordAttempt.bind(null, scope),
    markDay: markDay.bind(null, scope),
    enqueue: enqueue.bind(null, scope),
    applyFields: applyFields.bind(null, scope),
    getVault: getVault.bind(null, scope),
    addTransaction: addTransaction.bind(null, scope),
    addOverride: addOverride.bind(null, scope),
    changeOverride: changeOverride.bind(null, scope),
    /** The pending transfer an approved override waits to execute, if there is one. */
    pendingTransferOf: (o: OverrideState) => input.state.pendingByOverride.get(o.row.id),
    addPendingTransfer: addPendingTransfer.bind(null, scope),
    settlePendingTransfer: settlePendingTransfer.bind(null, scope),
    findOrReadOverride: findOrReadOverride.bind(null, scope),
    overrideObject: (o: OverrideState) =>
      buildOverridePayload(o.row, o.vaultAddress, publicBaseUrl, scope.at),
    vaultObject,
    links: { publicBaseUrl, cluster: input.cluster },
    /** Where a person acts on an override: its Blink and its approval page. */
    overrideLinks: (o: OverrideState): OverrideLinks => ({
      blinkUrl: buildBlinkUrl(publicBaseUrl, addressOf(o)),
      approvalUrl: buildApprovalUrl(publicBaseUrl, addressOf(o)),
    }),
  };
}

function warn(scope: Scope, kind: IngestionWarning['kind'], detail: string): void {
  scope.out.warnings.push({ kind, signature: scope.tx.signature, detail });
}

/** A transfer attempt (executed or blocked), for the velocity alerts. */
function recordAttempt(scope: Scope, v: VaultState): void {
  const { row } = v;
  scope.out.attempts.push({
    vaultId: row.id,
    vault: row.address,
    authority: row.authority,
    agentSigner: row.agentSigner,
    signature: scope.tx.signature,
    slot: scope.tx.slot,
    at: scope.at,
  });
}

/** An executed transfer and the window's spending after it, for the budget alerts (and an attempt). */
function recordSpend(scope: Scope, v: VaultState, amount: bigint, spentToday: bigint): void {
  const { row } = v;
  scope.out.spends.push({
    vaultId: row.id,
    vault: row.address,
    authority: row.authority,
    signature: scope.tx.signature,
    slot: scope.tx.slot,
    at: scope.at,
    amount,
    spentToday,
    dailyLimit: row.dailyLimit,
    lastReset: row.lastReset,
  });
  recordAttempt(scope, v);
}

function touch(scope: Scope, v: VaultState): void {
  v.dirty = true;
  if (scope.at > v.row.updatedAt) v.row.updatedAt = scope.at;
  scope.out.touchedVaults.add(v.row.address);
}

function enqueue(
  scope: Scope,
  event: OutboxEvent['event'],
  v: VaultState,
  index: number,
  data: object,
): void {
  scope.out.webhooks.push({
    event,
    vaultId: v.row.id,
    authority: v.row.authority,
    timestamp: scope.at.toISOString(),
    data: data as Record<string, unknown>,
    dedupeKey: `${scope.tx.signature}:${index}:${event}`,
  });
  const nonce = (data as { nonce?: unknown }).nonce;
  const audit = toChainAuditRecord({
    event,
    vault: v.row.address,
    authority: v.row.authority,
    signature: scope.tx.signature,
    index,
    at: scope.at,
    nonce: event.startsWith('override.') && typeof nonce === 'string' ? nonce : undefined,
  });
  if (audit !== null) scope.out.audits.push(audit);
}

/** Event-carried vault fields apply only when the event is at least as new as the stored state. */
function applyFields(scope: Scope, v: VaultState, change: (row: VaultState['row']) => void): void {
  if (scope.tx.slot >= v.row.syncedSlot) {
    change(v.row);
    v.row.syncedSlot = scope.tx.slot;
  }
  touch(scope, v);
}

/** The vault an event names: loaded, or created from its account (or from a creation event). */
function getVault(
  scope: Scope,
  address: string,
  created?: { authority: string; dailyLimit: bigint; tier?: string },
): VaultState | undefined {
  const { state, vaultReads } = scope.input;
  const read = vaultReads.get(address);
  let v = state.vaults.get(address);
  if (v === undefined) {
    const authority = read?.state?.authority ?? created?.authority;
    if (authority === undefined) {
      warn(scope, 'vault_unknown', `no VaultConfig account for ${address}`);
      return undefined;
    }
    v = createVault(address, authority, read, created, scope.tx.slot, scope.at);
    state.vaults.set(address, v);
  }
  applyAccount(v, read);
  touch(scope, v);
  return v;
}

/** The vault object, with its counters as they stand after this batch's events so far. */
function vaultObject(v: VaultState): ReturnType<typeof buildVaultPayload> {
  const { row, stats } = v;
  return buildVaultPayload({
    ...row,
    transactionCount: row.transactionCount + stats.transactionCount,
    executedCount: row.executedCount + stats.executedCount,
    blockedCount: row.blockedCount + stats.blockedCount,
    totalVolume: row.totalVolume + stats.totalVolume,
  });
}
