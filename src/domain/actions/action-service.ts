// Solana Actions (Blinks): the transport of an owner's decision. The metadata a wallet shows is here; the
// decisions themselves (approve, reject, their confirmations) are src/domain/approvals/.
import { createApprovalDecisions } from '../approvals/approval-decisions.js';
import {
  type ActionAddress,
  type ApprovalDecisionDeps,
  blinkUrlOf,
  type DecisionContext,
  load,
} from '../approvals/decision-context.js';
import type { ActionMetadata } from '../approvals/decision-responses.js';
import { factsOf } from '../approvals/decision-rules.js';
import {
  ACTION_TITLE,
  APPROVE_LABEL,
  describeOverride,
  describeUnavailable,
  REJECT_LABEL,
} from '../approvals/decision-text.js';
import { type BlinkViewCounter, createBlinkViewCounter } from './blink-views.js';
import { createBlockchainIdSource } from './blockchain-id.js';

export { ICON_PATH } from '../approvals/decision-context.js';
export type ActionServiceDeps = ApprovalDecisionDeps;
export type { ActionAddress };

export function createActionService(deps: ActionServiceDeps) {
  const blockchainId = createBlockchainIdSource({
    cluster: deps.config.cluster,
    getGenesisHash: (signal) => deps.rpc.getGenesisHash().send({ abortSignal: signal }),
  });
  const views = createBlinkViewCounter({ db: deps.storage.db, logger: deps.logger });
  const { context, ...decisions } = createApprovalDecisions(deps, { blockchainId });
  return {
    /** The X-Blockchain-Ids value of the configured cluster. */
    getBlockchainId: () => blockchainId.get(),
    /** Saves the view counts still in memory. */
    close: () => views.close(),
    getAction: (address: ActionAddress) => getAction(context, views, address),
    ...decisions,
  };
}

async function getAction(
  ctx: DecisionContext,
  views: BlinkViewCounter,
  address: ActionAddress,
): Promise<ActionMetadata> {
  const target = await load(ctx, address);
  const now = ctx.deps.clock.now();
  const facts = factsOf(target);
  const blinkUrl = blinkUrlOf(ctx, target);
  const unavailable = describeUnavailable(facts, now);
  views.add(target.override.id, blinkUrl, now);
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
