import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { BlockReason } from '../transactions/transaction-resource.js';
import { type ReplayAttempt, replayPolicy } from './policy-replay.js';

/** An attempt as the tests write it: with its signature and destination. */
interface Entry extends Omit<ReplayAttempt, 'at'> {
  readonly signature: string;
  readonly timestamp: Date;
}

/** replayPolicy under a whole policy, its changes named by signature. */
function replay(history: readonly Entry[], policy: { dailyLimit: bigint; whitelist: string[] }, max = 100) {
  const attempts = history.map((e) => ({ ...e, at: e.timestamp.getTime() }));
  const result = replayPolicy(attempts, policy, max);
  return {
    ...result,
    changes: result.changes.map((c) => ({ ...c, attempt: history[c.index]! })),
  };
}

const SOL = 1_000_000_000n;
const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-01T08:00:00.000Z');
const A = 'DestA111111111111111111111111111111111111111';
const B = 'DestB111111111111111111111111111111111111111';
const C = 'DestC111111111111111111111111111111111111111';

const attempt = (
  hours: number,
  destination: string,
  sol: bigint,
  status: 'executed' | 'blocked',
  blockReason: BlockReason | null = null,
  override = false,
): Entry => ({
  signature: `sig-${hours}`,
  timestamp: new Date(T0 + hours * HOUR),
  destination,
  amount: sol * SOL,
  status,
  blockReason,
  override,
});

// What happened on chain under a 10 SOL limit and no whitelist:
//   0 h  A 4 SOL executed (window opens at 0 h, spent 4)
//   1 h  B 5 SOL executed (spent 9)
//   2 h  A 3 SOL blocked: 9 + 3 > 10
//   3 h  A 3 SOL executed by the owner's override (spent 12; bypasses the policy)
//  24 h  B 6 SOL executed: exactly 86 400 s after 0 h the window has lapsed (new window, spent 6)
//  26 h  C 1 SOL blocked for funds
const HISTORY: Entry[] = [
  attempt(0, A, 4n, 'executed'),
  attempt(1, B, 5n, 'executed'),
  attempt(2, A, 3n, 'blocked', 'exceeded_daily_limit'),
  attempt(3, A, 3n, 'executed', null, true),
  attempt(24, B, 6n, 'executed'),
  attempt(26, C, 1n, 'blocked', 'insufficient_funds'),
];

const changed = (result: ReturnType<typeof replay>) =>
  result.changes.map((c) => [c.attempt.signature, c.would, c.wouldReason]);

describe('the policy replay', () => {
  it('changes nothing under the policy the chain applied', () => {
    const result = replay(HISTORY, { dailyLimit: 10n * SOL, whitelist: [] }, 100);
    assert.deepEqual(result.changes, []);
    assert.equal(result.summary.attempts, 6);
    assert.equal(result.summary.executedUnderProposal, 4);
    assert.equal(result.summary.blockedUnderProposal, 2);
    assert.equal(result.truncated, false);
  });

  it('a lower limit blocks what overran it and lets through what a smaller window now fits', () => {
    // 8 SOL: 0 h 4 ok (4); 1 h 4+5 > 8 blocked; 2 h 4+3 = 7 ok (7); 3 h override (10);
    // 24 h new window 6 ok; 26 h 6+1 ≤ 8 passes the policy but stays blocked for funds.
    const result = replay(HISTORY, { dailyLimit: 8n * SOL, whitelist: [] }, 100);
    assert.deepEqual(changed(result), [
      ['sig-1', 'blocked', 'exceeded_daily_limit'],
      ['sig-2', 'executed', null],
    ]);
    assert.deepEqual(result.summary, {
      attempts: 6,
      newlyBlocked: 1,
      newlyAllowed: 1,
      newlyBlockedVolume: 5n * SOL,
      newlyAllowedVolume: 3n * SOL,
      blockedUnderProposal: 2,
      executedUnderProposal: 4,
    });
  });

  it('a whitelist blocks other destinations; an attempt blocked either way is no change', () => {
    // [A]: 0 h A ok (4); 1 h B not whitelisted; 2 h A 4+3 ok (7); 3 h override (10); 24 h B not
    // whitelisted; 26 h C not whitelisted (was blocked for funds: blocked both ways).
    const result = replay(HISTORY, { dailyLimit: 10n * SOL, whitelist: [A] }, 100);
    assert.deepEqual(changed(result), [
      ['sig-1', 'blocked', 'not_whitelisted'],
      ['sig-2', 'executed', null],
      ['sig-24', 'blocked', 'not_whitelisted'],
    ]);
    assert.equal(result.summary.newlyBlockedVolume, 11n * SOL);
    assert.equal(result.summary.blockedUnderProposal, 3);
  });

  it('keeps the window open one second short of 24 hours', () => {
    const history = [
      attempt(0, A, 6n, 'executed'),
      { ...attempt(24, A, 6n, 'executed'), timestamp: new Date(T0 + 24 * HOUR - 1000) },
    ];
    const result = replay(history, { dailyLimit: 10n * SOL, whitelist: [] });
    assert.deepEqual(changed(result), [['sig-24', 'blocked', 'exceeded_daily_limit']]);
    const lapsed = replay(
      [history[0]!, attempt(24, A, 6n, 'executed')],
      { dailyLimit: 10n * SOL, whitelist: [] },
      100,
    );
    assert.deepEqual(lapsed.changes, []);
  });

  it('lists at most the cap, oldest first, and counts every change in the summary', () => {
    const many = Array.from({ length: 150 }, (_, i) => ({
      ...attempt(i / 60, B, 1n, 'executed'),
      signature: `s${i}`,
    }));
    const result = replay(many, { dailyLimit: 1_000n * SOL, whitelist: [A] });
    assert.equal(result.changes.length, 100);
    assert.equal(result.changes[0]!.attempt.signature, 's0');
    assert.equal(result.changes[99]!.attempt.signature, 's99');
    assert.equal(result.truncated, true);
    assert.equal(result.summary.newlyBlocked, 150);
  });

  it('replays a range of the array as it replays that slice alone, positions counted in the array', () => {
    const whole = HISTORY.map((e) => ({ ...e, at: e.timestamp.getTime() }));
    const policy = { dailyLimit: 8n * SOL, whitelist: [A] };
    const ranged = replayPolicy(whole, policy, 100, { from: 1, to: 5 });
    const alone = replayPolicy(whole.slice(1, 5), policy, 100);
    assert.deepEqual(ranged.summary, alone.summary);
    assert.deepEqual(
      ranged.changes.map((c) => [c.index - 1, c.attempt, c.would, c.wouldReason]),
      alone.changes.map((c) => [c.index, c.attempt, c.would, c.wouldReason]),
    );
    assert.ok(ranged.changes.length > 0);
  });

  it('finds no change in any history the program itself produced under the same policy', () => {
    // The program's bookkeeping, step by step: reset when due, whitelist, limit, funds (drawn at random).
    const destinations = [A, B, C];
    const step = fc.record({
      gapSeconds: fc.integer({ min: 0, max: 30 * 3600 }),
      destination: fc.constantFrom(...destinations),
      amount: fc.bigInt({ min: 1n, max: 5n * SOL }),
      fundsShort: fc.boolean(),
      override: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 40 }),
        fc.bigInt({ min: 1n, max: 12n * SOL }),
        fc.subarray(destinations),
        (steps, dailyLimit, whitelist) => {
          let at = T0;
          let lastReset: number | null = null;
          let spent = 0n;
          const history: Entry[] = steps.map((s, i) => {
            at += s.gapSeconds * 1000;
            const base = {
              signature: `s${i}`,
              timestamp: new Date(at),
              destination: s.destination,
              amount: s.amount,
            };
            if (s.override) {
              spent += s.amount;
              return { ...base, status: 'executed', blockReason: null, override: true };
            }
            if (lastReset === null || at - lastReset >= 86_400_000) {
              lastReset = at;
              spent = 0n;
            }
            let reason: BlockReason | null = null;
            if (whitelist.length > 0 && !whitelist.includes(s.destination)) reason = 'not_whitelisted';
            else if (spent + s.amount > dailyLimit) reason = 'exceeded_daily_limit';
            else if (s.fundsShort) reason = 'insufficient_funds';
            if (reason === null) spent += s.amount;
            return {
              ...base,
              status: reason === null ? 'executed' : 'blocked',
              blockReason: reason,
              override: false,
            };
          });
          const result = replay(history, { dailyLimit, whitelist });
          return result.changes.length === 0 && result.summary.attempts === steps.length;
        },
      ),
      { numRuns: 500 },
    );
  });
});
