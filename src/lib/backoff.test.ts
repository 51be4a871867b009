import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoffDelay, createBackoff, sleep, withRetry } from './backoff.js';

test('the delay doubles from the base up to the cap', () => {
  const delays = [0, 1, 2, 3, 4, 5].map((n) => backoffDelay(n, { baseMs: 500, capMs: 10_000 }));
  assert.deepEqual(delays, [500, 1_000, 2_000, 4_000, 8_000, 10_000]);
  assert.equal(backoffDelay(1_000, { baseMs: 1, capMs: 30_000 }), 30_000);
});

test('without jitter the backoff is the bare doubling; with it, between half and all of it', () => {
  const plain = createBackoff({ baseMs: 500, capMs: 10_000, jitter: false });
  assert.deepEqual([plain.next(), plain.next(), plain.next()], [500, 1_000, 2_000]);
  plain.reset();
  assert.equal(plain.next(), 500);
  const low = createBackoff({ baseMs: 1_000, capMs: 30_000, random: () => 0 });
  const high = createBackoff({ baseMs: 1_000, capMs: 30_000, random: () => 1 });
  assert.deepEqual([low.next(), low.next()], [500, 1_000]);
  assert.deepEqual([high.next(), high.next()], [1_000, 2_000]);
});

test('sleep ends at once when its signal aborts', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const controller = new AbortController();
  let done = false;
  const slept = sleep(60_000, controller.signal).then(() => {
    done = true;
  });
  await Promise.resolve();
  assert.equal(done, false);
  controller.abort();
  await slept;
  assert.equal(done, true);
});

test('withRetry answers with the first success and throws the last failure once attempts run out', async () => {
  let calls = 0;
  const flaky = () => (++calls < 3 ? Promise.reject(new Error(`fail ${calls}`)) : Promise.resolve('ok'));
  assert.equal(await withRetry(flaky, { attempts: 3, baseMs: 0, capMs: 0 }), 'ok');
  assert.equal(calls, 3);
  calls = 0;
  await assert.rejects(withRetry(flaky, { attempts: 2, baseMs: 0, capMs: 0 }), /fail 2/);
  assert.equal(calls, 2);
});
