// Who may decide an override and when: the checks shared by approve and both reject flows.
import { AppError, validationError } from '../../errors.js';
import { U64_MAX } from '../../lib/lamports.js';
import { assertOverrideDecidable } from '../overrides/override-lifecycle.js';
import type { DecisionInput } from './decision-responses.js';
import type { ActionOverride } from './decision-store.js';
import type { OverrideFacts } from './decision-text.js';

export type SignatureFailure =
  | 'bad_state'
  | 'replayed'
  | 'expired'
  | 'wrong_message'
  | 'malformed'
  | 'bad_signature';
const SIGNATURE_FAILURES: Record<SignatureFailure, string> = {
  bad_state: 'The sign-message state is not valid for this override and account',
  replayed: 'This signature request was already used',
  expired: 'This signature request has expired; start the rejection again',
  wrong_message: 'The signed message is not the one this service asked to sign',
  malformed: 'Signature must be base58 of 64 bytes',
  bad_signature: 'Signature does not verify for this account and message',
};
export const refused = (reason: SignatureFailure) =>
  new AppError('UNAUTHORIZED', SIGNATURE_FAILURES[reason], { reason });

export function parseOverrideNonce(text: string): bigint {
  const value = /^\d{1,20}$/.test(text) ? BigInt(text) : null;
  if (value === null || value > U64_MAX) {
    throw validationError([{ path: 'params.nonce', message: 'must be an unsigned 64-bit decimal integer' }]);
  }
  return value;
}

export function factsOf(target: ActionOverride): OverrideFacts {
  return {
    vaultAddress: target.vault.address,
    vaultName: target.vault.name,
    nonce: target.override.nonce,
    destination: target.override.destination,
    amount: target.override.amount,
    reason: target.reason,
    status: target.override.status,
    expiresAt: target.override.expiresAt,
  };
}

/** Headers, when sent, must prove `account`; and only the vault's authority decides. */
export function assertDecider(target: ActionOverride, input: DecisionInput): void {
  if (input.wallet !== null && input.wallet !== input.account) {
    throw new AppError('UNAUTHORIZED', 'X-Wallet-Address must be the account in the body', {
      reason: 'account_mismatch',
    });
  }
  if (input.account !== target.vault.authority) {
    throw new AppError('FORBIDDEN', 'Only the vault authority can approve or reject this override', {
      account: input.account,
    });
  }
}

/** The lifecycle's rule (overrides/override-lifecycle.ts) applied to a Blink's target. */
export function assertDecidable(target: ActionOverride, now: Date, options: { approving: boolean }): void {
  assertOverrideDecidable(target.override, now, options);
}
