import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMetrics } from '../lib/metrics.js';
import { createMemoryCache } from './memory-cache.js';
import { createReadCache } from './read-cache.js';

function setup(enabled = true) {
  const cache = createMemoryCache();
  const metrics = createMetrics();
  const readCache = createReadCache({ cache, metrics, enabled });
  const counts = async () =>
    Object.fromEntries((await metrics.cacheRequests.get()).values.map((v) => [v.labels.result, v.value]));
  return { cache, readCache, counts };
}

const noTags = () => [];

test('serves a stored value until its tag is evicted, counting hits and misses', async () => {
  const { cache, readCache, counts } = setup();
  let loads = 0;
  const load = async () => ({ n: ++loads });
  assert.deepEqual(await readCache.read('k', 60, () => ['vault:a'], load), { n: 1 });
  assert.deepEqual(await readCache.read('k', 60, () => ['vault:a'], load), { n: 1 });
  await cache.deleteByTag('vault:a');
  assert.deepEqual(await readCache.read('k', 60, () => ['vault:a'], load), { n: 2 });
  assert.deepEqual(await counts(), { hit: 1, miss: 2 });
});

test('concurrent misses of one key share a single load', async () => {
  const { readCache } = setup();
  let loads = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const load = async () => {
    loads += 1;
    await gate;
    return 'value';
  };
  const reads = Array.from({ length: 5 }, () => readCache.read('k', 60, noTags, load));
  release();
  assert.deepEqual(await Promise.all(reads), Array(5).fill('value'));
  assert.equal(loads, 1);
});

test('does not cache a load that throws, so the next read tries again', async () => {
  const { readCache } = setup();
  let calls = 0;
  const load = async () => {
    calls += 1;
    if (calls === 1) throw new Error('not found');
    return 'found';
  };
  await assert.rejects(readCache.read('k', 60, noTags, load), /not found/);
  assert.equal(await readCache.read('k', 60, noTags, load), 'found');
});

test('when disabled, every read loads and nothing is counted', async () => {
  const { readCache, counts } = setup(false);
  let loads = 0;
  const load = async () => ++loads;
  await readCache.read('k', 60, noTags, load);
  await readCache.read('k', 60, noTags, load);
  assert.equal(loads, 2);
  assert.deepEqual(await counts(), {});
});

test('readBody stores the serialized body once and hands back those very bytes until its tag is evicted', async () => {
  const { cache, readCache, counts } = setup();
  let loads = 0;
  let serializations = 0;
  const load = async () => ({ n: ++loads, when: new Date(0) });
  const serialize = (value: { n: number }) => {
    serializations += 1;
    return `{"n":${value.n}}`;
  };
  const first = await readCache.readBody('k', 60, () => ['vault:a'], load, serialize);
  assert.equal(first.toString(), '{"n":1}');
  assert.equal(
    await readCache.readBody('k', 60, () => ['vault:a'], load, serialize),
    first,
    'the same bytes',
  );
  assert.equal(serializations, 1, 'a hit serializes nothing');
  await cache.deleteByTag('vault:a');
  assert.equal((await readCache.readBody('k', 60, () => ['vault:a'], load, serialize)).toString(), '{"n":2}');
  assert.equal(serializations, 2);
  assert.deepEqual(await counts(), { hit: 1, miss: 2 });
});

test('readBody: concurrent misses share one load and one serialization; a failed load is not cached', async () => {
  const { readCache } = setup();
  let loads = 0;
  let fail = true;
  const load = async () => {
    loads += 1;
    if (fail) throw new Error('not found');
    return 7;
  };
  await assert.rejects(readCache.readBody('k', 60, noTags, load, String), /not found/);
  fail = false;
  const reads = Array.from({ length: 4 }, () => readCache.readBody('k', 60, noTags, load, String));
  assert.deepEqual((await Promise.all(reads)).map(String), Array(4).fill('7'));
  assert.equal(loads, 2);
});

test('readBody when disabled loads and serializes every time', async () => {
  const { readCache, counts } = setup(false);
  let loads = 0;
  const load = async () => ++loads;
  assert.equal(String(await readCache.readBody('k', 60, noTags, load, String)), '1');
  assert.equal(String(await readCache.readBody('k', 60, noTags, load, String)), '2');
  assert.deepEqual(await counts(), {});
});
