// What approving costs the owner's wallet, in parts that add up to its balance change: the network and
// priority fees and, when the transaction creates the on-chain override, that account's rent.
import type { TransactionPreview } from '@vaultkeeper/client';

/** Bytes of the vault program's PendingOverride account, which create_override opens and the payer funds. */
export const PENDING_OVERRIDE_BYTES = 131;

/**
 * The rent-exempt minimum the chain demands of a new account, as its Rent sysvar computes it:
 * (128 bytes of account overhead + data) × 3 480 lamports per byte-year × 2 years.
 */
export function rentExemptMinimum(dataBytes: number): bigint {
  return (128n + BigInt(dataBytes)) * 3_480n * 2n;
}

export interface ApprovalCosts {
  /** Network fee plus priority fee. */
  fees: bigint;
  /** The override account's rent, when this transaction creates it (else 0). */
  rent: bigint;
  /** What the wallet pays in all: fees + rent. */
  total: bigint;
}

/** The owner's costs of the previewed approve, from its instructions and fees. */
export function approvalCosts(preview: TransactionPreview): ApprovalCosts {
  const fees = BigInt(preview.networkFeeLamports) + BigInt(preview.priorityFeeLamports);
  const rent = preview.instructions.includes('create_override')
    ? rentExemptMinimum(PENDING_OVERRIDE_BYTES)
    : 0n;
  return { fees, rent, total: fees + rent };
}

/**
 * Why the wallet pays more than the fees, and for how long. The program has no instruction that closes a
 * PendingOverride (execute_approved_override only marks it executed, and cannot pay the owner back: the
 * owner's account is not writable there), so the rent stays in that account.
 */
export function rentExplanation(
  costs: ApprovalCosts,
  formatSol: (lamports: bigint) => string,
): string | null {
  if (costs.rent === 0n) return null;
  return (
    `Your wallet pays ${formatSol(costs.total)}: ${formatSol(costs.fees)} in fees and ${formatSol(costs.rent)} ` +
    `of rent for the override account that create_override opens on-chain (PendingOverride, ${PENDING_OVERRIDE_BYTES} bytes, ` +
    'the rent-exempt minimum). The rent does not come back: the vault program never closes that account, ' +
    'so the lamports stay locked in it after the transfer executes.'
  );
}
