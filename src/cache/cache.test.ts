import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { waitFor } from '../../test/support/wait.js';
import type { Cache } from './cache.js';
import { createMemoryCache } from './memory-cache.js';
import { createRedisCache } from './redis-cache.js';

const redisUrl = process.env.REDIS_URL;
/** Each implementation, or why it cannot run here (its tests are then reported as skipped). */
const implementations: [string, (() => Cache) | string][] = [
  ['memory', () => createMemoryCache()],
  [
    'redis',
    redisUrl
      ? () => createRedisCache(redisUrl, { prefix: `vk-test-${randomBytes(4).toString('hex')}:` })
      : 'REDIS_URL unset: the Redis run of the suite checks the contract on Redis',
  ],
];

for (const [name, create] of implementations) {
  const skip = typeof create === 'string' ? create : false;
  describe(`${name} cache contract`, () => {
    let cache: Cache;
    before(async () => {
      if (typeof create === 'string') return;
      cache = create();
      await waitFor(() => cache.ping(), { message: `${name} cache connected` });
    });
    after(() => cache?.close());

    test('returns what was stored, as JSON, and misses unknown keys', { skip }, async () => {
      await cache.set('a', { n: 1, s: 'x', list: [1, 2] }, 60);
      assert.deepEqual(await cache.get('a'), { n: 1, s: 'x', list: [1, 2] });
      assert.equal(await cache.get('never-set'), undefined);
    });

    test('a stored value is a snapshot: neither the writer nor a reader can change what is cached', {
      skip,
    }, async () => {
      const written = { when: new Date('2026-01-02T03:04:05.678Z'), nested: { list: [1, 2] } };
      await cache.set('snap', written, 60);
      written.nested.list.push(3);
      const read = await cache.get<{ when: string; nested: { list: number[] } }>('snap');
      assert.deepEqual(read, { when: '2026-01-02T03:04:05.678Z', nested: { list: [1, 2] } });
      try {
        read!.nested.list.push(4);
      } catch {
        // the in-process cache hands out a frozen value
      }
      assert.deepEqual(await cache.get('snap'), {
        when: '2026-01-02T03:04:05.678Z',
        nested: { list: [1, 2] },
      });
    });

    test('setBody stores bytes as they are, evicted by their tags like any value', { skip }, async () => {
      const body = Buffer.from('{"b":1,  "a":"\\u00e9 é"}');
      await cache.setBody('body', body, 60, ['vault:T']);
      assert.deepEqual(await cache.getBody('body'), body);
      assert.equal(await cache.getBody('never-set'), undefined);
      await cache.deleteByTag('vault:T');
      assert.equal(await cache.getBody('body'), undefined);
    });

    test('delete removes keys', { skip }, async () => {
      await cache.set('d1', 1, 60);
      await cache.set('d2', 2, 60);
      await cache.delete('d1', 'd2');
      assert.equal(await cache.get('d1'), undefined);
      assert.equal(await cache.get('d2'), undefined);
    });

    test('deleteByTag evicts every key stored with the tag and nothing else', { skip }, async () => {
      await cache.set('t1', 1, 60, ['vault:A']);
      await cache.set('t2', 2, 60, ['vault:A', 'cross']);
      await cache.set('t3', 3, 60, ['vault:B']);
      await cache.deleteByTag('vault:A');
      assert.equal(await cache.get('t1'), undefined);
      assert.equal(await cache.get('t2'), undefined);
      assert.equal(await cache.get('t3'), 3);
    });

    test('setIfAbsent succeeds once per key', { skip }, async () => {
      assert.equal(await cache.setIfAbsent('once', 60), true);
      assert.equal(await cache.setIfAbsent('once', 60), false);
      assert.equal(await cache.setIfAbsent('other', 60), true);
    });

    test('increment counts from one', { skip }, async () => {
      assert.equal(await cache.increment('counter', 60), 1);
      assert.equal(await cache.increment('counter', 60), 2);
      assert.equal(await cache.increment('counter', 60), 3);
    });

    test('ping answers true while the backend is up', { skip }, async () => {
      assert.equal(await cache.ping(), true);
    });
  });
}

describe('memory cache expiry', () => {
  test('entries expire after their TTL', async () => {
    let now = 1_000_000;
    const cache = createMemoryCache({ now: () => now });
    await cache.set('k', 'v', 30);
    now += 29_000;
    assert.equal(await cache.get('k'), 'v');
    now += 2_000;
    assert.equal(await cache.get('k'), undefined);
  });
});

describe('redis cache during an outage', () => {
  test('reads miss and writes are no-ops instead of errors', async () => {
    // Port 1 on loopback: nothing listens, every command fails fast.
    const cache = createRedisCache('redis://127.0.0.1:1');
    try {
      assert.equal(await cache.get('k'), undefined);
      await cache.set('k', 1, 60, ['tag']);
      await cache.delete('k');
      await cache.deleteByTag('tag');
      assert.equal(await cache.ping(), false);
      await assert.rejects(cache.setIfAbsent('once', 60));
    } finally {
      await cache.close();
    }
  });
});
