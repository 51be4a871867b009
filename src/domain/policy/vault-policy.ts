// The vault program's spending rules, stated once: the daily window, the protocol fee, and the order in
// which an agent's transfer is refused, blocked or let through. Everything that judges a transfer (the
// pre-flight check, the budget, the policy preview's replay, the test validator's model of the program)
// uses these functions.
// Pure and exact: lamports and seconds are bigints, nothing goes through floating point.
import type { BlockReason } from '../transactions/transaction-resource.js';
import { WINDOW_SECONDS } from './program-limits.js';

const BASIS_POINTS = 10_000n;

/** The fields of a VaultConfig account the rules read. */
export interface VaultPolicy {
  readonly agentSigner: string;
  readonly dailyLimit: bigint;
  readonly spentToday: bigint;
  /** Unix seconds when the current window opened. */
  readonly lastReset: bigint;
  /** The active whitelist; empty means any destination. */
  readonly whitelist: readonly string[];
  readonly paused: boolean;
  readonly feeBasisPoints: number;
}

/** Why the program fails a transfer outright: no TransactionBlocked, nothing the owner can approve. */
export type RefusalReason = 'wrong_agent' | 'vault_paused';

export type TransferJudgement =
  | { readonly verdict: 'allowed'; readonly reason: null; readonly approval: 'none' }
  | { readonly verdict: 'blocked'; readonly reason: BlockReason; readonly approval: 'possible' | 'none' }
  | { readonly verdict: 'refused'; readonly reason: RefusalReason; readonly approval: 'none' };

export interface TransferRequest {
  readonly destination: string;
  readonly amount: bigint;
  /** The signer the agent would send with; omitted: the vault's agent signer is assumed. */
  readonly agent?: string | undefined;
}

/** Whether the window that opened at lastReset is over at `now` (the cluster's clock, unix seconds). */
export function isWindowLapsed(lastReset: bigint, now: bigint): boolean {
  return now - lastReset >= WINDOW_SECONDS;
}

/** isWindowLapsed in whole seconds held as numbers (exact below 2^53): a replay allocates no BigInt for it. */
export function isWindowLapsedSeconds(lastReset: number, now: number): boolean {
  return now - lastReset >= WINDOW_SECONDS_NUMBER;
}
const WINDOW_SECONDS_NUMBER = Number(WINDOW_SECONDS);

/** What the window has spent as of `now`: 0 once it has lapsed (the next transfer opens a new one). */
export function spentInWindow(vault: Pick<VaultPolicy, 'spentToday' | 'lastReset'>, now: bigint): bigint {
  return isWindowLapsed(vault.lastReset, now) ? 0n : vault.spentToday;
}

/** The running window as unix seconds, or null when it has lapsed. */
export function currentWindow(
  lastReset: bigint,
  now: bigint,
): { readonly start: bigint; readonly resetsAt: bigint } | null {
  return isWindowLapsed(lastReset, now) ? null : { start: lastReset, resetsAt: lastReset + WINDOW_SECONDS };
}

/** The protocol fee the program takes on top of an amount: floor(amount × bps / 10 000). */
export function transferFee(amount: bigint, feeBasisPoints: number | bigint): bigint {
  return (amount * BigInt(feeBasisPoints)) / BASIS_POINTS;
}

/** What the window still allows: max(0, dailyLimit − spent in the window). */
export function remainingInWindow(vault: VaultPolicy, now: bigint): bigint {
  const left = vault.dailyLimit - spentInWindow(vault, now);
  return left > 0n ? left : 0n;
}

/**
 * The program's policy checks in its order, once the window is current: the whitelist (only when it
 * has entries), the daily limit, then the funds for amount plus fee. Null: the transfer goes through.
 */
export function findBlockReason(
  vault: Pick<VaultPolicy, 'whitelist' | 'dailyLimit' | 'feeBasisPoints'>,
  spent: bigint,
  balance: bigint,
  transfer: Pick<TransferRequest, 'destination' | 'amount'>,
): BlockReason | null {
  const policyBlock = findPolicyBlock(vault, spent, transfer);
  if (policyBlock !== null) return policyBlock;
  if (balance < transfer.amount + transferFee(transfer.amount, vault.feeBasisPoints))
    return 'insufficient_funds';
  return null;
}

/** Whether the whitelist lets a destination through: an empty whitelist admits any destination. */
export function isAdmitted(whitelist: readonly string[], destination: string): boolean {
  return whitelist.length === 0 || whitelist.includes(destination);
}

/**
 * The owner's policy alone, in the program's order: the whitelist, then the daily limit against what the
 * window has spent. These are the blocks an owner can approve. `admitted` is isAdmitted's answer.
 */
export function policyBlock(
  admitted: boolean,
  dailyLimit: bigint,
  spent: bigint,
  amount: bigint,
): 'not_whitelisted' | 'exceeded_daily_limit' | null {
  if (!admitted) return 'not_whitelisted';
  if (spent + amount > dailyLimit) return 'exceeded_daily_limit';
  return null;
}

/** policyBlock for a vault's whitelist and limit. */
export function findPolicyBlock(
  vault: Pick<VaultPolicy, 'whitelist' | 'dailyLimit'>,
  spent: bigint,
  transfer: Pick<TransferRequest, 'destination' | 'amount'>,
): 'not_whitelisted' | 'exceeded_daily_limit' | null {
  return policyBlock(
    isAdmitted(vault.whitelist, transfer.destination),
    vault.dailyLimit,
    spent,
    transfer.amount,
  );
}

/** Blocks for the whitelist or the limit announce an override the owner can approve; one for funds does not. */
export function announcesOverride(reason: BlockReason): boolean {
  return reason !== 'insufficient_funds';
}

/** Why the program would fail the transfer before its policy runs: a signer that is not the agent, then a pause. */
export function findRefusal(
  vault: Pick<VaultPolicy, 'agentSigner' | 'paused'>,
  agent?: string,
): RefusalReason | null {
  if (agent !== undefined && agent !== vault.agentSigner) return 'wrong_agent';
  return vault.paused ? 'vault_paused' : null;
}

/** What the program does with an agent's transfer at `now`, given the vault's account and its balance. */
export function judgeTransfer(
  vault: VaultPolicy,
  balance: bigint,
  transfer: TransferRequest,
  now: bigint,
): TransferJudgement {
  const refusal = findRefusal(vault, transfer.agent);
  if (refusal !== null) return { verdict: 'refused', reason: refusal, approval: 'none' };
  const reason = findBlockReason(vault, spentInWindow(vault, now), balance, transfer);
  if (reason === null) return { verdict: 'allowed', reason: null, approval: 'none' };
  return { verdict: 'blocked', reason, approval: announcesOverride(reason) ? 'possible' : 'none' };
}

/**
 * The largest amount a with a ≤ remaining and a + fee(a) ≤ balance (0 when none). Exact: a + ⌊a·bps/10⁴⌋
 * ≤ balance holds exactly when a·(10⁴ + bps) ≤ 10⁴·(balance + 1) − 1, so the bound is one quotient.
 */
export function maxTransferAmount(
  remaining: bigint,
  balance: bigint,
  feeBasisPoints: number | bigint,
): bigint {
  if (remaining <= 0n || balance <= 0n) return 0n;
  const byFunds = ((balance + 1n) * BASIS_POINTS - 1n) / (BASIS_POINTS + BigInt(feeBasisPoints));
  return byFunds < remaining ? byFunds : remaining;
}

/** maxTransferAmount for a vault at `now`: nothing while it is paused. */
export function maxTransfer(vault: VaultPolicy, balance: bigint, now: bigint): bigint {
  if (vault.paused) return 0n;
  return maxTransferAmount(remainingInWindow(vault, now), balance, vault.feeBasisPoints);
}
