// A webhook receiver on 127.0.0.1 that records every request and answers as the test tells it.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body exactly as sent (what signatures cover). */
  body: string;
  receivedAt: number;
}

export type Reply = { status: number; headers?: Record<string, string>; body?: string } | 'hang';
/** Decides the answer; `index` counts requests from 0. */
export type Responder = (request: ReceivedRequest, index: number) => Reply | Promise<Reply>;

export interface WebhookReceiver {
  readonly url: string;
  readonly port: number;
  readonly requests: ReceivedRequest[];
  /** The most requests for one webhook-id that were open at the same moment. */
  readonly maxConcurrentPerId: number;
  respond(responder: Responder): void;
  /** Takes the receiver down: refuses connections and cuts open ones. */
  stop(): Promise<void>;
  /** Brings it back on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function createWebhookReceiver(
  options: { responder?: Responder; port?: number } = {},
): Promise<WebhookReceiver> {
  let responder: Responder = options.responder ?? (() => ({ status: 200, body: 'ok' }));
  const requests: ReceivedRequest[] = [];
  const openById = new Map<string, number>();
  const sockets = new Set<Socket>();
  let maxConcurrentPerId = 0;
  let server: Server | null = null;
  let port = options.port ?? 0;

  const listen = async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', async () => {
        const received: ReceivedRequest = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          receivedAt: Date.now(),
        };
        const index = requests.push(received) - 1;
        const id = String(req.headers['webhook-id'] ?? '');
        const open = (openById.get(id) ?? 0) + 1;
        openById.set(id, open);
        maxConcurrentPerId = Math.max(maxConcurrentPerId, open);
        res.on('close', () => openById.set(id, (openById.get(id) ?? 1) - 1));
        const reply = await responder(received, index);
        if (reply === 'hang') return;
        res.writeHead(reply.status, reply.headers ?? {});
        res.end(reply.body ?? '');
      });
    });
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  };

  const stop = async () => {
    if (server === null) return;
    const closing = new Promise<void>((resolve) => server!.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closing;
    server = null;
  };

  await listen();
  return {
    get url() {
      return `http://127.0.0.1:${port}/hooks`;
    },
    get port() {
      return port;
    },
    requests,
    get maxConcurrentPerId() {
      return maxConcurrentPerId;
    },
    respond(next) {
      responder = next;
    },
    stop,
    start: listen,
    close: stop,
  };
}
