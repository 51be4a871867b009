// A second RPC endpoint in front of the fake validator (same ledger), which can be taken down, made to
// answer 429 with Retry-After or a JSON-RPC error to chosen methods, and which records every request.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createConnection } from 'node:net';
import { listenRestartable } from './tcp-proxy.js';

export type RpcProxyMode = 'pass' | 'rate_limited';

export interface RpcProxyRequest {
  /** performance.now() when the request's headers arrived. */
  readonly at: number;
  readonly kind: 'http' | 'ws';
  readonly answered: number;
}

export interface RpcProxy {
  readonly port: number;
  /** Base URL; append any path and query (e.g. a fake API key) and it still reaches the validator. */
  readonly httpBase: string;
  readonly wsBase: string;
  readonly requests: RpcProxyRequest[];
  /** performance.now() when the first 429 answer was sent in the current rate-limited period. */
  readonly first429At: number | null;
  /** 429 to every HTTP request and WebSocket upgrade, with this Retry-After (seconds). */
  rateLimit(retryAfterSeconds: number): void;
  pass(): void;
  /** The next `times` calls of `method` answer a JSON-RPC internal error instead of reaching the validator. */
  failNext(method: string, times?: number): void;
  /** How many HTTP calls of `method` arrived (failed ones included). */
  calls(method: string): number;
  /** Drops every connection and refuses new ones (a node that went away). */
  down(): Promise<void>;
  /** Accepts connections again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startRpcProxy(target: { rpcUrl: string }): Promise<RpcProxy> {
  const upstream = new URL(target.rpcUrl);
  const requests: RpcProxyRequest[] = [];
  let mode: RpcProxyMode = 'pass';
  let retryAfter = 0;
  let first429At: number | null = null;
  const failures = new Map<string, number>();
  const callCounts = new Map<string, number>();

  const refuse = (res: ServerResponse) => {
    first429At ??= performance.now();
    res.writeHead(429, { 'retry-after': String(retryAfter), 'content-type': 'application/json' });
    res.end('{"jsonrpc":"2.0","error":{"code":429,"message":"Too many requests"},"id":null}');
  };

  async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const sent = Buffer.concat(chunks);
    const call = parseCall(sent);
    if (call !== null) {
      callCounts.set(call.method, (callCounts.get(call.method) ?? 0) + 1);
      const left = failures.get(call.method) ?? 0;
      if (left > 0) {
        failures.set(call.method, left - 1);
        const error = { code: -32603, message: 'Internal error' };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error }));
        return;
      }
    }
    const answer = await fetch(upstream, {
      method: req.method ?? 'POST',
      headers: { 'content-type': 'application/json' },
      ...(req.method === 'POST' ? { body: sent } : {}),
    });
    const body = Buffer.from(await answer.arrayBuffer());
    res.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  }

  const restartable = await listenRestartable(() => {
    const next = createServer((req, res) => {
      requests.push({ at: performance.now(), kind: 'http', answered: mode === 'pass' ? 200 : 429 });
      if (mode === 'rate_limited') return refuse(res);
      forward(req, res).catch(() => res.destroy());
    });
    next.on('upgrade', (req, socket, head) => {
      requests.push({ at: performance.now(), kind: 'ws', answered: mode === 'pass' ? 101 : 429 });
      if (mode === 'rate_limited') {
        first429At ??= performance.now();
        socket.end(
          `HTTP/1.1 429 Too Many Requests\r\nRetry-After: ${retryAfter}\r\nConnection: close\r\n\r\n`,
        );
        return;
      }
      const link = createConnection({ host: upstream.hostname, port: Number(upstream.port) });
      restartable.sockets.add(link);
      const drop = () => {
        socket.destroy();
        link.destroy();
        restartable.sockets.delete(link);
      };
      link.on('error', drop).on('close', drop);
      socket.on('error', drop).on('close', drop);
      link.on('connect', () => {
        // The validator answers WebSockets on any path: forward the handshake without the key-bearing one.
        const headers = Object.entries(req.headers).map(([k, v]) => `${k}: ${v}`);
        link.write(`GET / HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`);
        if (head.length > 0) link.write(head);
        link.pipe(socket).pipe(link);
      });
    });
    next.keepAliveTimeout = 65_000;
    return next;
  });
  const port = restartable.port;

  return {
    port,
    httpBase: `http://127.0.0.1:${port}`,
    wsBase: `ws://127.0.0.1:${port}`,
    requests,
    get first429At() {
      return first429At;
    },
    rateLimit(seconds) {
      mode = 'rate_limited';
      retryAfter = seconds;
      first429At = null;
    },
    pass() {
      mode = 'pass';
    },
    failNext(method, times = 1) {
      failures.set(method, times);
    },
    calls: (method) => callCounts.get(method) ?? 0,
    down: restartable.stop,
    up: restartable.start,
    close: restartable.stop,
  };
}

/** The method and id of a single JSON-RPC call (null for a batch or anything else). */
function parseCall(body: Buffer): { method: string; id: unknown } | null {
  try {
    const call = JSON.parse(body.toString('utf8')) as { method?: unknown; id?: unknown };
    return typeof call.method === 'string' ? { method: call.method, id: call.id ?? null } : null;
  } catch {
    return null;
  }
}
