// What each event does (docs/OPERATIONS.md, What each program event does) to the projections: one projection per event kind. Not
// pure: a batch of decoded transactions, oldest first, is folded into the loaded rows of the batch
// state it is given (changed in place, every change through the transaction context, so the caller
// can write the dirty ones), and the webhooks, Blinks and dirty metric days are returned.
import { overrideExpiresAt } from '../overrides/override-lifecycle.js';
import type { ProjectionInput, ProjectionOutput } from './batch-io.js';
import { buildBlockedPayload, buildPolicyPayload, buildTransactionPayload } from './payloads.js';
import { createTransactionContext, type TransactionContext } from './transaction-context.js';
import type { ChainEvent, ChainEventName, ChainTransaction, KnownChainEvent } from './types.js';
import {
  findApprovedOverride,
  findByChainNonce,
  findUnresolvedRequest,
  fromUnix,
  tierIndex,
} from './vault-rows.js';

export type { IngestionWarning, ProjectionInput, ProjectionOutput } from './batch-io.js';

type EventOf<N extends ChainEventName> = Extract<ChainEvent, { name: N }>;
type Projection<N extends ChainEventName> = (ctx: TransactionContext, event: EventOf<N>) => void;

/** Events that change projections: every known event of a successful transaction, and TransactionBlocked. */
export function isProjected(tx: ChainTransaction, event: ChainEvent): event is ChainEvent & KnownChainEvent {
  return event.name !== 'Unknown' && (!tx.failed || event.name === 'TransactionBlocked');
}

export function projectBatch(batch: readonly ChainTransaction[], input: ProjectionInput): ProjectionOutput {
  const out: ProjectionOutput = {
    blinks: [],
    dirtyDays: new Map(),
    webhooks: [],
    touchedVaults: new Set(),
    warnings: [],
    spends: [],
    attempts: [],
    audits: [],
  };
  for (const tx of batch) {
    const ctx = createTransactionContext(tx, input, out);
    if (tx.truncated) ctx.warn('truncated_logs', 'events after the truncation are lost from the logs');
    for (const event of tx.events) {
      if (event.name === 'Unknown') {
        if (event.error === undefined) ctx.warn('unknown_event', `discriminator ${event.discriminator}`);
        else ctx.warn('malformed_event', event.error);
      } else if (isProjected(tx, event)) {
        projectEvent(ctx, event);
      }
    }
  }
  return out;
}

function projectEvent(ctx: TransactionContext, event: ChainEvent & KnownChainEvent): void {
  const project = projections[event.name] as Projection<typeof event.name>;
  project(ctx, event as EventOf<typeof event.name>);
}

function projectVaultCreation(ctx: TransactionContext, event: EventOf<'VaultCreated' | 'VaultInitialized'>) {
  const d = event.data;
  const tier = event.name === 'VaultCreated' ? event.data.tier : undefined;
  const v = ctx.getVault(d.vault, { authority: d.authority, dailyLimit: d.dailyLimit, tier });
  if (v === undefined) return;
  ctx.applyFields(v, (row) => {
    row.dailyLimit = d.dailyLimit;
    if (tier !== undefined) row.tier = tierIndex(tier);
  });
  if (v.row.createdSlot === null || ctx.tx.slot <= v.row.createdSlot) {
    v.row.createdSlot = ctx.tx.slot;
    v.row.createdAt = ctx.at;
  }
  ctx.enqueue('vault.created', v, event.index, ctx.vaultObject(v));
}

function projectExecuted(ctx: TransactionContext, event: EventOf<'TransactionExecuted'>) {
  const d = event.data;
  const v = ctx.getVault(d.vault);
  if (v === undefined) return;
  ctx.applyFields(v, (row) => {
    row.spentToday = d.spentToday;
  });
  const o =
    event.instruction === 'ExecuteApprovedOverride'
      ? findApprovedOverride(ctx.state, v.row.address, d.destination, d.amount, ctx.approvedHere)
      : undefined;
  const pending = o === undefined ? undefined : ctx.pendingTransferOf(o);
  const executed =
    o !== undefined && pending !== undefined
      ? ctx.settlePendingTransfer(v, o, pending, event.index, d)
      : ctx.addTransaction(v, event.index, {
          status: 'executed',
          amount: d.amount,
          destination: d.destination,
          feeCollected: d.feeCollected,
          ...(o === undefined ? {} : { overrideId: o.row.id }),
        });
  const payload = buildTransactionPayload(executed.row, v.row.address, ctx.links);
  ctx.enqueue('transaction.executed', v, event.index, payload);
  ctx.recordSpend(v, d.amount, d.spentToday);
  if (o !== undefined) {
    o.row.status = 'executed';
    o.row.executedAt = ctx.at;
    ctx.changeOverride(o);
    ctx.enqueue('override.executed', v, event.index, ctx.overrideObject(o));
  }
}

function projectBlocked(ctx: TransactionContext, event: EventOf<'TransactionBlocked'>) {
  const d = event.data;
  const v = ctx.getVault(d.vault);
  if (v === undefined) return;
  // Every blocked transfer that announced a nonce is an override of its own.
  let o: ReturnType<TransactionContext['addOverride']> | undefined;
  if (d.overrideNonce !== null && ctx.requestedHere) {
    ctx.warn('blocked_without_request', 'a second blocked transfer in one transaction gets no override');
  } else if (d.overrideNonce !== null) {
    ctx.requestedHere = true;
    o = ctx.addOverride(v, {
      nonce: d.overrideNonce,
      transferSignature: ctx.tx.signature,
      chainNonce: null,
      amount: d.amount,
      destination: d.destination,
      expiresAt: overrideExpiresAt(ctx.at),
      reason: d.reason,
    });
  }
  const blocked = ctx.addTransaction(v, event.index, {
    status: 'blocked',
    amount: d.amount,
    destination: d.destination,
    blockReason: d.reason,
    ...(o === undefined ? {} : { overrideId: o.row.id }),
  });
  const links = o === undefined ? null : ctx.overrideLinks(o);
  const payload = buildBlockedPayload(blocked.row, v.row.address, links, ctx.tx.signature);
  ctx.enqueue('transaction.blocked', v, event.index, payload);
  ctx.recordAttempt(v);
}

function projectOverrideCreated(ctx: TransactionContext, event: EventOf<'OverrideCreated'>) {
  const d = event.data;
  const v = ctx.getVault(d.vault);
  if (v === undefined) return;
  const expiresAt = fromUnix(d.expiresAt);
  const o =
    findByChainNonce(ctx.state, v.row.address, d.nonce) ??
    findUnresolvedRequest(ctx.state, v.row.address, d.destination, d.amount, ctx.at);
  if (o === undefined) {
    const own = ctx.addOverride(v, {
      nonce: d.nonce,
      transferSignature: null,
      chainNonce: d.nonce,
      amount: d.amount,
      destination: d.destination,
      expiresAt,
      reason: null,
    });
    ctx.enqueue('override.created', v, event.index, ctx.overrideObject(own));
    return;
  }
  // The request follows the on-chain override from here on.
  Object.assign(o.row, { chainNonce: d.nonce, amount: d.amount, destination: d.destination, expiresAt });
  ctx.changeOverride(o);
  ctx.enqueue('override.created', v, event.index, ctx.overrideObject(o));
}

function projectOverrideApproved(ctx: TransactionContext, event: EventOf<'OverrideApproved'>) {
  const d = event.data;
  const v = ctx.getVault(d.vault);
  if (v === undefined) return;
  const o = ctx.findOrReadOverride(v, d.nonce);
  if (o === undefined) {
    ctx.warn('override_unknown', `override ${d.nonce} of ${d.vault} was never seen and has no account`);
    return;
  }
  if (o.row.status !== 'executed') {
    o.row.status = 'approved';
    o.row.approvedAt = ctx.at;
    ctx.changeOverride(o);
    ctx.approvedHere.add(o.row.id);
    ctx.addPendingTransfer(v, o);
  }
  ctx.enqueue('override.approved', v, event.index, ctx.overrideObject(o));
}

function projectPolicyUpdated(ctx: TransactionContext, event: EventOf<'PolicyUpdated'>) {
  const d = event.data;
  const v = ctx.getVault(d.vault);
  if (v === undefined) return;
  ctx.applyFields(v, (row) => {
    row.dailyLimit = d.dailyLimit;
    row.whitelistCount = d.whitelistSize;
  });
  const policy = {
    dailyLimit: d.dailyLimit,
    whitelistCount: d.whitelistSize,
    agentSigner: v.row.agentSigner,
  };
  ctx.enqueue('policy.updated', v, event.index, buildPolicyPayload(v.row.address, policy));
}

function projectAgentSignerUpdated(ctx: TransactionContext, event: EventOf<'AgentSignerUpdated'>) {
  const d = event.data;
  const v = ctx.getVault(d.vault);
  if (v === undefined) return;
  ctx.applyFields(v, (row) => {
    row.agentSigner = d.newSigner;
  });
  const policy = {
    dailyLimit: v.row.dailyLimit,
    whitelistCount: v.row.whitelistCount,
    agentSigner: d.newSigner,
  };
  ctx.enqueue('policy.updated', v, event.index, buildPolicyPayload(v.row.address, policy));
}

function projectWhitelistUpdated(ctx: TransactionContext, event: EventOf<'WhitelistUpdated'>) {
  const d = event.data;
  const v = ctx.getVault(d.vault);
  if (v === undefined) return;
  ctx.applyFields(v, (row) => {
    const rest = row.whitelist.filter((a) => a !== d.address);
    row.whitelist = d.added ? [...rest, d.address] : rest;
    row.whitelistCount = row.whitelist.length;
  });
  ctx.enqueue('policy.updated', v, event.index, buildPolicyPayload(v.row.address, v.row));
}

function projectPauseChange(ctx: TransactionContext, event: EventOf<'VaultPaused' | 'VaultResumed'>) {
  const paused = event.name === 'VaultPaused';
  const v = ctx.getVault(event.data.vault);
  if (v === undefined) return;
  ctx.applyFields(v, (row) => {
    row.paused = paused;
  });
  ctx.enqueue(paused ? 'vault.paused' : 'vault.resumed', v, event.index, ctx.vaultObject(v));
}

/** The treasury is not a projected resource: the raw event log keeps its events. */
const projectNothing = () => {};

const projections: { [N in ChainEventName]: Projection<N> } = {
  VaultCreated: projectVaultCreation,
  VaultInitialized: projectVaultCreation,
  TransactionExecuted: projectExecuted,
  TransactionBlocked: projectBlocked,
  OverrideCreated: projectOverrideCreated,
  OverrideApproved: projectOverrideApproved,
  PolicyUpdated: projectPolicyUpdated,
  AgentSignerUpdated: projectAgentSignerUpdated,
  WhitelistUpdated: projectWhitelistUpdated,
  VaultPaused: projectPauseChange,
  VaultResumed: projectPauseChange,
  FeeTreasuryInitialized: projectNothing,
  FeesWithdrawn: projectNothing,
};
