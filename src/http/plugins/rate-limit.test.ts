import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { createLocalCounters } from './rate-limit.js';

const READ = 0;
const WRITE = 1;

test('one lookup spends the category and the overall budget, each in its own fixed window', () => {
  mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
  try {
    const counters = createLocalCounters();
    assert.deepEqual(Array.from(counters.spend(WRITE, '198.51.100.1', 60_000)), [1, 60_000, 1, 60_000]);
    mock.timers.tick(10_000);
    assert.deepEqual(Array.from(counters.spend(READ, '198.51.100.1', 60_000)), [1, 60_000, 2, 50_000]);
    assert.deepEqual(Array.from(counters.spend(READ, '198.51.100.2', 60_000)), [1, 60_000, 1, 60_000]);
    mock.timers.tick(50_000);
    // The overall window (started with the write) is over; the read window has 10 s left.
    assert.deepEqual(Array.from(counters.spend(READ, '198.51.100.1', 60_000)), [2, 10_000, 1, 60_000]);
  } finally {
    mock.timers.reset();
  }
});

test('remembers a bounded number of clients, forgetting the stalest first', () => {
  const counters = createLocalCounters(2);
  counters.spend(READ, 'a', 60_000);
  counters.spend(READ, 'b', 60_000);
  counters.spend(READ, 'b', 60_000);
  counters.spend(READ, 'c', 60_000);
  assert.equal(counters.spend(READ, 'b', 60_000)[0], 3, 'b is kept');
  assert.equal(counters.spend(READ, 'a', 60_000)[0], 1, 'a was forgotten');
});

test('forgets a client once every window of it has ended, so idle addresses do not pile up', () => {
  mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
  try {
    const counters = createLocalCounters();
    counters.spend(READ, '2001:db8:1::/64', 60_000);
    mock.timers.tick(50_000);
    // The write window starts late in the overall one and outlives it by 50 s.
    counters.spend(WRITE, '2001:db8:1::/64', 60_000);
    counters.spend(READ, '198.51.100.3', 60_000);
    assert.equal(counters.size(), 2);
    mock.timers.tick(55_000);
    counters.spend(READ, '198.51.100.4', 60_000);
    assert.equal(counters.size(), 3, 'the first client’s write window is still running');
    assert.equal(counters.spend(WRITE, '2001:db8:1::/64', 60_000)[0], 2, 'and still counts');
    mock.timers.tick(130_000);
    counters.spend(READ, '198.51.100.5', 60_000);
    assert.equal(counters.size(), 1, 'only the client of the running window is left');
  } finally {
    mock.timers.reset();
  }
});
