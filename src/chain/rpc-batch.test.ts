import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Signature } from '@solana/kit';
import { createBatchingSolanaRpc } from './rpc-batch.js';
import { createRpcEndpoints } from './rpc-endpoints.js';

const endpointsAt = (rpcUrl: string) => createRpcEndpoints([{ rpcUrl, wsUrl: 'ws://127.0.0.1:9' }]);

/** A JSON-RPC node that records how requests arrive; `acceptBatches: false` answers a batch with an error. */
function startNode(options: { acceptBatches: boolean }) {
  const bodies: unknown[] = [];
  const reply = (message: { id: string; method: string; params: unknown[] }) =>
    message.method === 'getTransaction'
      ? {
          jsonrpc: '2.0',
          id: message.id,
          result: { slot: 7, blockTime: 1_700_000_000, meta: null, sig: message.params[0] },
        }
      : { jsonrpc: '2.0', id: message.id, result: 42 };
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => {
      text += chunk;
    });
    req.on('end', () => {
      const body = JSON.parse(text);
      bodies.push(body);
      const answer = Array.isArray(body)
        ? options.acceptBatches
          ? body.map(reply)
          : { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch requests are not allowed' } }
        : reply(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  return new Promise<{ url: string; bodies: unknown[]; server: Server }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, server }),
    ),
  );
}

const read = (rpc: ReturnType<typeof createBatchingSolanaRpc>, n: number) =>
  Promise.all(
    Array.from({ length: n }, (_, i) =>
      rpc
        .getTransaction(`sig${i}` as Signature, { encoding: 'json', maxSupportedTransactionVersion: 0 })
        .send(),
    ),
  );

describe('createBatchingSolanaRpc', () => {
  let batching: Awaited<ReturnType<typeof startNode>>;
  let refusing: Awaited<ReturnType<typeof startNode>>;
  before(async () => {
    [batching, refusing] = await Promise.all([
      startNode({ acceptBatches: true }),
      startNode({ acceptBatches: false }),
    ]);
  });
  after(() => {
    batching.server.close();
    refusing.server.close();
  });

  test('getTransaction calls issued together travel in batches of at most maxBatch, each answer to its caller', async () => {
    const rpc = createBatchingSolanaRpc(endpointsAt(batching.url), { maxBatch: 4 });
    const replies = await read(rpc, 10);
    assert.deepEqual(
      replies.map((r) => (r as unknown as { sig: string }).sig),
      Array.from({ length: 10 }, (_, i) => `sig${i}`),
    );
    assert.equal(replies[0]?.slot, 7n, 'kit still upcasts integers to bigint');
    assert.deepEqual(
      batching.bodies.map((b) => (Array.isArray(b) ? b.length : 1)),
      [4, 4, 2],
    );
  });

  test('other methods are sent one by one', async () => {
    batching.bodies.length = 0;
    const rpc = createBatchingSolanaRpc(endpointsAt(batching.url), { maxBatch: 4 });
    await Promise.all([rpc.getSlot().send(), rpc.getSlot().send()]);
    assert.ok(batching.bodies.every((b) => !Array.isArray(b)));
  });

  test('a node that refuses batches gets single requests from then on, and every call is answered', async () => {
    const rpc = createBatchingSolanaRpc(endpointsAt(refusing.url), { maxBatch: 4 });
    const first = await read(rpc, 3);
    const second = await read(rpc, 3);
    assert.equal(first.length + second.length, 6);
    assert.deepEqual(
      refusing.bodies.map((b) => (Array.isArray(b) ? 'batch' : 'single')),
      ['batch', 'single', 'single', 'single', 'single', 'single', 'single'],
    );
  });
});
