import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  capPrice,
  createPriorityFeeEstimator,
  getPercentile,
  getPriorityFeeLamports,
} from './priority-fee.js';

describe('priority fee', () => {
  it('takes the nearest-rank percentile, zeros included', () => {
    assert.equal(getPercentile([], 75), 0n);
    assert.equal(getPercentile([0n, 0n, 0n, 10n], 75), 0n);
    assert.equal(getPercentile([600n, 0n, 100n, 500n, 0n, 200n, 400n, 300n], 75), 400n);
    assert.equal(getPercentile([5n, 1n, 9n], 100), 9n);
    assert.equal(getPercentile([5n, 1n, 9n], 1), 1n);
  });

  it('caps the price so that price × units / 10^6 stays within the maximum', () => {
    assert.equal(capPrice(5_000_000n, 50_000, 1_000n), 20_000n);
    assert.equal(capPrice(100n, 50_000, 1_000n), 100n);
    assert.equal(getPriorityFeeLamports(20_000n, 50_000), 1_000n);
    assert.equal(getPriorityFeeLamports(1n, 1), 1n, 'rounded up, as the runtime charges');
    assert.equal(getPriorityFeeLamports(null, 50_000), 0n);
  });

  it('reuses an estimate per account set for 10 s, and falls back to it (or 0) when the call fails', async () => {
    let now = 0;
    let answer: bigint[] | Error = [10n, 20n];
    let calls = 0;
    const errors: unknown[] = [];
    const estimator = createPriorityFeeEstimator({
      settings: { mode: { kind: 'auto' }, percentile: 75, maxLamports: 1_000_000n },
      fetchFees: async () => {
        calls += 1;
        if (answer instanceof Error) throw answer;
        return answer;
      },
      now: () => now,
      onError: (error) => errors.push(error),
    });
    assert.equal(await estimator.estimate(['b', 'a']), 20n);
    assert.equal(await estimator.estimate(['a', 'b', 'a']), 20n, 'same set, any order');
    assert.equal(calls, 1);
    now = 10_000;
    answer = new Error('node down');
    assert.equal(await estimator.estimate(['a', 'b']), 20n, 'the last estimate');
    assert.equal(await estimator.estimate(['c']), 0n, 'no estimate yet: 0');
    assert.equal(errors.length, 2);
  });

  it('off answers no price; a fixed mode answers its number without asking the node', async () => {
    const fetchFees = async () => assert.fail('no fee call');
    const base = { percentile: 75, maxLamports: 1n, fetchFees, now: () => 0, onError: () => {} };
    const off = createPriorityFeeEstimator({ ...base, settings: { ...base, mode: { kind: 'off' } } });
    const fixed = createPriorityFeeEstimator({
      ...base,
      settings: { ...base, mode: { kind: 'fixed', microLamports: 42n } },
    });
    assert.equal(await off.estimate(['a']), null);
    assert.equal(await fixed.estimate(['a']), 42n);
  });
});
