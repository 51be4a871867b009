// The owner's decision on an override: approve (the transaction, its preview, its confirmation) and reject
// (at once, or by a signed message in two steps). The Blink (src/domain/actions/) is one transport of them.
import type { SlotHolder } from '../../lib/concurrency-slots.js';
import type { AuditStamp } from '../audit/audit-service.js';
import { createApprovalLimits } from './approval-limits.js';
import { approve, confirmApprove, previewApprove } from './approve.js';
import { createApprovalBuilder } from './approve-transaction.js';
import {
  type ActionAddress,
  type ApprovalDecisionDeps,
  type DecisionContext,
  ICON_PATH,
} from './decision-context.js';
import type { ConfirmRejectInput, DecisionInput } from './decision-responses.js';
import { confirmReject, reject } from './reject.js';
import { createStateCodec } from './sign-message.js';

export function createApprovalDecisions(
  deps: ApprovalDecisionDeps,
  transport: { blockchainId: DecisionContext['blockchainId'] },
) {
  const baseUrl = deps.config.publicBaseUrl;
  const ctx: DecisionContext = {
    deps,
    db: deps.storage.db,
    baseUrl,
    iconUrl: `${baseUrl}${ICON_PATH}`,
    domain: new URL(baseUrl).host,
    stateCodec: createStateCodec(deps.config.actionsStateSecret),
    blockchainId: transport.blockchainId,
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
    /** What the flows share; the Blink's metadata reads overrides through it. */
    context: ctx,
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
    reject: (address: ActionAddress, input: DecisionInput, audit?: AuditStamp | null) =>
      reject(ctx, address, input, audit),
    /** Second step of the sign-message flow: verifies the wallet's signature, then rejects. */
    confirmReject: (address: ActionAddress, input: ConfirmRejectInput, audit?: AuditStamp | null) =>
      confirmReject(ctx, address, input, audit),
  };
}

export type ApprovalDecisions = ReturnType<typeof createApprovalDecisions>;
