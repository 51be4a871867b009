import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  createConcurrencySlots,
  getSlotLimits,
  refusalLimit,
  type SlotHolder,
  type SlotRefusal,
} from './concurrency-slots.js';

const at = (clientKey: string, networkKey: string): SlotHolder => ({ clientKey, networkKey });

/** Takes `count` slots for the holder; the releases, failing on any refusal. */
function take(slots: ReturnType<typeof createConcurrencySlots>, holder: SlotHolder, count: number) {
  return Array.from({ length: count }, () => {
    const slot = slots.acquire(holder);
    assert.equal(typeof slot, 'function', `refused: ${String(slot)}`);
    return slot as () => void;
  });
}

test('a network may hold a tenth of the total, never less than one client’s share; the last tenth is reserved', () => {
  assert.deepEqual(getSlotLimits(5, 1_000), { perClient: 5, perNetwork: 100, total: 1_000, reserve: 100 });
  assert.deepEqual(getSlotLimits(5, 3), { perClient: 5, perNetwork: 5, total: 3, reserve: 0 });
  assert.deepEqual(getSlotLimits(2, 16), { perClient: 2, perNetwork: 2, total: 16, reserve: 1 });
});

test('a client holds at most perClient; a released slot is free again, and releasing twice frees one', () => {
  const slots = createConcurrencySlots(getSlotLimits(2, 100));
  const [first] = take(slots, at('a', 'n'), 2);
  assert.equal(slots.acquire(at('a', 'n')), 'client');
  first!();
  first!();
  assert.equal(slots.open(), 1);
  take(slots, at('a', 'n'), 1);
  assert.equal(slots.acquire(at('a', 'n')), 'client');
});

test('the clients of one network together hold at most perNetwork; other networks are unaffected', () => {
  const limits = getSlotLimits(5, 60);
  const slots = createConcurrencySlots(limits);
  take(slots, at('a', 'n1'), 5);
  take(slots, at('b', 'n1'), 1);
  assert.equal(slots.acquire(at('b', 'n1')), 'network');
  assert.equal(slots.acquire(at('c', 'n1')), 'network');
  assert.equal(refusalLimit(limits, 'network'), 6);
  take(slots, at('d', 'n2'), 5);
});

test('once only the reserve is left, networks holding a client’s share are refused and others still get in', () => {
  const limits = getSlotLimits(5, 60);
  const slots = createConcurrencySlots(limits);
  for (let n = 0; n < 9; n += 1) {
    take(slots, at(`a${n}`, `n${n}`), 5);
    take(slots, at(`b${n}`, `n${n}`), 1);
  }
  assert.equal(slots.open(), 54);
  // n9 holds nothing: it gets slots until it holds a client's share.
  take(slots, at('a9', 'n9'), 4);
  take(slots, at('b9', 'n9'), 1);
  assert.equal(slots.acquire(at('c9', 'n9')), 'reserve');
  assert.equal(refusalLimit(limits, 'reserve'), 54);
  take(slots, at('x', 'n10'), 1);
  assert.equal(slots.acquire(at('y', 'n11')), 'total');
  const refusals: SlotRefusal[] = ['client', 'network', 'reserve', 'total'];
  assert.deepEqual(
    refusals.map((r) => refusalLimit(limits, r)),
    [5, 6, 54, 60],
  );
});
