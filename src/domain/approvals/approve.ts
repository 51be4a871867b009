// The approve flow of an override: the transaction, its preview and its confirmation. Each checks from the
// database who may decide before it asks the chain anything, and runs its RPC work under the caps of
// approval-limits.ts; identical previews share one simulation.
import { address } from '@solana/kit';
import { vaultTag } from '../../cache/tags.js';
import type { SlotHolder } from '../../lib/concurrency-slots.js';
import { PREVIEW_REUSE_SECONDS } from './approval-limits.js';
import { assertTransactionSignature, confirmApproval } from './approve-confirmation.js';
import { type TransactionPreview, toPreview } from './approve-preview.js';
import { type ActionAddress, blinkUrlOf, type DecisionContext, load } from './decision-context.js';
import type { CompletedAction, DecisionInput, TransactionResponse } from './decision-responses.js';
import { assertDecidable, assertDecider, factsOf } from './decision-rules.js';
import type { ActionOverride } from './decision-store.js';
import { APPROVED_MESSAGE, describeApproved } from './decision-text.js';

export async function approve(
  ctx: DecisionContext,
  at: ActionAddress,
  input: DecisionInput,
  holder: SlotHolder,
): Promise<TransactionResponse> {
  const target = await load(ctx, at);
  assertDecider(target, input);
  assertDecidable(target, ctx.deps.clock.now(), { approving: true });
  const { transaction } = await ctx.limits.simulations.run(holder, () =>
    ctx.approvals.buildApproveTransaction(approvalInput(target)),
  );
  ctx.deps.metrics.blinkActions.inc({ action: 'approve' });
  return {
    type: 'transaction',
    transaction,
    message: APPROVED_MESSAGE,
    links: { next: { type: 'post', href: blinkUrlOf(ctx, target, '/approve/confirm') } },
  };
}

/**
 * The simulated approve for `account`. Identical previews (the same request and account) share one
 * simulation while it runs and for PREVIEW_REUSE_SECONDS after; an event about the vault ends the reuse.
 */
export async function previewApprove(
  ctx: DecisionContext,
  at: ActionAddress,
  account: string,
  holder: SlotHolder,
): Promise<TransactionPreview> {
  const target = await load(ctx, at);
  assertDecider(target, { account, wallet: null });
  assertDecidable(target, ctx.deps.clock.now(), { approving: true });
  return ctx.deps.readCache.read(
    `approve-preview:${target.override.id}:${account}`,
    PREVIEW_REUSE_SECONDS,
    () => [vaultTag(target.vault.address)],
    () =>
      ctx.limits.simulations.run(holder, async () => {
        const { outcome, roles } = await ctx.approvals.previewApproveTransaction(approvalInput(target));
        return toPreview(outcome, roles);
      }),
  );
}

export async function confirmApprove(
  ctx: DecisionContext,
  at: ActionAddress,
  input: { account: string; signature: string },
  holder: SlotHolder,
): Promise<CompletedAction> {
  assertTransactionSignature(input.signature);
  const target = await load(ctx, at);
  // Only the authority's approval can confirm: refused before any RPC call.
  assertDecider(target, { account: input.account, wallet: null });
  await ctx.limits.confirms.run(holder, async () => {
    const { vault, override } = target;
    const linkedOverride =
      override.chainNonce === null
        ? null
        : (
            await ctx.deps.chain.findPendingOverrideAddress(
              address(ctx.deps.config.programId),
              address(vault.address),
              override.chainNonce,
            )
          )[0];
    const approval = {
      vault: vault.address,
      authority: vault.authority,
      destination: override.destination,
      amount: override.amount,
      linkedOverride,
    };
    await confirmApproval(
      { chain: ctx.deps.landingChain, timeoutMs: ctx.deps.confirmTimeoutMs },
      approval,
      input,
    );
  });
  ctx.deps.metrics.blinkActions.inc({ action: 'approve_confirmed' });
  return {
    type: 'completed',
    icon: ctx.iconUrl,
    title: 'Override Approved',
    label: 'Approved',
    description: describeApproved(factsOf(target), input.signature),
  };
}

function approvalInput(target: ActionOverride) {
  return {
    vault: target.vault.address,
    authority: target.vault.authority,
    depositAddress: target.vault.depositAddress,
    chainNonce: target.override.chainNonce,
    destination: target.override.destination,
    amount: target.override.amount,
    reason: target.reason,
  };
}
