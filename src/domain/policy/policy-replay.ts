// The policy preview's replay: a vault's past transfer attempts, oldest first, judged again under a
// proposed daily limit and whitelist by the program's own rules (vault-policy.ts). The window is replayed
// from the start of the period, as the program keeps it: an agent's attempt opens a new window at its
// block time once the last one has lapsed; an executed override bypasses the policy but adds to the
// window it falls in. Balances are not replayed: an attempt that executed is taken as fundable, and one
// the program blocked for funds stays blocked for funds when the proposal lets it past the policy.
import type { BlockReason } from '../transactions/transaction-resource.js';
import { isWindowLapsedSeconds, policyBlock } from './vault-policy.js';

/** The policy an attempt is judged by again. */
export interface ReplayPolicy {
  readonly dailyLimit: bigint;
  /** Empty: any destination (isAdmitted). */
  readonly whitelist: readonly string[];
}

/** One attempt as the chain decided it, reduced to what the rules read. */
export interface ReplayAttempt {
  /** Block time, unix milliseconds. */
  readonly at: number;
  readonly amount: bigint;
  readonly status: 'executed' | 'blocked';
  readonly blockReason: BlockReason | null;
  /** True for an owner-approved override's executed transfer: the policy did not judge it. */
  readonly override: boolean;
  readonly destination: string;
}

export type ReplayOutcome = 'executed' | 'blocked';

export interface ReplayChange {
  /** The attempt's position in the array replayed. */
  readonly index: number;
  readonly attempt: ReplayAttempt;
  readonly would: ReplayOutcome;
  readonly wouldReason: BlockReason | null;
}

export interface ReplaySummary {
  attempts: number;
  newlyBlocked: number;
  newlyAllowed: number;
  newlyBlockedVolume: bigint;
  newlyAllowedVolume: bigint;
  blockedUnderProposal: number;
  executedUnderProposal: number;
}

export interface ReplayResult {
  readonly summary: ReplaySummary;
  /** The attempts whose outcome differs, oldest first, at most `maxChanges`. */
  readonly changes: ReplayChange[];
  readonly truncated: boolean;
}

interface WindowState {
  /** Unix seconds the window opened at; null before the first agent attempt. */
  lastReset: number | null;
  spent: bigint;
}

/**
 * What the program would have done with one attempt under the proposed limit, advancing the window:
 * null when it would execute, else why it would be blocked.
 */
function judgeAgain(
  window: WindowState,
  dailyLimit: bigint,
  admitted: boolean,
  attempt: ReplayAttempt,
): BlockReason | null {
  if (attempt.override) {
    window.spent += attempt.amount;
    return null;
  }
  const now = Math.floor(attempt.at / 1000);
  if (window.lastReset === null || isWindowLapsedSeconds(window.lastReset, now)) {
    window.lastReset = now;
    window.spent = 0n;
  }
  const blocked = policyBlock(admitted, dailyLimit, window.spent, attempt.amount);
  if (blocked !== null) return blocked;
  if (attempt.status === 'blocked' && attempt.blockReason === 'insufficient_funds')
    return 'insufficient_funds';
  window.spent += attempt.amount;
  return null;
}

/**
 * Replays `attempts[from..to)` (oldest first) under the proposed policy; each outcome against what
 * happened on chain.
 */
export function replayPolicy(
  attempts: readonly ReplayAttempt[],
  policy: ReplayPolicy,
  maxChanges: number,
  range: { readonly from: number; readonly to: number } = { from: 0, to: attempts.length },
): ReplayResult {
  // isAdmitted's rule, with a set instead of a scan of the list for each attempt.
  const admits = policy.whitelist.length === 0 ? null : new Set(policy.whitelist);
  const window: WindowState = { lastReset: null, spent: 0n };
  const summary: ReplaySummary = {
    attempts: 0,
    newlyBlocked: 0,
    newlyAllowed: 0,
    newlyBlockedVolume: 0n,
    newlyAllowedVolume: 0n,
    blockedUnderProposal: 0,
    executedUnderProposal: 0,
  };
  const changes: ReplayChange[] = [];
  let differing = 0;
  for (let index = range.from; index < range.to; index++) {
    const attempt = attempts[index]!;
    summary.attempts += 1;
    const admitted = admits === null || admits.has(attempt.destination);
    const reason = judgeAgain(window, policy.dailyLimit, admitted, attempt);
    const would: ReplayOutcome = reason === null ? 'executed' : 'blocked';
    if (would === 'executed') summary.executedUnderProposal += 1;
    else summary.blockedUnderProposal += 1;
    if (would === attempt.status) continue;
    differing += 1;
    if (would === 'blocked') {
      summary.newlyBlocked += 1;
      summary.newlyBlockedVolume += attempt.amount;
    } else {
      summary.newlyAllowed += 1;
      summary.newlyAllowedVolume += attempt.amount;
    }
    if (changes.length < maxChanges) changes.push({ index, attempt, would, wouldReason: reason });
  }
  return { summary, changes, truncated: differing > changes.length };
}
