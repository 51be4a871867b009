import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMemoryCache } from '../../cache/memory-cache.js';
import { createLocalClaims, createReplayGuard } from './replay-guard.js';

function manualClock(start = Date.parse('2026-11-22T00:00:00.000Z')) {
  let now = start;
  return {
    now: () => new Date(now),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('createLocalClaims', () => {
  it('claims a key once until its TTL passes, then again', () => {
    const clock = manualClock();
    const claims = createLocalClaims(clock);
    assert.equal(claims.claim('a', 10), true);
    assert.equal(claims.claim('a', 10), false);
    clock.advance(9_999);
    assert.equal(claims.claim('a', 10), false);
    clock.advance(1);
    assert.equal(claims.claim('a', 10), true);
  });

  it('forgets expired keys and only those, however many were claimed', () => {
    const clock = manualClock();
    const claims = createLocalClaims(clock);
    for (let i = 0; i < 10_000; i++) claims.claim(`short-${i}`, 5);
    claims.claim('long', 60);
    clock.advance(6_000);
    claims.claim('trigger', 5);
    assert.equal(claims.size, 2);
    assert.equal(claims.claim('long', 60), false);
  });

  it('keeps a key re-claimed after expiry until its new TTL', () => {
    const clock = manualClock();
    const claims = createLocalClaims(clock);
    claims.claim('a', 1);
    clock.advance(1_000);
    assert.equal(claims.claim('a', 30), true);
    clock.advance(2_000);
    assert.equal(claims.claim('a', 30), false);
  });
});

describe('createReplayGuard', () => {
  it('uses the shared cache while it answers', async () => {
    const cache = createMemoryCache();
    const guardA = createReplayGuard({ cache, clock: manualClock() });
    const guardB = createReplayGuard({ cache, clock: manualClock() });
    assert.equal(await guardA.claim('sig', 60), true);
    assert.equal(await guardB.claim('sig', 60), false);
  });

  it('falls back to the in-process claims when the shared cache throws, and reports it', async () => {
    const errors: unknown[] = [];
    const down = {
      setIfAbsent: async () => {
        throw new Error('connection refused');
      },
    };
    const guard = createReplayGuard({
      cache: down,
      clock: manualClock(),
      onSharedStoreError: (e) => errors.push(e),
    });
    assert.equal(await guard.claim('sig', 60), true);
    assert.equal(await guard.claim('sig', 60), false);
    assert.equal(errors.length, 2);
  });

  /** A shared cache that can be switched off and on again, keeping what it held. */
  function switchableCache() {
    const shared = createMemoryCache();
    const state = { up: true };
    const cache = {
      setIfAbsent: (key: string, ttl: number) =>
        state.up ? shared.setIfAbsent(key, ttl) : Promise.reject(new Error('connection refused')),
    };
    return { cache, state };
  }

  it('still refuses a key claimed while the shared cache was down once the cache is back', async () => {
    const { cache, state } = switchableCache();
    const guard = createReplayGuard({ cache, clock: manualClock() });
    state.up = false;
    assert.equal(await guard.claim('sig', 60), true);
    state.up = true;
    assert.equal(await guard.claim('sig', 60), false);
    assert.equal(await guard.claim('other', 60), true);
  });

  it('refuses a replay to the same instance while the shared cache is down after the first use', async () => {
    const { cache, state } = switchableCache();
    const guard = createReplayGuard({ cache, clock: manualClock() });
    assert.equal(await guard.claim('sig', 60), true);
    state.up = false;
    assert.equal(await guard.claim('sig', 60), false);
  });
});
