// Solana Actions (Blinks) for a blocked transfer: metadata, approve transaction, both reject flows.
import type { GetGenesisHashApi, Rpc } from '@solana/kit';
import { evictVaults } from '../../cache/tags.js';
import type { Config } from '../../config.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { decodeBase58, verifyEd25519 } from '../../lib/ed25519.js';
import type { Database } from '../../storage/database.js';
import { buildBlinkUrl } from '../overrides/override-resource.js';
import { assertDecidable, assertDecider, factsOf, parseOverrideNonce, refused } from './action-rules.js';
import {
  type ActionOverride,
  findActionNonce,
  findActionOverride,
  insertActionNonce,
  recordBlinkUse,
  rejectOverride,
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

  async function load(vaultAddress: string, nonceText: string): Promise<ActionOverride> {
    const nonce = parseOverrideNonce(nonceText);
    const found = await findActionOverride(db, vaultAddress, nonce);
    if (found.vault === null)
      throw new AppError('VAULT_NOT_FOUND', 'Vault not found', { vault: vaultAddress });
    if (found.override === null) {
      throw new AppError('OVERRIDE_NOT_FOUND', 'Override not found', {
        vault: vaultAddress,
        nonce: nonce.toString(),
      });
    }
    return { vault: found.vault, override: found.override, reason: found.reason };
  }

  const blinkUrlOf = (t: ActionOverride) => buildBlinkUrl(baseUrl, t.vault.address, t.override.nonce);

  async function countApproval(target: ActionOverride, at: Date) {
    await recordBlinkUse(db, { overrideId: target.override.id, url: blinkUrlOf(target), use: 'approve', at });
    deps.metrics.blinkActions.inc({ action: 'approve' });
  }

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

  async function finishRejection(target: ActionOverride, spendNonce: string | null, at: Date) {
    await rejectOverride(db, { target, spendNonce, at, publicBaseUrl: baseUrl });
    deps.metrics.blinkActions.inc({ action: 'reject' });
    await evictVaults(deps.cache, [target.vault.address]);
  }

  return {
    /** The X-Blockchain-Ids value of the configured cluster. */
    getBlockchainId: () => blockchainId.get(),
    /** Saves the view counts still in memory. */
    close: () => views.close(),

    async getAction(vaultAddress: string, nonceText: string): Promise<ActionMetadata> {
      const target = await load(vaultAddress, nonceText);
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
            { type: 'transaction', label: APPROVE_LABEL, href: `${blinkUrl}/approve` },
            { type: 'message', label: REJECT_LABEL, href: `${blinkUrl}/reject` },
          ],
        },
        ...(unavailable === null ? {} : { disabled: true, error: { message: unavailable } }),
      };
    },

    async approve(
      vaultAddress: string,
      nonceText: string,
      input: DecisionInput,
    ): Promise<TransactionResponse> {
      const target = await load(vaultAddress, nonceText);
      const now = deps.clock.now();
      assertDecider(target, input);
      assertDecidable(target, now, { approving: true });
      const { transaction } = await approvals.buildApproveTransaction({
        vault: target.vault.address,
        authority: target.vault.authority,
        depositAddress: target.vault.depositAddress,
        vaultNonce: target.vault.vaultNonce,
        overrideNonce: target.override.nonce,
        destination: target.override.destination,
        amount: target.override.amount,
        reason: target.reason,
      });
      await countApproval(target, now);
      return { type: 'transaction', transaction, message: APPROVED_MESSAGE };
    },

    /** With wallet-auth headers: rejects at once. Without: asks the wallet to sign a message. */
    async reject(
      vaultAddress: string,
      nonceText: string,
      input: DecisionInput,
    ): Promise<PostResponse | SignMessageResponse> {
      const target = await load(vaultAddress, nonceText);
      const now = deps.clock.now();
      assertDecider(target, input);
      assertDecidable(target, now, { approving: false });
      if (input.wallet !== null) {
        await finishRejection(target, null, now);
        return { type: 'post', message: REJECTED_MESSAGE };
      }
      const nonce = createActionNonce();
      const issuedAt = now.toISOString();
      await insertActionNonce(db, {
        nonce,
        overrideId: target.override.id,
        account: input.account,
        issuedAt: now,
        expiresAt: new Date(now.getTime() + SIGN_MESSAGE_TTL_MS),
      });
      deps.metrics.blinkActions.inc({ action: 'reject_request' });
      return {
        type: 'message',
        data: await signMessageData(target, input.account, nonce, issuedAt),
        state: stateCodec.encode({ nonce, overrideId: target.override.id, account: input.account, issuedAt }),
        links: { next: { type: 'post', href: `${blinkUrlOf(target)}/reject/confirm` } },
      };
    },

    /** Second step of the sign-message flow: verifies the wallet's signature, then rejects. */
    async confirmReject(
      vaultAddress: string,
      nonceText: string,
      input: ConfirmRejectInput,
    ): Promise<CompletedAction> {
      const target = await load(vaultAddress, nonceText);
      const now = deps.clock.now();
      const nonce = stateCodec.parseNonce(input.state);
      const issued = nonce === null ? null : await findActionNonce(db, nonce);
      if (issued === null || issued.overrideId !== target.override.id || issued.account !== input.account) {
        throw refused('bad_state');
      }
      const issuedAt = issued.createdAt.toISOString();
      const fields = {
        nonce: issued.nonce,
        overrideId: issued.overrideId,
        account: issued.account,
        issuedAt,
      };
      if (!stateCodec.verify(input.state, fields)) {
        // Without a shared secret another instance may have issued it: the nonce row decides.
        if (stateCodec.shared) throw refused('bad_state');
        deps.logger.debug({ vault: vaultAddress }, 'action state issued by another instance');
      }
      if (issued.usedAt !== null) throw refused('replayed');
      if (issued.expiresAt.getTime() <= now.getTime()) throw refused('expired');
      const expected = buildSignMessageText(
        await signMessageData(target, issued.account, issued.nonce, issuedAt),
      );
      const signed = typeof input.data === 'string' ? input.data : buildSignMessageText(input.data);
      if (signed !== expected) throw refused('wrong_message');
      const signature = decodeBase58(input.signature);
      if (signature === null || signature.length !== 64) throw refused('malformed');
      if (!(await verifyEd25519(input.account, Buffer.from(expected, 'utf8'), signature))) {
        throw refused('bad_signature');
      }
      assertDecider(target, { account: input.account, wallet: null });
      assertDecidable(target, now, { approving: false });
      await finishRejection(target, issued.nonce, now);
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
