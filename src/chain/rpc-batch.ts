// JSON-RPC batching for the ingestor's getTransaction reads: calls issued in the same turn of the
// event loop travel in one HTTP request (the Solana RPC accepts JSON-RPC batches), which removes
// most of the per-call HTTP cost of a backfill. Every other method uses kit's default transport.
// A node that refuses batches is detected on the first reply, and batching is then switched off.
// Single calls and batches alike fail over across the configured endpoints.
// Batched replies are parsed with JSON.parse: integers above 2^53 (lamport balances) lose precision;
// ingestion reads only slot, blockTime, err and the logs of a getTransaction reply.
import { createSolanaRpcFromTransport, type RpcTransport } from '@solana/kit';
import type { SolanaRpc } from './rpc.js';
import type { RpcEndpoints } from './rpc-endpoints.js';
import { RpcHttpStatusError } from './rpc-failure.js';

const BATCHED_METHODS = new Set(['getTransaction']);

interface Call {
  payload: { id: string; method: string };
  resolve(reply: unknown): void;
  reject(error: unknown): void;
}

export function createBatchingSolanaRpc(
  rpcEndpoints: RpcEndpoints,
  options: { maxBatch: number },
): SolanaRpc {
  const single = ({ payload, signal }: { payload: unknown; signal?: AbortSignal }) =>
    rpcEndpoints.request(
      (endpoint, attemptSignal) => endpoint.transport<unknown>({ payload, signal: attemptSignal }),
      signal,
    );
  let batching = options.maxBatch > 1;
  const queue: Call[] = [];
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    while (queue.length > 0) void send(queue.splice(0, options.maxBatch));
  };

  async function send(calls: Call[]): Promise<void> {
    if (calls.length === 1 || !batching) {
      for (const call of calls) single({ payload: call.payload }).then(call.resolve, call.reject);
      return;
    }
    try {
      const body = JSON.stringify(
        calls.map((c) => c.payload),
        (_key, value: unknown) => (typeof value === 'bigint' ? Number(value) : value),
      );
      const replies: unknown = await rpcEndpoints.request(async (endpoint, signal) => {
        const response = await fetch(endpoint.rpcUrl, {
          method: 'POST',
          headers: { accept: 'application/json', 'content-type': 'application/json; charset=utf-8' },
          body,
          signal,
        });
        if (!response.ok) {
          await response.body?.cancel();
          throw new RpcHttpStatusError(response.status, response.headers);
        }
        return await response.json();
      });
      if (!Array.isArray(replies)) {
        batching = false; // this node does not take batches: resend one by one from now on
        for (const call of calls) single({ payload: call.payload }).then(call.resolve, call.reject);
        return;
      }
      const byId = new Map(replies.map((r: { id?: unknown }) => [String(r?.id), r]));
      for (const call of calls) {
        const reply = byId.get(call.payload.id);
        if (reply === undefined) call.reject(new Error(`RPC batch reply without id ${call.payload.id}`));
        else call.resolve(reply);
      }
    } catch (error) {
      for (const call of calls) call.reject(error);
    }
  }

  const transport: RpcTransport = (async ({
    payload,
    signal,
  }: {
    payload: unknown;
    signal?: AbortSignal;
  }) => {
    const message = payload as Call['payload'];
    if (!batching || !BATCHED_METHODS.has(message?.method)) return single({ payload, signal });
    signal?.throwIfAborted();
    return await new Promise<never>((resolve, reject) => {
      const onAbort = () => reject(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => signal?.removeEventListener('abort', onAbort);
      queue.push({
        payload: message,
        resolve: (reply) => {
          done();
          resolve(reply as never);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      if (queue.length >= options.maxBatch) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
  }) as RpcTransport;

  return createSolanaRpcFromTransport(transport);
}
