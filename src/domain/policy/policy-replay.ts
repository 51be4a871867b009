// The policy what-if's replay: a vault's past transfer attempts, oldest first, judged again under a
// proposed daily limit and whitelist by the program's own rules (vault-policy.ts). The window is replayed
// from the start of the period, as the program keeps it: an agent's attempt opens a new window at its
// block time once the last one has lapsed; an executed override bypasses the policy but adds to the
// window it falls in. Balances are not replayed: an attempt that executed is taken as fundable, and one
// the program blocked for funds stays blocked for funds when the proposal lets it past the policy.
import type { BlockReason } from '../transactions/transaction-resource.js';
import { isWindowLapsed, policyBlock } from './vault-policy.js';

/** One attempt as the chain decided it, reduced to what the rules read. */
export interface ReplayAttempt {
  /** Block time, unix milliseconds. */
  readonly at: number;
  readonly amount: bigint;
  readonly status: 'executed' | 'blocked';
  readonly blockReason: BlockReason | null;
  /** True for an owner-approved override's executed transfer: the policy did not judge it. */
  readonly override: boolean;
  /** Whether the proposed whitelist admits its destination (isAdmitted). */
  readonly admitted: boolean;
}

export type ReplayOutcome = 'executed' | 'blocked';

export interface ReplayChange {
  /** The attempt's position in the replayed sequence. */
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
  lastReset: bigint | null;
  spent: bigint;
}

/** What the program would have done with one attempt under the proposed limit, advancing the window. */
function judgeAgain(
  window: WindowState,
  dailyLimit: bigint,
  attempt: ReplayAttempt,
): { would: ReplayOutcome; reason: BlockReason | null } {
  if (attempt.override) {
    window.spent += attempt.amount;
    return { would: 'executed', reason: null };
  }
  const now = BigInt(Math.floor(attempt.at / 1000));
  if (window.lastReset === null || isWindowLapsed(window.lastReset, now)) {
    window.lastReset = now;
    window.spent = 0n;
  }
  const blocked = policyBlock(attempt.admitted, dailyLimit, window.spent, attempt.amount);
  if (blocked !== null) return { would: 'blocked', reason: blocked };
  if (attempt.status === 'blocked' && attempt.blockReason === 'insufficient_funds')
    return { would: 'blocked', reason: 'insufficient_funds' };
  window.spent += attempt.amount;
  return { would: 'executed', reason: null };
}

/** Replays `attempts` (oldest first) under the proposed limit; each outcome against what happened on chain. */
export function replayPolicy(
  attempts: Iterable<ReplayAttempt>,
  dailyLimit: bigint,
  maxChanges: number,
): ReplayResult {
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
  for (const attempt of attempts) {
    const index = summary.attempts;
    summary.attempts += 1;
    const { would, reason } = judgeAgain(window, dailyLimit, attempt);
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
