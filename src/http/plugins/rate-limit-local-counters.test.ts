import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { createLocalCounters } from './rate-limit-local-counters.js';

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

test('a spend never walks the remembered clients: its cost does not grow with how many came before', () => {
  mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
  const counters = createLocalCounters(1_000);
  const iterate = Map.prototype[Symbol.iterator];
  const { entries, keys, forEach } = Map.prototype;
  let walks = 0;
  const counting = <F extends (...args: never[]) => unknown>(original: F): F =>
    function (this: Map<unknown, unknown>, ...args: Parameters<F>) {
      walks += 1;
      return original.apply(this, args);
    } as F;
  try {
    // Past the bound and across several windows, with a steady stream of new addresses.
    Map.prototype[Symbol.iterator] = counting(iterate);
    Map.prototype.entries = counting(entries);
    Map.prototype.keys = counting(keys);
    Map.prototype.forEach = counting(forEach);
    for (let i = 0; i < 5_000; i += 1) {
      counters.spend(READ, `198.51.${i >> 8}.${i & 255}`, 60_000);
      mock.timers.tick(50);
    }
  } finally {
    Map.prototype[Symbol.iterator] = iterate;
    Map.prototype.entries = entries;
    Map.prototype.keys = keys;
    Map.prototype.forEach = forEach;
    mock.timers.reset();
  }
  assert.equal(walks, 0);
  assert.ok(counters.size() <= 1_000, `remembers ${counters.size()} clients, at most 1 000`);
});
