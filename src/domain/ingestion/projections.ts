// What each event does (docs/BEHAVIOUR.md) to the projections. Pure: folds a batch of decoded
// transactions, oldest first, into the loaded rows and collects webhooks and dirty metric days.
import type { TransactionRow } from '../../storage/schema/index.js';
import { OVERRIDE_TTL_SECONDS } from '../overrides/override-resource.js';
import type { OverrideState } from './batch-state.js';
import { buildBlockedPayload, buildPolicyPayload, buildTransactionPayload } from './payloads.js';
import {
  createTransactionContext,
  type ProjectionInput,
  type ProjectionOutput,
  type TransactionContext,
} from './projection-context.js';
import type { ChainEvent, ChainTransaction, KnownChainEvent } from './types.js';
import {
  findApprovedOverride,
  findByChainNonce,
  findUnresolvedRequest,
  fromUnix,
  tierIndex,
} from './vault-projection.js';

export type { IngestionWarning, ProjectionInput, ProjectionOutput } from './projection-context.js';

const OVERRIDE_TTL_MS = Number(OVERRIDE_TTL_SECONDS) * 1000;

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
  };
  for (const tx of batch) {
    const ctx = createTransactionContext(tx, input, out);
    if (tx.truncated) ctx.warn('truncated_logs', 'events after the truncation are lost from the logs');
    for (const event of tx.events) {
      if (event.name === 'Unknown') {
        if (event.error === undefined) ctx.warn('unknown_event', `discriminator ${event.discriminator}`);
        else ctx.warn('malformed_event', event.error);
      } else if (isProjected(tx, event)) {
        projectEvent(tx, event, ctx, input);
      }
    }
  }
  return out;
}

function projectEvent(
  tx: ChainTransaction,
  event: ChainEvent & KnownChainEvent,
  ctx: TransactionContext,
  input: ProjectionInput,
): void {
  const { index } = event;
  switch (event.name) {
    case 'VaultCreated':
    case 'VaultInitialized': {
      const d = event.data;
      const tier = event.name === 'VaultCreated' ? event.data.tier : undefined;
      const v = ctx.getVault(d.vault, { authority: d.authority, dailyLimit: d.dailyLimit, tier });
      if (v === undefined) return;
      ctx.applyFields(v, (row) => {
        row.dailyLimit = d.dailyLimit;
        if (tier !== undefined) row.tier = tierIndex(tier);
      });
      if (v.row.createdSlot === null || tx.slot <= v.row.createdSlot) {
        v.row.createdSlot = tx.slot;
        v.row.createdAt = ctx.at;
      }
      ctx.enqueue('vault.created', v, index, ctx.vaultObject(v));
      return;
    }
    case 'TransactionExecuted': {
      const d = event.data;
      const v = ctx.getVault(d.vault);
      if (v === undefined) return;
      ctx.applyFields(v, (row) => {
        row.spentToday = d.spentToday;
      });
      const o =
        event.instruction === 'ExecuteApprovedOverride'
          ? findApprovedOverride(input.state, v.row.address, d.destination, d.amount, ctx.approvedHere)
          : undefined;
      const pending = o === undefined ? undefined : input.state.pendingByOverride.get(o.row.id);
      let executed: TransactionRow;
      if (o !== undefined && pending !== undefined) {
        // The approved override's pending transfer becomes this executed transaction (same row).
        ctx.markDay(v.row.id, pending.row.timestamp);
        Object.assign(pending.row, {
          signature: tx.signature,
          eventIndex: index,
          amount: d.amount,
          destination: d.destination,
          feeCollected: d.feeCollected,
          status: 'executed',
          slot: tx.slot,
          timestamp: ctx.at,
          updatedAt: input.now,
        });
        pending.dirty = true;
        input.state.pendingByOverride.delete(o.row.id);
        if (!input.state.transactions.includes(pending)) input.state.transactions.push(pending);
        v.stats.executedCount += 1;
        v.stats.totalVolume += d.amount;
        ctx.markDay(v.row.id, ctx.at);
        executed = pending.row;
      } else {
        executed = ctx.addTransaction(v, index, {
          status: 'executed',
          amount: d.amount,
          destination: d.destination,
          feeCollected: d.feeCollected,
          ...(o === undefined ? {} : { overrideId: o.row.id }),
        }).row;
      }
      ctx.enqueue(
        'transaction.executed',
        v,
        index,
        buildTransactionPayload(executed, v.row.address, ctx.links),
      );
      if (o !== undefined) {
        o.row.status = 'executed';
        o.row.executedAt = ctx.at;
        ctx.changeOverride(o);
        ctx.enqueue('override.executed', v, index, ctx.overrideObject(o));
      }
      return;
    }
    case 'TransactionBlocked': {
      const d = event.data;
      const v = ctx.getVault(d.vault);
      if (v === undefined) return;
      // Every blocked transfer that announced a nonce is an approval request of its own.
      let o: OverrideState | undefined;
      if (d.overrideNonce !== null) {
        if (ctx.requestedHere) {
          ctx.warn(
            'blocked_without_request',
            'a second blocked transfer in one transaction gets no approval request',
          );
        } else {
          ctx.requestedHere = true;
          o = ctx.addOverride(v, {
            nonce: d.overrideNonce,
            transferSignature: tx.signature,
            chainNonce: null,
            amount: d.amount,
            destination: d.destination,
            expiresAt: new Date(ctx.at.getTime() + OVERRIDE_TTL_MS),
            reason: d.reason,
          });
        }
      }
      const blocked = ctx.addTransaction(v, index, {
        status: 'blocked',
        amount: d.amount,
        destination: d.destination,
        blockReason: d.reason,
        ...(o === undefined ? {} : { overrideId: o.row.id }),
      });
      const links = o === undefined ? null : ctx.overrideLinks(o);
      const payload = buildBlockedPayload(blocked.row, v.row.address, links, tx.signature);
      ctx.enqueue('transaction.blocked', v, index, payload);
      return;
    }
    case 'OverrideCreated': {
      const d = event.data;
      const v = ctx.getVault(d.vault);
      if (v === undefined) return;
      const expiresAt = fromUnix(d.expiresAt);
      const o =
        findByChainNonce(input.state, v.row.address, d.nonce) ??
        findUnresolvedRequest(input.state, v.row.address, d.destination, d.amount, ctx.at);
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
        ctx.enqueue('override.created', v, index, ctx.overrideObject(own));
        return;
      }
      // The request follows the on-chain override from here on.
      Object.assign(o.row, { chainNonce: d.nonce, amount: d.amount, destination: d.destination, expiresAt });
      ctx.changeOverride(o);
      ctx.enqueue('override.created', v, index, ctx.overrideObject(o));
      return;
    }
    case 'OverrideApproved': {
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
        if (!input.state.pendingByOverride.has(o.row.id)) {
          const pending = ctx.addTransaction(v, null, {
            status: 'pending',
            amount: o.row.amount,
            destination: o.row.destination,
            overrideId: o.row.id,
          });
          input.state.pendingByOverride.set(o.row.id, pending);
        }
      }
      ctx.enqueue('override.approved', v, index, ctx.overrideObject(o));
      return;
    }
    case 'PolicyUpdated': {
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
      ctx.enqueue('policy.updated', v, index, buildPolicyPayload(v.row.address, policy));
      return;
    }
    case 'AgentSignerUpdated': {
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
      ctx.enqueue('policy.updated', v, index, buildPolicyPayload(v.row.address, policy));
      return;
    }
    case 'WhitelistUpdated': {
      const d = event.data;
      const v = ctx.getVault(d.vault);
      if (v === undefined) return;
      ctx.applyFields(v, (row) => {
        const rest = row.whitelist.filter((a) => a !== d.address);
        row.whitelist = d.added ? [...rest, d.address] : rest;
        row.whitelistCount = row.whitelist.length;
      });
      ctx.enqueue('policy.updated', v, index, buildPolicyPayload(v.row.address, v.row));
      return;
    }
    case 'VaultPaused':
    case 'VaultResumed': {
      const paused = event.name === 'VaultPaused';
      const v = ctx.getVault(event.data.vault);
      if (v === undefined) return;
      ctx.applyFields(v, (row) => {
        row.paused = paused;
      });
      ctx.enqueue(paused ? 'vault.paused' : 'vault.resumed', v, index, ctx.vaultObject(v));
      return;
    }
    case 'FeeTreasuryInitialized':
    case 'FeesWithdrawn':
      return; // the treasury is not a projected resource: the raw event log keeps them
  }
}
