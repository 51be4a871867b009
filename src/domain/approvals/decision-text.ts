// What the owner reads in a Blink and after deciding: titles, the blocked transfer, why it is disabled.
import { formatSol } from '../../lib/lamports.js';
import type { OverrideStatus } from '../../storage/schema/overrides.js';
import { isPastExpiry } from '../overrides/override-lifecycle.js';

/** The facts about an override that its texts need. */
export interface OverrideFacts {
  vaultAddress: string;
  vaultName: string;
  nonce: bigint;
  destination: string;
  amount: bigint;
  reason: string | null;
  status: OverrideStatus;
  expiresAt: Date;
}

export const ACTION_TITLE = 'Approve Transaction Override';
export const APPROVE_LABEL = 'Approve';
export const REJECT_LABEL = 'Reject';
export const APPROVED_MESSAGE = 'Override approved. Transaction will execute automatically.';
export const REJECTED_MESSAGE = 'Override rejected.';

const REASONS: Readonly<Record<string, string>> = {
  not_whitelisted: "the destination is not on the vault's whitelist",
  exceeded_daily_limit: "it would exceed the vault's daily spending limit",
  insufficient_funds: 'the vault did not hold enough SOL',
};

export function describeReason(reason: string | null): string {
  return (reason !== null ? REASONS[reason] : undefined) ?? "it broke the vault's spending policy";
}

export function describeAmount(amount: bigint): string {
  return `${formatSol(amount)} SOL (${amount} lamports)`;
}

function vaultLabel(facts: Pick<OverrideFacts, 'vaultAddress' | 'vaultName'>): string {
  return facts.vaultName.trim() === '' ? `Vault ${facts.vaultAddress}` : `Vault "${facts.vaultName}"`;
}

/** "42 minutes", "1 hour 5 minutes", "less than a minute". */
export function describeDuration(ms: number): string {
  const minutes = Math.floor(Math.abs(ms) / 60_000);
  if (minutes < 1) return 'less than a minute';
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (hours === 0) return unit(rest, 'minute');
  return rest === 0 ? unit(hours, 'hour') : `${unit(hours, 'hour')} ${unit(rest, 'minute')}`;
}

export function isExpired(facts: Pick<OverrideFacts, 'expiresAt'>, now: Date): boolean {
  return isPastExpiry(facts.expiresAt, now);
}

/** Why the Blink's buttons are disabled, or null when the override can still be decided. */
export function describeUnavailable(facts: OverrideFacts, now: Date): string | null {
  switch (facts.status) {
    case 'approved':
      return 'This override was already approved; its transfer executes automatically.';
    case 'executed':
      return 'This override was already approved and its transfer executed.';
    case 'rejected':
      return 'This override was rejected; the transfer will not be sent.';
    case 'pending':
      return isExpired(facts, now)
        ? `This override expired at ${facts.expiresAt.toISOString()}; it can no longer be approved.`
        : null;
  }
}

export function describeOverride(facts: OverrideFacts, now: Date): string {
  const head = `${vaultLabel(facts)} blocked a transfer of ${describeAmount(facts.amount)} to ${facts.destination} because ${describeReason(facts.reason)}.`;
  const expiry = facts.expiresAt.toISOString();
  const left = facts.expiresAt.getTime() - now.getTime();
  if (facts.status !== 'pending') return `${head} ${describeUnavailable(facts, now)}`;
  if (left <= 0) return `${head} The request expired ${describeDuration(left)} ago (${expiry}).`;
  return `${head} Approve to send it now, or reject it. Expires in ${describeDuration(left)} (${expiry}).`;
}

/** The statement of the reject sign-message: only fields that never change, so it can be rebuilt. */
export function buildRejectStatement(
  facts: Pick<OverrideFacts, 'vaultAddress' | 'nonce' | 'amount' | 'destination'>,
): string {
  return `Reject override ${facts.nonce} of vault ${facts.vaultAddress}: the blocked transfer of ${describeAmount(facts.amount)} to ${facts.destination} will not be sent.`;
}

export function describeApproved(facts: OverrideFacts, signature: string): string {
  return `${vaultLabel(facts)} sent ${describeAmount(facts.amount)} to ${facts.destination}: you approved override ${facts.nonce} in transaction ${signature}.`;
}

export function describeRejected(facts: OverrideFacts): string {
  return `${vaultLabel(facts)} will not send ${describeAmount(facts.amount)} to ${facts.destination}: you rejected override ${facts.nonce}.`;
}
