import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createEventLoopDelay } from './event-loop-delay.js';

/** Holds the event loop, as a long synchronous task in a handler would. */
function blockLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy on purpose
  }
}

describe('createEventLoopDelay', () => {
  it('reports how long the loop was held, and each read starts a new sample', async () => {
    const delay = createEventLoopDelay(10);
    try {
      // The sampler's first tick only sets its baseline; the second measures the held loop.
      for (const ms of [20, 120]) {
        blockLoop(ms);
        // The overdue sampling timer fires on the next turns of the loop.
        for (let turn = 0; turn < 5; turn += 1) await nextTurn();
      }
      assert.ok(delay.takeP99Ms() >= 60, 'the held loop shows in the p99');
      assert.equal(delay.takeP99Ms(), 0, 'a read right after a read has seen nothing');
    } finally {
      delay.close();
    }
  });
});
