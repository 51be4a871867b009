// Webhook `data` objects (docs/WEBHOOKS.md, Events), built at enqueue time from the projected rows with the
// read API's own serializers, so a webhook shows a resource exactly as the API does.
import type { SolanaCluster } from '../../config.js';
import type { OverrideRow, TransactionRow } from '../../storage/schema/index.js';
import { buildApprovalUrl, buildBlinkUrl, toOverrideResource } from '../overrides/override-resource.js';
import { toTransactionResource } from '../transactions/transaction-resource.js';
import { toVaultDetail, type VaultRecord } from '../vaults/vault-resource.js';

export { buildApprovalUrl, buildBlinkUrl };

export interface PayloadLinks {
  readonly publicBaseUrl: string;
  readonly cluster: SolanaCluster;
}

/** `vault.created` / `vault.paused` / `vault.resumed`: `{ vault }` plus the vault object. */
export function buildVaultPayload(row: VaultRecord) {
  return { vault: row.address, ...toVaultDetail(row) };
}

/** `policy.updated`: the new policy values. */
export function buildPolicyPayload(
  vault: string,
  policy: { dailyLimit: bigint; whitelistCount: number; agentSigner: string },
) {
  return {
    vault,
    dailyLimit: policy.dailyLimit.toString(),
    whitelistCount: policy.whitelistCount,
    agentSigner: policy.agentSigner,
  };
}

/** `transaction.executed`: the transaction object (as a transaction list item). */
export function buildTransactionPayload(row: TransactionRow, vault: string, links: PayloadLinks) {
  return toTransactionResource(
    { ...row, vaultAddress: vault, overrideNonce: null, overrideTransfer: null },
    links,
  );
}

export interface OverrideLinks {
  blinkUrl: string;
  approvalUrl: string;
}

/**
 * `transaction.blocked`, as the specification lists it, plus the attempt's signature and the override's
 * approval page (both links null when the program asked for no override).
 */
export function buildBlockedPayload(
  row: TransactionRow,
  vault: string,
  links: OverrideLinks | null,
  signature: string,
) {
  return {
    vault,
    destination: row.destination,
    amount: row.amount.toString(),
    blockReason: row.blockReason,
    blinkUrl: links?.blinkUrl ?? null,
    approvalUrl: links?.approvalUrl ?? null,
    signature,
  };
}

/** `override.*`: the override object with its vault address and Blink URL; `expired` as of `at`. */
export function buildOverridePayload(row: OverrideRow, vault: string, publicBaseUrl: string, at: Date) {
  return toOverrideResource({ ...row, vaultAddress: vault }, { publicBaseUrl, now: at });
}
