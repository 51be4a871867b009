// Held approval waits are capped (APPROVAL_WAITS_PER_CLIENT, _PER_NETWORK, _MAX): one more from a
// client or network over its share is 429, one more when the process is full 503, both in the error
// envelope with Retry-After; the MCP wait_for_approval answers the same refusal as an isError result.
// A wait on a signature the service has not seen, or on a settled approval, is answered at once.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createOverride, createTransaction, createVault, randomSignature } from '../support/factories.js';
import { useTestApps } from '../support/test-apps.js';
import { waitFor } from '../support/wait.js';

const apps = useTestApps({
  env: {
    RATE_LIMIT_ENABLED: 'false',
    APPROVAL_WAITS_PER_CLIENT: '2',
    APPROVAL_WAITS_PER_NETWORK: '3',
    APPROVAL_WAITS_MAX: '8',
  },
});

async function pendingApproval() {
  const vault = await createVault(apps.db);
  const override = await createOverride(apps.db, { vault, nonce: 0n });
  const blocked = await createTransaction(apps.db, { vault, status: 'blocked', override });
  return { vault: vault.address, signature: blocked.signature! };
}

/** Requests the app holds now, from its metrics. */
async function held(app: FastifyInstance): Promise<number> {
  const res = await app.inject({ method: 'GET', url: '/metrics' });
  const line = res.body.split('\n').find((l) => l.includes('structure="approval_waits"'));
  return Number(line?.split(' ').at(-1));
}

describe('approval wait caps', () => {
  test('per client, per network (IPv4 /24, IPv6 /48) and per process, each refusal with Retry-After; a left wait frees its slot', async () => {
    const { app } = await apps.start();
    const { vault, signature } = await pendingApproval();
    const stop = new AbortController();
    const url = `/api/vaults/${vault}/approvals/${signature}?waitMs=20000`;
    const wait = (remoteAddress: string) =>
      app.inject({ method: 'GET', url, remoteAddress, signal: stop.signal } as never);
    const holding: Promise<unknown>[] = [];
    const hold = async (remoteAddress: string) => {
      const before = await held(app);
      holding.push(wait(remoteAddress).catch(() => {}));
      await waitFor(async () => (await held(app)) === before + 1, { message: `${remoteAddress} held` });
    };
    const refused = async (remoteAddress: string, status: number, limit: number) => {
      const res = await wait(remoteAddress);
      assert.equal(res.statusCode, status, `${remoteAddress}: ${res.body}`);
      assert.equal(res.headers['retry-after'], '5');
      assert.equal(res.json().details.limit, limit);
      return res.json();
    };
    try {
      await hold('198.51.100.1');
      await hold('198.51.100.1');
      const client = await refused('198.51.100.1', 429, 2);
      assert.equal(client.code, 'RATE_LIMIT_EXCEEDED');
      assert.match(client.error, /^At most 2 approval waits held at once per client address/);
      await hold('198.51.100.2');
      const network = await refused('198.51.100.3', 429, 3);
      assert.match(network.error, /from one network/);
      for (const subnet of [1, 2, 3]) await hold(`2001:db8:1:${subnet}::1`);
      assert.match(
        (await refused('2001:db8:1:4::1', 429, 3)).error,
        /from one network/,
        'a /48 is one network',
      );
      await hold('203.0.113.1');
      await hold('203.0.113.1');
      const full = await refused('192.0.2.1', 503, 8);
      assert.equal(full.code, 'SERVICE_UNAVAILABLE');
      // A read without waitMs, and a wait on a transfer not seen, take no slot and are answered at once.
      const now = await app.inject({
        method: 'GET',
        url: url.replace('?waitMs=20000', ''),
        remoteAddress: '192.0.2.1',
      });
      assert.equal(now.json().status, 'pending');
      stop.abort();
      await Promise.all(holding);
      await waitFor(async () => (await held(app)) === 0, { message: 'every slot freed' });
      const unseen = await app.inject({
        method: 'GET',
        url: `/api/vaults/${vault}/approvals/${randomSignature()}?waitMs=50000`,
        remoteAddress: '198.51.100.1',
      });
      assert.deepEqual([unseen.statusCode, unseen.json().status, unseen.json().amount], [200, 'none', null]);
    } finally {
      stop.abort();
      await Promise.all(holding);
    }
  });

  test('MCP wait_for_approval over its client’s share answers the refusal as an isError result', async () => {
    const { app } = await apps.start();
    const { vault, signature } = await pendingApproval();
    const stop = new AbortController();
    const holding = [0, 1].map(() =>
      app
        .inject({
          method: 'GET',
          url: `/api/vaults/${vault}/approvals/${signature}?waitMs=50000`,
          remoteAddress: '198.51.100.7',
          signal: stop.signal,
        } as never)
        .catch(() => {}),
    );
    try {
      await waitFor(async () => (await held(app)) === 2, { message: 'two held' });
      const res = await app.inject({
        method: 'POST',
        url: '/mcp',
        remoteAddress: '198.51.100.7',
        headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
        payload: {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'wait_for_approval', arguments: { vault, signature, timeoutSeconds: 60 } },
        },
      });
      assert.equal(res.statusCode, 200);
      const data = res.body.split('\n').find((line) => line.startsWith('data: '));
      const result = JSON.parse(data!.slice(6)).result;
      assert.equal(result.isError, true);
      assert.match(result.content[0].text, /^At most 2 approval waits held at once per client address/);
    } finally {
      stop.abort();
      await Promise.all(holding);
    }
  });
});
