import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSharedResult } from './shared-result.js';

test('concurrent callers share one load; its result is reused for reuseMs, then loaded again', async () => {
  let clock = 1_000;
  let loads = 0;
  const get = createSharedResult(async () => ++loads, { reuseMs: 1_000, now: () => clock });
  assert.deepEqual(await Promise.all([get(), get(), get()]), [1, 1, 1]);
  clock += 999;
  assert.equal(await get(), 1);
  clock += 1;
  assert.equal(await get(), 2);
  // A clock that went back loads again rather than keep a result for longer.
  clock -= 5_000;
  assert.equal(await get(), 3);
});

test('a failed load is shared by those waiting on it but not kept', async () => {
  let fail = true;
  let loads = 0;
  const get = createSharedResult(
    async () => {
      loads += 1;
      if (fail) throw new Error('down');
      return 'up';
    },
    { reuseMs: 1_000, now: () => 0 },
  );
  const results = await Promise.allSettled([get(), get()]);
  assert.deepEqual(
    results.map((r) => r.status),
    ['rejected', 'rejected'],
  );
  assert.equal(loads, 1);
  fail = false;
  assert.equal(await get(), 'up');
  assert.equal(loads, 2);
});
