import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  currentWindow,
  findBlockReason,
  isWindowLapsed,
  judgeTransfer,
  maxTransfer,
  maxTransferAmount,
  remainingInWindow,
  spentInWindow,
  transferFee,
  type VaultPolicy,
} from './vault-policy.js';

const T = 1_800_000_000n;
const A = 'Dest1111111111111111111111111111111111111111';
const B = 'Dest2222222222222222222222222222222222222222';
const AGENT = 'Agent111111111111111111111111111111111111111';

const vault = (fields: Partial<VaultPolicy> = {}): VaultPolicy => ({
  agentSigner: AGENT,
  dailyLimit: 1_000n,
  spentToday: 0n,
  lastReset: T,
  whitelist: [],
  paused: false,
  feeBasisPoints: 0,
  ...fields,
});

/** The definition, searched one amount at a time. */
function bruteForceMax(remaining: bigint, balance: bigint, bps: number): bigint {
  let best = 0n;
  for (let a = 1n; a <= remaining; a += 1n) if (a + (a * BigInt(bps)) / 10_000n <= balance) best = a;
  return best;
}

describe('the daily window', () => {
  it('lapses exactly 86 400 s after last_reset, by the given clock', () => {
    assert.equal(isWindowLapsed(T, T + 86_399n), false);
    assert.equal(isWindowLapsed(T, T + 86_400n), true);
    assert.equal(isWindowLapsed(T, T - 5n), false, 'a clock behind last_reset keeps the window');
  });

  it('counts nothing spent once lapsed and names the running window otherwise', () => {
    const v = vault({ spentToday: 700n });
    assert.equal(spentInWindow(v, T + 10n), 700n);
    assert.equal(spentInWindow(v, T + 86_400n), 0n);
    assert.deepEqual(currentWindow(T, T + 10n), { start: T, resetsAt: T + 86_400n });
    assert.equal(currentWindow(T, T + 86_400n), null);
    assert.equal(remainingInWindow(v, T + 10n), 300n);
    assert.equal(remainingInWindow(v, T + 86_400n), 1_000n);
    assert.equal(remainingInWindow(vault({ spentToday: 1_500n }), T), 0n, 'never below zero');
  });
});

describe('the fee', () => {
  it('rounds down: floor(amount × bps / 10 000)', () => {
    assert.equal(transferFee(1_999n, 5), 0n);
    assert.equal(transferFee(2_000n, 5), 1n);
    assert.equal(transferFee(10n ** 9n, 50), 5_000_000n);
    assert.equal(transferFee(2n ** 64n - 1n, 10_000), 2n ** 64n - 1n);
  });
});

describe('judging a transfer', () => {
  const at = (v: VaultPolicy, balance: bigint, destination: string, amount: bigint, agent?: string) =>
    judgeTransfer(v, balance, { destination, amount, agent }, T + 1n);

  it('refuses a wrong agent before a pause, and a paused vault before any policy', () => {
    const paused = vault({ paused: true, whitelist: [B], spentToday: 1_000n });
    assert.deepEqual(at(paused, 0n, A, 5n, B), {
      verdict: 'refused',
      reason: 'wrong_agent',
      approval: 'none',
    });
    assert.deepEqual(at(paused, 0n, A, 5n), { verdict: 'refused', reason: 'vault_paused', approval: 'none' });
    assert.deepEqual(at(paused, 0n, A, 5n, AGENT), {
      verdict: 'refused',
      reason: 'vault_paused',
      approval: 'none',
    });
  });

  it('checks the whitelist (only when it has entries), then the limit, then the funds', () => {
    const everything = vault({ whitelist: [B], spentToday: 999n });
    assert.equal(at(everything, 0n, A, 5n).reason, 'not_whitelisted');
    assert.equal(at(everything, 0n, B, 5n).reason, 'exceeded_daily_limit');
    assert.equal(at(vault(), 4n, A, 5n).reason, 'insufficient_funds');
    assert.deepEqual(at(vault({ whitelist: [A] }), 5n, A, 5n), {
      verdict: 'allowed',
      reason: null,
      approval: 'none',
    });
  });

  it('offers an approval for the whitelist and the limit, never for funds', () => {
    assert.equal(at(vault({ whitelist: [B] }), 10n, A, 5n).approval, 'possible');
    assert.equal(at(vault({ spentToday: 999n }), 10n, A, 5n).approval, 'possible');
    assert.equal(at(vault(), 4n, A, 5n).approval, 'none');
  });

  it('lets the limit be reached exactly but not passed', () => {
    const v = vault({ spentToday: 400n });
    assert.equal(findBlockReason(v, 400n, 10_000n, { destination: A, amount: 600n }), null);
    assert.equal(findBlockReason(v, 400n, 10_000n, { destination: A, amount: 601n }), 'exceeded_daily_limit');
  });

  it('needs the amount plus its rounded-down fee at the funds boundary', () => {
    const v = vault({ feeBasisPoints: 5, dailyLimit: 10n ** 12n });
    // fee(1 999) = 0, fee(2 000) = 1: 2 000 needs 2 001.
    assert.equal(findBlockReason(v, 0n, 1_999n, { destination: A, amount: 1_999n }), null);
    assert.equal(findBlockReason(v, 0n, 2_000n, { destination: A, amount: 2_000n }), 'insufficient_funds');
    assert.equal(findBlockReason(v, 0n, 2_001n, { destination: A, amount: 2_000n }), null);
  });

  it('judges a lapsed window as empty: a full limit is available again', () => {
    const v = vault({ spentToday: 1_000n, lastReset: T - 86_400n });
    assert.equal(judgeTransfer(v, 10_000n, { destination: A, amount: 1_000n }, T).verdict, 'allowed');
    assert.equal(judgeTransfer(v, 10_000n, { destination: A, amount: 1_000n }, T - 1n).verdict, 'blocked');
  });
});

describe('maxTransfer', () => {
  it('equals a brute-force search on small numbers, for every fee rate', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 400n }),
        fc.bigInt({ min: 0n, max: 400n }),
        fc.integer({ min: 0, max: 20_000 }),
        (remaining, balance, bps) =>
          maxTransferAmount(remaining, balance, bps) === bruteForceMax(remaining, balance, bps),
      ),
      { numRuns: 2_000 },
    );
  });

  it('is the largest amount that fits, at any size up to 2^64 − 1', () => {
    const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
    fc.assert(
      fc.property(u64, u64, fc.integer({ min: 0, max: 10_000 }), (remaining, balance, bps) => {
        const a = maxTransferAmount(remaining, balance, bps);
        const fits = (x: bigint) => x <= remaining && x + transferFee(x, bps) <= balance;
        return (a === 0n || fits(a)) && !fits(a + 1n);
      }),
      { numRuns: 2_000 },
    );
  });

  it('is what the policy allows: the amount passes the funds and limit checks, one more does not', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.integer({ min: 0, max: 10_000 }),
        (dailyLimit, spentToday, balance, feeBasisPoints) => {
          const v = vault({ dailyLimit, spentToday, feeBasisPoints });
          const a = maxTransfer(v, balance, T);
          const verdict = (amount: bigint) =>
            judgeTransfer(v, balance, { destination: A, amount }, T).verdict;
          return (a === 0n || verdict(a) === 'allowed') && verdict(a + 1n) === 'blocked';
        },
      ),
    );
  });

  it('is zero while paused, whatever the funds and the limit', () => {
    assert.equal(maxTransfer(vault({ paused: true }), 10n ** 9n, T), 0n);
    assert.equal(maxTransfer(vault(), 10n ** 9n, T), 1_000n);
  });
});
