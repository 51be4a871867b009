import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createWaiter } from './waiter.js';

test('a wait ends on release, on abort, or when its time is up', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const waiter = createWaiter();
  const controller = new AbortController();
  const ended: string[] = [];
  const first = waiter.wait(1_000, controller.signal).then(() => ended.push('released'));
  waiter.release();
  await first;
  const second = waiter.wait(1_000, controller.signal).then(() => ended.push('aborted'));
  controller.abort();
  await second;
  const third = waiter.wait(1_000, new AbortController().signal).then(() => ended.push('timed out'));
  t.mock.timers.tick(999);
  await Promise.resolve();
  assert.deepEqual(ended, ['released', 'aborted']);
  t.mock.timers.tick(1);
  await third;
  assert.deepEqual(ended, ['released', 'aborted', 'timed out']);
});
