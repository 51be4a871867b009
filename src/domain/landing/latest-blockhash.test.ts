import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../errors.js';
import { createLatestBlockhashSource, type LatestBlockhash } from './latest-blockhash.js';

function manualClock() {
  let now = Date.parse('2026-11-22T00:00:00.000Z');
  return {
    now: () => new Date(now),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const hash = (n: number): LatestBlockhash => ({ blockhash: `hash${n}`, lastValidBlockHeight: BigInt(n) });

describe('createLatestBlockhashSource', () => {
  it('shares one RPC call between concurrent callers and reuses the answer for reuseMs', async () => {
    const clock = manualClock();
    let calls = 0;
    const source = createLatestBlockhashSource(async () => hash(++calls), { clock, reuseMs: 2_000 });
    const [a, b] = await Promise.all([source.get(), source.get()]);
    assert.equal(calls, 1);
    assert.deepEqual([a, b], [hash(1), hash(1)]);
    clock.advance(1_999);
    assert.deepEqual(await source.get(), hash(1));
    clock.advance(1);
    assert.deepEqual(await source.get(), hash(2));
  });

  it('turns a failure into RPC_UNAVAILABLE, reports it, and does not keep it', async () => {
    const errors: unknown[] = [];
    let fail = true;
    const source = createLatestBlockhashSource(
      async () => {
        if (fail) throw new Error('ECONNREFUSED');
        return hash(7);
      },
      { clock: manualClock(), onError: (e) => errors.push(e) },
    );
    await assert.rejects(source.get(), (e: unknown) => e instanceof AppError && e.code === 'RPC_UNAVAILABLE');
    assert.equal(errors.length, 1);
    fail = false;
    assert.deepEqual(await source.get(), hash(7));
  });

  it('gives up after timeoutMs on an RPC node that never answers', async () => {
    // AbortSignal.timeout does not hold the event loop open; a server's sockets do, this timer here.
    const keepAlive = setTimeout(() => {}, 5_000);
    const source = createLatestBlockhashSource(
      (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
      { clock: manualClock(), timeoutMs: 20 },
    );
    await assert.rejects(source.get(), (e: unknown) => e instanceof AppError && e.code === 'RPC_UNAVAILABLE');
    clearTimeout(keepAlive);
  });
});
