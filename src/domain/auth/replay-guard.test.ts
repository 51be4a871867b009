import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMemoryCache } from '../../cache/memory-cache.js';
import { createLocalClaims, createReplayGuard } from './replay-guard.js';
import type { ClaimStore } from './replay-guard-store.js';

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

  /** A ClaimStore over a Map, as two instances sharing one database see it. */
  function memoryClaimStore(): ClaimStore & { rows: Map<string, number> } {
    const rows = new Map<string, number>();
    return {
      rows,
      claim: async (key, expiresAt) => {
        if (rows.has(key)) return false;
        rows.set(key, expiresAt.getTime());
        return true;
      },
      latestExpiry: async () => (rows.size === 0 ? null : new Date(Math.max(...rows.values()))),
      purgeExpired: async (now) => {
        let deleted = 0;
        for (const [key, expiry] of rows) if (expiry < now.getTime() && rows.delete(key)) deleted += 1;
        return deleted;
      },
    };
  }

  /** Two instances' guards on one switchable shared cache, now down, and one database. */
  function twoInstancesWhileCacheIsDown() {
    const { cache, state } = switchableCache();
    const claimStore = memoryClaimStore();
    const clock = manualClock();
    const guardA = createReplayGuard({ cache, clock, claimStore });
    const guardB = createReplayGuard({ cache, clock, claimStore });
    state.up = false;
    return { guardA, guardB, claimStore, clock, state };
  }

  it('while the shared cache is down, instances sharing the database accept a key once between them', async () => {
    const { guardA, guardB, claimStore } = twoInstancesWhileCacheIsDown();
    const both = await Promise.all([guardA.claim('sig', 60), guardB.claim('sig', 60)]);
    assert.deepEqual(both.sort(), [false, true]);
    assert.equal(claimStore.rows.size, 1);
    assert.ok(![...claimStore.rows.keys()].some((key) => key.includes('sig')), 'keys are stored hashed');
  });

  it('after the cache returns, another instance still refuses a key claimed in the database, until it expires', async () => {
    const { guardA, guardB, claimStore, clock, state } = twoInstancesWhileCacheIsDown();
    assert.equal(await guardA.claim('sig', 60), true);
    state.up = true;
    assert.equal(await guardB.claim('sig', 60), false);
    assert.equal(await guardB.claim('fresh', 60), true);
    // Past the claims' expiry the database is left alone, and its expired rows are purged.
    clock.advance(61_000);
    assert.equal(await guardB.claim('later', 60), true);
    assert.equal(claimStore.rows.size, 0);
    assert.equal(await guardB.claim('later', 60), false);
    assert.equal(claimStore.rows.size, 0, 'nothing written while the cache answers and no claim is live');
  });

  it('a database that fails while the cache is down is SERVICE_UNAVAILABLE, never an acceptance', async () => {
    const { cache, state } = switchableCache();
    const failing: ClaimStore = {
      claim: () => Promise.reject(new Error('database down')),
      latestExpiry: () => Promise.reject(new Error('database down')),
      purgeExpired: () => Promise.reject(new Error('database down')),
    };
    const guard = createReplayGuard({ cache, clock: manualClock(), claimStore: failing });
    state.up = false;
    await assert.rejects(
      guard.claim('sig', 60),
      (error: { code?: string }) => error.code === 'SERVICE_UNAVAILABLE',
    );
    state.up = true;
    assert.equal(await guard.claim('sig', 60), true);
  });
});
