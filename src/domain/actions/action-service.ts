// Solana Actions (Blinks) for a blocked transfer: metadata, approve transaction, both reject flows.
import { evictVaults } from '../../cache/tags.js';
import type { SlotHolder } from '../../lib/concurrency-slots.js';
import { decodeBase58, verifyEd25519 } from '../../lib/ed25519.js';
import {
  type ActionAddress,
  type ActionContext,
  type ActionServiceDeps,
  blinkUrlOf,
  load,
} from './action-context.js';
import { assertDecidable, assertDecider, factsOf, refused } from './action-rules.js';
import { type ActionOverride, isNonceSpent, rejectOverride, type SpentNonce } from './action-store.js';
import {
  ACTION_TITLE,
  APPROVE_LABEL,
  buildRejectStatement,
  describeOverride,
  describeRejected,
  describeUnavailable,
  REJECT_LABEL,
  REJECTED_MESSAGE,
} from './action-text.js';
import type {
  ActionMetadata,
  CompletedAction,
  ConfirmRejectInput,
  DecisionInput,
  PostResponse,
  SignMessageResponse,
} from './action-types.js';
import { createApprovalLimits } from './approval-limits.js';
import { approve, confirmApprove, previewApprove } from './approve-actions.js';
import { createApprovalBuilder } from './approve-transaction.js';
import { createBlinkViewCounter } from './blink-views.js';
import { createBlockchainIdSource } from './blockchain-id.js';
import {
  buildSignMessageText,
  createActionNonce,
  createStateCodec,
  type SignMessageData,
} from './sign-message.js';

export type { ActionAddress, ActionServiceDeps };

/** How long a reject sign-message request may wait for the wallet's signature. */
const SIGN_MESSAGE_TTL_MS = 10 * 60_000;
/** A state may come from an instance whose clock runs this much ahead. */
const CLOCK_SKEW_MS = 60_000;

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

async function signMessageData(
  ctx: ActionContext,
  target: ActionOverride,
  account: string,
  nonce: string,
  issuedAt: string,
): Promise<SignMessageData> {
  return {
    domain: ctx.domain,
    address: account,
    statement: buildRejectStatement(factsOf(target)),
    nonce,
    issuedAt,
    chainId: await ctx.blockchainId.get(),
  };
}

async function finishRejection(
  ctx: ActionContext,
  target: ActionOverride,
  spend: SpentNonce | null,
  at: Date,
) {
  await rejectOverride(ctx.db, { target, spend, at, publicBaseUrl: ctx.baseUrl });
  ctx.deps.metrics.blinkActions.inc({ action: 'reject' });
  await evictVaults(ctx.deps.cache, [target.vault.address]);
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

async function reject(
  ctx: ActionContext,
  address: ActionAddress,
  input: DecisionInput,
): Promise<PostResponse | SignMessageResponse> {
  const target = await load(ctx, address);
  const now = ctx.deps.clock.now();
  assertDecider(target, input);
  assertDecidable(target, now, { approving: false });
  if (input.wallet !== null) {
    await finishRejection(ctx, target, null, now);
    return { type: 'post', message: REJECTED_MESSAGE };
  }
  const nonce = createActionNonce();
  const issuedAt = now.toISOString();
  ctx.deps.metrics.blinkActions.inc({ action: 'reject_request' });
  const state = { nonce, overrideId: target.override.id, account: input.account, issuedAt };
  return {
    type: 'message',
    data: await signMessageData(ctx, target, input.account, nonce, issuedAt),
    state: ctx.stateCodec.encode(state),
    links: { next: { type: 'post', href: blinkUrlOf(ctx, target, '/reject/confirm') } },
  };
}

async function confirmReject(
  ctx: ActionContext,
  address: ActionAddress,
  input: ConfirmRejectInput,
): Promise<CompletedAction> {
  const target = await load(ctx, address);
  const now = ctx.deps.clock.now();
  const { nonce, issuedAt, issuedMs, expiresAt } = checkRejectState(ctx, address, target, input, now);
  const expected = buildSignMessageText(await signMessageData(ctx, target, input.account, nonce, issuedAt));
  const signed = typeof input.data === 'string' ? input.data : buildSignMessageText(input.data);
  if (signed !== expected) throw refused('wrong_message');
  const signature = decodeBase58(input.signature);
  if (signature === null || signature.length !== 64) throw refused('malformed');
  if (!(await verifyEd25519(input.account, Buffer.from(expected, 'utf8'), signature))) {
    throw refused('bad_signature');
  }
  if (await isNonceSpent(ctx.db, nonce)) throw refused('replayed');
  assertDecider(target, { account: input.account, wallet: null });
  assertDecidable(target, now, { approving: false });
  const spend = { nonce, account: input.account, issuedAt: new Date(issuedMs), expiresAt };
  await finishRejection(ctx, target, spend, now);
  return {
    type: 'completed',
    icon: ctx.iconUrl,
    title: 'Override Rejected',
    label: 'Rejected',
    description: describeRejected(factsOf(target)),
  };
}

/** The state the reject request issued: readable, for this override and account, and not expired. */
function checkRejectState(
  ctx: ActionContext,
  address: ActionAddress,
  target: ActionOverride,
  input: ConfirmRejectInput,
  now: Date,
) {
  const issued = ctx.stateCodec.parse(input.state);
  if (issued === null) throw refused('bad_state');
  const { nonce, issuedAt } = issued;
  const fields = { nonce, overrideId: target.override.id, account: input.account, issuedAt };
  if (!ctx.stateCodec.verify(input.state, fields)) {
    // Without a shared secret another instance may have issued it: the signature below decides.
    if (ctx.stateCodec.shared) throw refused('bad_state');
    ctx.deps.logger.debug({ vault: address.vault }, 'action state issued by another instance');
  }
  const issuedMs = new Date(issuedAt).getTime();
  if (issuedMs > now.getTime() + CLOCK_SKEW_MS) throw refused('bad_state');
  const expiresAt = new Date(issuedMs + SIGN_MESSAGE_TTL_MS);
  if (expiresAt.getTime() <= now.getTime()) throw refused('expired');
  return { nonce, issuedAt, issuedMs, expiresAt };
}

export type ActionService = ReturnType<typeof createActionService>;
