import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createOrderedReader } from './fetch-transaction.js';

/** A read whose completion the test controls, to put results out of order. */
function controlledReads() {
  const pending = new Map<number, { resolve(v: string): void; reject(e: Error): void }>();
  let inFlight = 0;
  let maxInFlight = 0;
  const read = (n: number) =>
    new Promise<string>((resolve, reject) => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      pending.set(n, {
        resolve: (v) => {
          inFlight -= 1;
          resolve(v);
        },
        reject: (e) => {
          inFlight -= 1;
          reject(e);
        },
      });
    });
  return { read, pending, maxInFlight: () => maxInFlight };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('createOrderedReader', () => {
  test('hands results back in input order, however the reads complete', async () => {
    const reads = controlledReads();
    const reader = createOrderedReader([0, 1, 2, 3], reads.read, { concurrency: 4, buffer: 10 });
    const first = reader.nextBatch(10);
    await tick();
    for (const n of [3, 1, 2]) reads.pending.get(n)?.resolve(`r${n}`);
    await tick();
    reads.pending.get(0)?.resolve('r0');
    assert.deepEqual(await first, ['r0', 'r1', 'r2', 'r3']);
    assert.equal(await reader.nextBatch(10), null);
  });

  test('keeps at most `concurrency` reads in flight', async () => {
    const reads = controlledReads();
    const reader = createOrderedReader([0, 1, 2, 3, 4, 5], reads.read, { concurrency: 2, buffer: 10 });
    const batch = reader.nextBatch(6, 6);
    for (let n = 0; n < 6; n++) {
      await tick();
      reads.pending.get(n)?.resolve(`r${n}`);
    }
    assert.equal((await batch)?.length, 6);
    assert.equal(reads.maxInFlight(), 2);
  });

  test('with min, waits for a full batch; a failure is thrown after the results before it', async () => {
    const reads = controlledReads();
    const reader = createOrderedReader([0, 1, 2], reads.read, { concurrency: 3, buffer: 10 });
    const batch = reader.nextBatch(3, 3);
    await tick();
    reads.pending.get(0)?.resolve('r0');
    reads.pending.get(2)?.resolve('r2');
    reads.pending.get(1)?.reject(new Error('node down'));
    assert.deepEqual(await batch, ['r0']);
    await assert.rejects(reader.nextBatch(3, 3), /node down/);
  });
});
