// Server timeouts over real sockets: a body that dribbles in too slowly gets 408 and its socket closes.
import assert from 'node:assert/strict';
import { createConnection, type Socket } from 'node:net';
import { afterEach, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { useTestApps } from '../support/test-apps.js';
import { waitFor } from '../support/wait.js';

/** Sockets of the test, closed in reverse order after it: registered before the world's hooks, so before its app. */
const closing: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});
const apps = useTestApps();

async function listen(env: Record<string, string> = {}): Promise<{ app: FastifyInstance; port: number }> {
  const { app, port } = await apps.listen({ env: { RATE_LIMIT_ENABLED: 'false', ...env } });
  return { app, port };
}

/** A raw connection that records what the server sends and whether it closed. */
async function connect(
  port: number,
): Promise<{ socket: Socket; received: () => string; closed: () => boolean }> {
  const socket = createConnection({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let text = '';
  let isClosed = false;
  socket.on('data', (chunk) => {
    text += chunk.toString('utf8');
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    isClosed = true;
  });
  closing.push(async () => socket.destroy());
  return { socket, received: () => text, closed: () => isClosed };
}

const head = (length: number) =>
  `POST /api/vaults HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

describe('request timeout', () => {
  test('a body still dribbling in after REQUEST_BODY_TIMEOUT_MS gets 408 REQUEST_TIMEOUT and the socket closes', async () => {
    const { port } = await listen({ REQUEST_BODY_TIMEOUT_MS: '300' });
    const client = await connect(port);
    client.socket.write(`${head(1000)}{`);
    // One byte every 50 ms: the connection is never idle, the body never complete.
    const dribble = setInterval(() => {
      if (!client.socket.destroyed) client.socket.write(' ');
    }, 50);
    try {
      await waitFor(() => client.closed(), { timeoutMs: 5_000, message: 'socket not closed' });
    } finally {
      clearInterval(dribble);
    }
    const response = client.received();
    assert.match(response, /^HTTP\/1\.1 408 Request Timeout\r\n/);
    assert.match(response, /\r\nconnection: close\r\n/i);
    assert.match(response, /\r\nx-content-type-options: nosniff\r\n/i);
    const body = JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));
    assert.deepEqual(body, {
      error: 'The request was not received in full within 0.3 s',
      code: 'REQUEST_TIMEOUT',
      details: { timeoutMs: 300 },
    });
  });

  test('a request received in time is answered normally and its connection stays open', async () => {
    const { port } = await listen({ REQUEST_BODY_TIMEOUT_MS: '300' });
    const client = await connect(port);
    client.socket.write(`${head(2)}{}`);
    await waitFor(() => client.received().includes('\r\n\r\n{'), { timeoutMs: 5_000 });
    assert.match(client.received(), /^HTTP\/1\.1 401 /);
    assert.equal(client.closed(), false);
  });

  test('defaults: 30 s for a whole request, 72 s keep-alive, 2 minutes of socket silence', async () => {
    const { app } = await listen();
    assert.equal(app.server.requestTimeout, 30_000);
    assert.equal(app.server.headersTimeout, 30_000);
    assert.equal(app.server.keepAliveTimeout, 72_000);
    assert.equal(app.server.timeout, 120_000);
  });
});
