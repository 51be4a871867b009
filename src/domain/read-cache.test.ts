import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryCache } from '../cache/memory-cache.js';
import { createMetrics } from '../lib/metrics.js';
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
