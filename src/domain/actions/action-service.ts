// Solana Actions (Blinks) for a blocked transfer: metadata here, the approve flow in approve-actions.ts
// and the reject flows in reject-actions.ts.
import type { SlotHolder } from '../../lib/concurrency-slots.js';
import {
  type ActionAddress,
  type ActionContext,
  type ActionServiceDeps,
  blinkUrlOf,
  load,
} from './action-context.js';
import { factsOf } from './action-rules.js';
import {
  ACTION_TITLE,
  APPROVE_LABEL,
  describeOverride,
  describeUnavailable,
  REJECT_LABEL,
} from './action-text.js';
import type { ActionMetadata, ConfirmRejectInput, DecisionInput } from './action-types.js';
import { createApprovalLimits } from './approval-limits.js';
import { approve, confirmApprove, previewApprove } from './approve-actions.js';
import { createApprovalBuilder } from './approve-transaction.js';
import { createBlinkViewCounter } from './blink-views.js';
import { createBlockchainIdSource } from './blockchain-id.js';
import { confirmReject, reject } from './reject-actions.js';
import { createStateCodec } from './sign-message.js';

export type { ActionAddress, ActionServiceDeps };

export const ICON_PATH = '/api/actions/icon.svg';

export function createActionService(deps: ActionServiceDeps) {
  const { db } = deps.storage;
  const baseUrl = deps.config.publicBaseUrl;
  const ctx: ActionContext = {
    deps,
    db,
    baseUrl,
    iconUrl: `${baseUrl}${ICON_PATH}`,
    domain: new URL(baseUrl).host,
    stateCodec: createStateCodec(deps.config.actionsStateSecret),
    blockchainId: createBlockchainIdSource({
      cluster: deps.config.cluster,
      getGenesisHash: (signal) => deps.rpc.getGenesisHash().send({ abortSignal: signal }),
    }),
    views: createBlinkViewCounter({ db, logger: deps.logger }),
    approvals: createApprovalBuilder({
      rpc: deps.rpc,
      chain: deps.chain,
      programId: deps.config.programId,
      now: () => deps.clock.now(),
      landing: deps.landing,
    }),
    limits: createApprovalLimits(deps),
  };
  return {
    /** The X-Blockchain-Ids value of the configured cluster. */
    getBlockchainId: () => ctx.blockchainId.get(),
    /** Saves the view counts still in memory. */
    close: () => ctx.views.close(),
    getAction: (address: ActionAddress) => getAction(ctx, address),
    /**
     * Builds the approving transaction from the chain's current state; stores nothing. `holder` is the
     * client it is counted against (the RPC work caps of approval-limits.ts), here and below.
     */
    approve: (at: ActionAddress, input: DecisionInput, holder: SlotHolder) => approve(ctx, at, input, holder),
    /** What the owner would sign: the approve transaction for `account`, simulated. */
    previewApprove: (at: ActionAddress, account: string, holder: SlotHolder) =>
      previewApprove(ctx, at, account, holder),
    /** Action chaining: the signature the wallet sent, read from the cluster → a completed Action. */
    confirmApprove: (at: ActionAddress, input: { account: string; signature: string }, holder: SlotHolder) =>
      confirmApprove(ctx, at, input, holder),
    /** Approval confirmations and simulations running now, all clients together. */
    openApprovalWork: () => ({
      confirms: ctx.limits.confirms.open(),
      simulations: ctx.limits.simulations.open(),
    }),
    /** With wallet-auth headers: rejects at once. Without: asks the wallet to sign a message (stores nothing). */
    reject: (address: ActionAddress, input: DecisionInput) => reject(ctx, address, input),
    /** Second step of the sign-message flow: verifies the wallet's signature, then rejects. */
    confirmReject: (address: ActionAddress, input: ConfirmRejectInput) => confirmReject(ctx, address, input),
  };
}

async function getAction(ctx: ActionContext, address: ActionAddress): Promise<ActionMetadata> {
  const target = await load(ctx, address);
  const now = ctx.deps.clock.now();
  const facts = factsOf(target);
  const blinkUrl = blinkUrlOf(ctx, target);
  const unavailable = describeUnavailable(facts, now);
  ctx.views.add(target.override.id, blinkUrl, now);
  ctx.deps.metrics.blinkActions.inc({ action: 'view' });
  return {
    type: 'action',
    icon: ctx.iconUrl,
    title: ACTION_TITLE,
    description: describeOverride(facts, now),
    label: APPROVE_LABEL,
    links: {
      actions: [
        { type: 'transaction', label: APPROVE_LABEL, href: blinkUrlOf(ctx, target, '/approve') },
        { type: 'message', label: REJECT_LABEL, href: blinkUrlOf(ctx, target, '/reject') },
      ],
    },
    ...(unavailable === null ? {} : { disabled: true, error: { message: unavailable } }),
  };
}

export type ActionService = ReturnType<typeof createActionService>;
