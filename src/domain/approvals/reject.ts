// The reject flows of an override: at once with wallet-auth headers, or by a signed message
// in two steps (the request hands out a statement and a state; the confirmation checks both and the signature).
import { evictVaults } from '../../cache/tags.js';
import { decodeBase58, verifyEd25519 } from '../../lib/ed25519.js';
import type { AuditStamp } from '../audit/audit-service.js';
import { type ActionAddress, blinkUrlOf, type DecisionContext, load } from './decision-context.js';
import type {
  CompletedAction,
  ConfirmRejectInput,
  DecisionInput,
  PostResponse,
  SignMessageResponse,
} from './decision-responses.js';
import { assertDecidable, assertDecider, factsOf, refused } from './decision-rules.js';
import { type ActionOverride, isNonceSpent, rejectOverride, type SpentNonce } from './decision-store.js';
import { buildRejectStatement, describeRejected, REJECTED_MESSAGE } from './decision-text.js';
import { buildSignMessageText, createActionNonce, type SignMessageData } from './sign-message.js';

/** How long a reject sign-message request may wait for the wallet's signature. */
const SIGN_MESSAGE_TTL_MS = 10 * 60_000;
/** A state may come from an instance whose clock runs this much ahead. */
const CLOCK_SKEW_MS = 60_000;

async function signMessageData(
  ctx: DecisionContext,
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
  ctx: DecisionContext,
  address: ActionAddress,
  target: ActionOverride,
  spend: SpentNonce | null,
  at: Date,
  stamp: AuditStamp | null,
) {
  // The audit entry's target names the override as the request did (docs/AUDIT.md).
  const audit = { stamp, target: `override:${address.vault}/${address.nonce}` };
  await rejectOverride(ctx.db, { target, spend, at, publicBaseUrl: ctx.baseUrl, audit });
  ctx.deps.metrics.blinkActions.inc({ action: 'reject' });
  await evictVaults(ctx.deps.cache, [target.vault.address]);
}

export async function reject(
  ctx: DecisionContext,
  address: ActionAddress,
  input: DecisionInput,
  stamp: AuditStamp | null = null,
): Promise<PostResponse | SignMessageResponse> {
  const target = await load(ctx, address);
  const now = ctx.deps.clock.now();
  assertDecider(target, input);
  assertDecidable(target, now, { approving: false });
  if (input.wallet !== null) {
    await finishRejection(ctx, address, target, null, now, stamp);
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

export async function confirmReject(
  ctx: DecisionContext,
  address: ActionAddress,
  input: ConfirmRejectInput,
  stamp: AuditStamp | null = null,
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
  await finishRejection(ctx, address, target, spend, now, stamp);
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
  ctx: DecisionContext,
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
