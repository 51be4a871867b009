import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ReplaySlot } from './replay-slot.js';

describe('ReplaySlot', () => {
  test('is unknown until a slot completes', () => {
    const replay = new ReplaySlot();
    replay.seen(10, 'a');
    assert.equal(replay.value, null);
  });

  test('stays below a slot whose transactions are not all committed', () => {
    const replay = new ReplaySlot();
    replay.seen(10, 'a');
    replay.seen(10, 'b');
    replay.complete(10);
    replay.seen(11, 'c');
    replay.complete(11);
    assert.equal(replay.value, 9);
    replay.committed(10, 'a');
    assert.equal(replay.value, 9);
    replay.committed(10, 'b');
    assert.equal(replay.value, 10);
    replay.committed(11, 'c');
    assert.equal(replay.value, 11);
  });

  test('a transaction seen twice (a replay) is committed once', () => {
    const replay = new ReplaySlot();
    replay.seen(5, 'a');
    replay.seen(5, 'a');
    replay.complete(5);
    replay.committed(5, 'a');
    assert.equal(replay.value, 5);
  });

  test('empty slots move it forward; reset forgets', () => {
    const replay = new ReplaySlot();
    replay.complete(7);
    replay.complete(6);
    assert.equal(replay.value, 7);
    replay.reset();
    assert.equal(replay.value, null);
  });
});
