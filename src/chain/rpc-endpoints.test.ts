import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import {
  createFailoverSolanaRpc,
  createRpcEndpoints,
  rpcEndpointLabel,
  rpcUrlReplacements,
} from './rpc-endpoints.js';
import { parseRetryAfter } from './rpc-failure.js';

/** A JSON-RPC node whose answer the test sets: a slot, an HTTP status (with headers), or silence. */
function startNode() {
  const node = {
    url: '',
    hits: 0,
    answer: { status: 200, headers: {} as Record<string, string>, hang: false },
    server: null as unknown as Server,
  };
  node.server = createServer((req, res) => {
    node.hits += 1;
    req.resume().on('end', () => {
      if (node.answer.hang) return;
      res.writeHead(node.answer.status, { 'content-type': 'application/json', ...node.answer.headers });
      res.end(node.answer.status === 200 ? '{"jsonrpc":"2.0","id":"0","result":42}' : '{}');
    });
  });
  return new Promise<typeof node>((resolve) =>
    node.server.listen(0, '127.0.0.1', () => {
      node.url = `http://127.0.0.1:${(node.server.address() as AddressInfo).port}/key/SECRET?x=1`;
      resolve(node);
    }),
  );
}

let a: Awaited<ReturnType<typeof startNode>>;
let b: Awaited<ReturnType<typeof startNode>>;
before(async () => {
  [a, b] = await Promise.all([startNode(), startNode()]);
});
after(() => {
  a.server.closeAllConnections();
  b.server.closeAllConnections();
  a.server.close();
  b.server.close();
});
beforeEach(() => {
  for (const node of [a, b]) {
    node.hits = 0;
    node.answer = { status: 200, headers: {}, hang: false };
  }
});

function endpoints(options: { now?: () => number; timeoutMs?: number } = {}) {
  const pool = createRpcEndpoints(
    [
      { rpcUrl: a.url, wsUrl: 'ws://127.0.0.1:9' },
      { rpcUrl: b.url, wsUrl: 'ws://127.0.0.1:9' },
    ],
    options,
  );
  return { pool, rpc: createFailoverSolanaRpc(pool) };
}

describe('parseRetryAfter', () => {
  test('reads seconds and HTTP dates, ignores nonsense', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': '7' }), now), 7_000);
    assert.equal(
      parseRetryAfter(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now),
      3_000,
    );
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': 'soon' }), now), null);
    assert.equal(parseRetryAfter(new Headers(), now), null);
  });
});

describe('createRpcEndpoints', () => {
  test('a 429 moves the call on, and the endpoint gets nothing until its Retry-After has passed', async () => {
    let clock = 1_000_000;
    const { pool, rpc } = endpoints({ now: () => clock });
    a.answer = { status: 429, headers: { 'retry-after': '5' }, hang: false };
    assert.equal(await rpc.getSlot().send(), 42n);
    assert.deepEqual([a.hits, b.hits], [1, 1]);
    for (let i = 0; i < 5; i++) await rpc.getSlot().send();
    assert.deepEqual([a.hits, b.hits], [1, 6], 'no call to the rate-limited endpoint inside its window');
    assert.equal(pool.status()[0]?.cooldownMs, 5_000);

    a.answer = { status: 200, headers: {}, hang: false };
    clock += 4_999;
    await rpc.getSlot().send();
    assert.equal(a.hits, 1);
    clock += 1;
    await rpc.getSlot().send();
    assert.deepEqual([a.hits, b.hits], [2, 7], 'back on the preferred endpoint once the window closed');
    assert.equal(pool.status()[0]?.available, true);
  });

  test('5xx and timeouts move on too; cooldowns without Retry-After grow', async () => {
    let clock = 0;
    const { pool, rpc } = endpoints({ now: () => clock, timeoutMs: 200 });
    a.answer = { status: 503, headers: {}, hang: false };
    await rpc.getSlot().send();
    assert.equal(pool.status()[0]?.cooldownMs, 1_000);
    clock += 1_000;
    a.answer = { status: 200, headers: {}, hang: true };
    const started = performance.now();
    assert.equal(await rpc.getSlot().send(), 42n);
    assert.ok(performance.now() - started < 2_000, 'a silent endpoint costs one timeout');
    assert.equal(pool.status()[0]?.cooldownMs, 2_000, 'second failure in a row: twice the cooldown');
    assert.equal(pool.status()[0]?.consecutiveFailures, 2);
  });

  test("a 4xx other than 429 is the call's fault: thrown, not failed over", async () => {
    const { pool, rpc } = endpoints();
    a.answer = { status: 400, headers: {}, hang: false };
    await assert.rejects(rpc.getSlot().send());
    assert.deepEqual([a.hits, b.hits], [1, 0]);
    assert.equal(pool.status()[0]?.available, true);
  });

  test('when every endpoint fails the last error is thrown, and the next call still tries them', async () => {
    const clock = 0;
    const { rpc } = endpoints({ now: () => clock });
    a.answer = b.answer = { status: 502, headers: {}, hang: false };
    await assert.rejects(rpc.getSlot().send(), /HTTP error \(502\)/);
    assert.deepEqual([a.hits, b.hits], [1, 1]);
    // A cooldown after errors only ranks an endpoint last: with no other choice it is tried again.
    a.answer = { status: 200, headers: {}, hang: false };
    assert.equal(await rpc.getSlot().send(), 42n);
    assert.deepEqual([a.hits, b.hits], [2, 1]);
  });

  test('when every endpoint asked to wait with Retry-After, nothing is sent until a window closes', async () => {
    let clock = 0;
    const { pool, rpc } = endpoints({ now: () => clock });
    a.answer = { status: 429, headers: { 'retry-after': '3' }, hang: false };
    b.answer = { status: 503, headers: { 'retry-after': '9' }, hang: false };
    await assert.rejects(rpc.getSlot().send(), /HTTP error \(503\)/);
    await assert.rejects(rpc.getSlot().send(), /every RPC endpoint asked to wait/);
    assert.equal(pool.pick(), null);
    assert.deepEqual([a.hits, b.hits], [1, 1]);
    clock += 3_000;
    a.answer = { status: 200, headers: {}, hang: false };
    assert.equal(await rpc.getSlot().send(), 42n);
    assert.deepEqual([a.hits, b.hits], [2, 1]);
  });

  test('labels and replacements keep only scheme and host', () => {
    assert.equal(
      rpcEndpointLabel('https://user:pw@rpc.example.com:8443/v2/KEY?api-key=Q'),
      'https://rpc.example.com:8443',
    );
    const pairs = rpcUrlReplacements([
      { rpcUrl: 'https://rpc.example.com/v2/KEY', wsUrl: 'wss://ws.example.com/v2/KEY' },
    ]);
    assert.deepEqual(
      pairs.find(([secret]) => secret === 'https://rpc.example.com/v2/KEY')?.[1],
      'https://rpc.example.com',
    );
    assert.deepEqual(pairs.find(([secret]) => secret === '/v2/KEY')?.[1], '/[redacted]');
    const { pool } = endpoints();
    assert.ok(!pool.redact(`failed: ${a.url}`).includes('SECRET'));
    assert.ok(pool.status().every((s) => !s.endpoint.includes('SECRET')));
  });
});
