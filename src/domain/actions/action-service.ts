// Solana Actions (Blinks) for a blocked transfer: metadata, approve transaction, both reject flows.
import type { GetGenesisHashApi, Rpc } from '@solana/kit';
import { evictVaults } from '../../cache/tags.js';
import type { Config } from '../../config.js';
import type { Clock } from '../../lib/clock.js';
import { decodeBase58, verifyEd25519 } from '../../lib/ed25519.js';
import type { Database } from '../../storage/database.js';
import { overrideNotFound } from '../overrides/override-reads.js';
import { buildBlinkUrl } from '../overrides/override-resource.js';
import { vaultNotFound } from '../vaults/vault-reads.js';
import { assertDecidable, assertDecider, factsOf, parseOverrideNonce, refused } from './action-rules.js';
import {
  type ActionOverride,
  findActionOverride,
  isNonceSpent,
  rejectOverride,
  type SpentNonce,
} from './action-store.js';
import {
  ACTION_TITLE,
  APPROVE_LABEL,
  APPROVED_MESSAGE,
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
  TransactionResponse,
} from './action-types.js';
import { type ApprovalChain, type ApprovalRpc, createApprovalBuilder } from './approve-transaction.js';
import { createBlinkViewCounter } from './blink-views.js';
import { createBlockchainIdSource } from './blockchain-id.js';
import {
  buildSignMessageText,
  createActionNonce,
  createStateCodec,
  type SignMessageData,
} from './sign-message.js';

/** How long a reject sign-message request may wait for the wallet's signature. */
const SIGN_MESSAGE_TTL_MS = 10 * 60_000;
/** A state may come from an instance whose clock runs this much ahead. */
const CLOCK_SKEW_MS = 60_000;

/** How a request is addressed: its vault and nonce, and the transfer's signature for all but the first. */
export interface ActionAddress {
  vault: string;
  nonce: string;
  transfer?: string | undefined;
}
export const ICON_PATH = '/api/actions/icon.svg';

export interface ActionServiceDeps {
  readonly storage: { readonly db: Database };
  readonly cache: { deleteByTag(...tags: string[]): Promise<void> };
  readonly clock: Clock;
  readonly logger: { debug(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  readonly metrics: { readonly blinkActions: { inc(labels: { action: string }): void } };
  readonly rpc: ApprovalRpc & Rpc<GetGenesisHashApi>;
  readonly config: Pick<Config, 'publicBaseUrl' | 'cluster' | 'programId' | 'actionsStateSecret'>;
  readonly chain: ApprovalChain;
}

export function createActionService(deps: ActionServiceDeps) {
  const { db } = deps.storage;
  const baseUrl = deps.config.publicBaseUrl;
  const iconUrl = `${baseUrl}${ICON_PATH}`;
  const domain = new URL(baseUrl).host;
  const stateCodec = createStateCodec(deps.config.actionsStateSecret);
  const blockchainId = createBlockchainIdSource({
    cluster: deps.config.cluster,
    getGenesisHash: (signal) => deps.rpc.getGenesisHash().send({ abortSignal: signal }),
  });
  const views = createBlinkViewCounter({ db, logger: deps.logger });
  const approvals = createApprovalBuilder({
    rpc: deps.rpc,
    chain: deps.chain,
    programId: deps.config.programId,
    now: () => deps.clock.now(),
  });

  async function load(address: ActionAddress): Promise<ActionOverride> {
    const nonce = parseOverrideNonce(address.nonce);
    const found = await findActionOverride(db, address.vault, nonce, address.transfer);
    if (found.vault === null) throw vaultNotFound(address.vault);
    if (found.override === null) throw overrideNotFound(address.vault, nonce, address.transfer);
    return { vault: found.vault, override: found.override, reason: found.reason };
  }

  /** The request's Blink URL (its canonical address), or of one of its actions with `action`. */
  const blinkUrlOf = (t: ActionOverride, action = '') =>
    buildBlinkUrl(
      baseUrl,
      { vault: t.vault.address, nonce: t.override.nonce, transfer: t.override.addressSignature },
      action,
    );

  async function signMessageData(target: ActionOverride, account: string, nonce: string, issuedAt: string) {
    const data: SignMessageData = {
      domain,
      address: account,
      statement: buildRejectStatement(factsOf(target)),
      nonce,
      issuedAt,
      chainId: await blockchainId.get(),
    };
    return data;
  }

  async function finishRejection(target: ActionOverride, spend: SpentNonce | null, at: Date) {
    await rejectOverride(db, { target, spend, at, publicBaseUrl: baseUrl });
    deps.metrics.blinkActions.inc({ action: 'reject' });
    await evictVaults(deps.cache, [target.vault.address]);
  }

  return {
    /** The X-Blockchain-Ids value of the configured cluster. */
    getBlockchainId: () => blockchainId.get(),
    /** Saves the view counts still in memory. */
    close: () => views.close(),

    async getAction(address: ActionAddress): Promise<ActionMetadata> {
      const target = await load(address);
      const now = deps.clock.now();
      const facts = factsOf(target);
      const blinkUrl = blinkUrlOf(target);
      const unavailable = describeUnavailable(facts, now);
      views.add(target.override.id, blinkUrl, now);
      deps.metrics.blinkActions.inc({ action: 'view' });
      return {
        type: 'action',
        icon: iconUrl,
        title: ACTION_TITLE,
        description: describeOverride(facts, now),
        label: APPROVE_LABEL,
        links: {
          actions: [
            { type: 'transaction', label: APPROVE_LABEL, href: blinkUrlOf(target, '/approve') },
            { type: 'message', label: REJECT_LABEL, href: blinkUrlOf(target, '/reject') },
          ],
        },
        ...(unavailable === null ? {} : { disabled: true, error: { message: unavailable } }),
      };
    },

    /** Builds the approving transaction from the chain's current state; stores nothing. */
    async approve(address: ActionAddress, input: DecisionInput): Promise<TransactionResponse> {
      const target = await load(address);
      const now = deps.clock.now();
      assertDecider(target, input);
      assertDecidable(target, now, { approving: true });
      const { transaction } = await approvals.buildApproveTransaction({
        vault: target.vault.address,
        authority: target.vault.authority,
        depositAddress: target.vault.depositAddress,
        chainNonce: target.override.chainNonce,
        destination: target.override.destination,
        amount: target.override.amount,
        reason: target.reason,
      });
      deps.metrics.blinkActions.inc({ action: 'approve' });
      return { type: 'transaction', transaction, message: APPROVED_MESSAGE };
    },

    /** With wallet-auth headers: rejects at once. Without: asks the wallet to sign a message (stores nothing). */
    async reject(address: ActionAddress, input: DecisionInput): Promise<PostResponse | SignMessageResponse> {
      const target = await load(address);
      const now = deps.clock.now();
      assertDecider(target, input);
      assertDecidable(target, now, { approving: false });
      if (input.wallet !== null) {
        await finishRejection(target, null, now);
        return { type: 'post', message: REJECTED_MESSAGE };
      }
      const nonce = createActionNonce();
      const issuedAt = now.toISOString();
      deps.metrics.blinkActions.inc({ action: 'reject_request' });
      return {
        type: 'message',
        data: await signMessageData(target, input.account, nonce, issuedAt),
        state: stateCodec.encode({ nonce, overrideId: target.override.id, account: input.account, issuedAt }),
        links: { next: { type: 'post', href: blinkUrlOf(target, '/reject/confirm') } },
      };
    },

    /** Second step of the sign-message flow: verifies the wallet's signature, then rejects. */
    async confirmReject(address: ActionAddress, input: ConfirmRejectInput): Promise<CompletedAction> {
      const target = await load(address);
      const now = deps.clock.now();
      const issued = stateCodec.parse(input.state);
      if (issued === null) throw refused('bad_state');
      const { nonce, issuedAt } = issued;
      const fields = { nonce, overrideId: target.override.id, account: input.account, issuedAt };
      if (!stateCodec.verify(input.state, fields)) {
        // Without a shared secret another instance may have issued it: the signature below decides.
        if (stateCodec.shared) throw refused('bad_state');
        deps.logger.debug({ vault: address.vault }, 'action state issued by another instance');
      }
      const issuedMs = new Date(issuedAt).getTime();
      if (issuedMs > now.getTime() + CLOCK_SKEW_MS) throw refused('bad_state');
      const expiresAt = new Date(issuedMs + SIGN_MESSAGE_TTL_MS);
      if (expiresAt.getTime() <= now.getTime()) throw refused('expired');
      const expected = buildSignMessageText(await signMessageData(target, input.account, nonce, issuedAt));
      const signed = typeof input.data === 'string' ? input.data : buildSignMessageText(input.data);
      if (signed !== expected) throw refused('wrong_message');
      const signature = decodeBase58(input.signature);
      if (signature === null || signature.length !== 64) throw refused('malformed');
      if (!(await verifyEd25519(input.account, Buffer.from(expected, 'utf8'), signature))) {
        throw refused('bad_signature');
      }
      if (await isNonceSpent(db, nonce)) throw refused('replayed');
      assertDecider(target, { account: input.account, wallet: null });
      assertDecidable(target, now, { approving: false });
      const spend = { nonce, account: input.account, issuedAt: new Date(issuedMs), expiresAt };
      await finishRejection(target, spend, now);
      return {
        type: 'completed',
        icon: iconUrl,
        title: 'Override Rejected',
        label: 'Rejected',
        description: describeRejected(factsOf(target)),
      };
    },
  };
}

export type ActionService = ReturnType<typeof createActionService>;
