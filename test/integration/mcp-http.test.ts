// The MCP server at POST /mcp, through the MCP SDK's own Client over Streamable HTTP: every tool on a
// blocked transfer, wait_for_approval until the owner approves or rejects through the Blink (with
// progress notifications), tool errors as isError results, and the endpoint's HTTP contract.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createVaultkeeperClient, VaultkeeperError } from '@vaultkeeper/client';
import {
  assertToolErrors,
  blockTransfer,
  callTool,
  exerciseReadTools,
  useServiceWithIngestor,
  waitThroughDecision,
} from '../support/mcp-session.js';

const service = useServiceWithIngestor();
let client: Client;

beforeEach(async () => {
  client = new Client({ name: 'mcp-http-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', service.baseUrl)));
});
afterEach(async () => {
  await client.close();
});

describe('MCP over Streamable HTTP (POST /mcp), with the SDK client', () => {
  test('lists the tools and the prompt, calls each tool, and waits until the owner approves through the Blink', async () => {
    const b = await blockTransfer(service.h);
    const approval = await exerciseReadTools(client, b);
    const waited = await waitThroughDecision(client, service.h, b, approval.approvalUrl, 'Approve');
    assert.ok(['executed', 'approved'].includes(waited.data.status), waited.text);
    assert.equal(waited.data.nonce, approval.nonce);
    assert.ok(waited.progress.length >= 1);
    assert.equal(waited.progress[0]!.total, 120);
    assert.equal(service.h.fake.balance(b.destination), b.amount, 'the owner sent it');
    const after = await client.callTool({
      name: 'get_approval',
      arguments: { vault: b.vault, signature: b.signature },
    });
    assert.equal((after.structuredContent as { status: string }).status, 'executed');
  });

  test('wait_for_approval answers rejected once the owner rejects through the Blink', async () => {
    const b = await blockTransfer(service.h);
    const approval = (
      await client.callTool({ name: 'get_approval', arguments: { vault: b.vault, signature: b.signature } })
    ).structuredContent as { approvalUrl: string };
    const waited = await waitThroughDecision(client, service.h, b, approval.approvalUrl, 'Reject');
    assert.equal(waited.data.status, 'rejected', waited.text);
    assert.match(waited.text, /^Rejected: the owner refused 3 SOL/);
    assert.equal(service.h.fake.balance(b.destination), 0n);
  });

  test('wait_for_approval answers pending at its timeout, and none at once for a transfer that asked for none', async () => {
    const b = await blockTransfer(service.h);
    const timedOut = await client.callTool({
      name: 'wait_for_approval',
      arguments: { vault: b.vault, signature: b.signature, timeoutSeconds: 1 },
    });
    assert.equal((timedOut.structuredContent as { status: string }).status, 'pending');
    const funds = await service.h.fake.block(b.vault, {
      amount: 500n * 1_000_000_000n,
      reason: 'insufficient_funds',
    });
    const { waitForSignatures } = await import('../support/wait.js');
    await waitForSignatures(service.h.storage.storage, [funds.signature]);
    const none = await client.callTool({
      name: 'wait_for_approval',
      arguments: { vault: b.vault, signature: funds.signature, timeoutSeconds: 300 },
    });
    assert.deepEqual(
      [
        (none.structuredContent as { status: string; amount: string }).status,
        (none.structuredContent as { amount: string }).amount,
      ],
      ['none', String(500n * 1_000_000_000n)],
    );
  });

  test('a bad argument or an unknown vault is an isError result carrying the API’s message', async () => {
    const b = await blockTransfer(service.h);
    await assertToolErrors(client, b);
  });
});

describe('POST /mcp as an HTTP endpoint', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
  };
  const accept = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

  test('is stateless and answers JSON: no session id; GET and DELETE are 405 in the error envelope', async () => {
    const res = await service.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: accept,
      payload: initialize,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.headers['mcp-session-id'], undefined);
    assert.equal(res.json().result.serverInfo.name, 'vaultkeeper');
    for (const method of ['GET', 'DELETE'] as const) {
      const refused = await service.app.inject({
        method,
        url: '/mcp',
        headers: { accept: 'text/event-stream' },
      });
      assert.equal(refused.statusCode, 405);
      assert.equal(refused.headers.allow, 'POST');
      assert.equal(refused.json().code, 'METHOD_NOT_ALLOWED');
    }
  });

  test('refuses a body over 16 KiB (413) and a body that is not JSON (415) in the error envelope', async () => {
    const big = { ...initialize, params: { ...initialize.params, padding: 'x'.repeat(17 * 1024) } };
    const tooLarge = await service.app.inject({ method: 'POST', url: '/mcp', headers: accept, payload: big });
    assert.equal(tooLarge.statusCode, 413);
    assert.equal(tooLarge.json().code, 'PAYLOAD_TOO_LARGE');
    const text = await service.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...accept, 'content-type': 'text/plain' },
      payload: 'hello',
    });
    assert.equal(text.statusCode, 415);
    assert.equal(text.json().code, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('each POST spends one read of the caller’s budget; the tool’s own calls into the API spend none', async () => {
    const { app: limited } = await service.h.world.start({
      env: { PUBLIC_BASE_URL: service.baseUrl, RATE_LIMIT_ENABLED: 'true' },
    });
    const b = await blockTransfer(service.h);
    const call = (id: number) =>
      limited.inject({
        method: 'POST',
        url: '/mcp',
        headers: accept,
        remoteAddress: '203.0.113.9',
        payload: {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'get_approval', arguments: { vault: b.vault, signature: b.signature } },
        },
      });
    const first = await call(1);
    const second = await call(2);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json().result.structuredContent.status, 'pending');
    assert.equal(Number(first.headers['x-ratelimit-remaining']), 99);
    assert.equal(Number(second.headers['x-ratelimit-remaining']), 98);
  });
});

describe('POST /mcp refuses what could steer it', () => {
  const accept = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
  };

  test('a malformed Host header is 400 in the error envelope, here and on any route', async () => {
    // `xn--` and the like are refused on every Node version (Node 24's URL parser accepts them).
    for (const host of ['a b', 'xn--', 'xn--a', 'xn---', 'x/y']) {
      for (const [method, url] of [
        ['POST', '/mcp'],
        ['GET', '/api/health'],
      ] as const) {
        const res = await service.app.inject({
          method,
          url,
          headers: { ...accept, host },
          ...(method === 'POST' ? { payload: initialize } : {}),
        });
        assert.equal(res.statusCode, 400, `${method} ${url} Host ${host}: ${res.body}`);
        assert.deepEqual(
          [res.json().code, res.json().error],
          ['VALIDATION_ERROR', 'host: is not a valid host'],
        );
      }
    }
    const fine = await service.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...accept, host: 'xn--nxasmq6b.example:8080' },
      payload: initialize,
    });
    assert.equal(fine.statusCode, 200, fine.body);
  });

  test('tool arguments that would steer the call to another route are refused before any call is built', async () => {
    const b = await blockTransfer(service.h);
    const client = new Client({ name: 'steer', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', service.baseUrl)));
    try {
      for (const steer of ['..', '.', `${b.vault}/..`, `${b.vault}?x=1`, `${b.vault}#`, '%2e%2e']) {
        const budget = await callTool(client, 'get_budget', { vault: steer });
        assert.equal(budget.result.isError, true, steer);
        assert.match(budget.text, /must be a base58 address \(32 bytes\) at vault/, steer);
        const approval = await callTool(client, 'get_approval', { vault: b.vault, signature: steer });
        assert.match(
          approval.text,
          /must be a base58 transaction signature \(64 bytes\) at signature/,
          steer,
        );
      }
      const amount = await callTool(client, 'check_transfer', {
        vault: b.vault,
        destination: b.destination,
        amount: '1/../../x',
      });
      assert.match(amount.text, /must be a whole number of lamports at amount/);
    } finally {
      await client.close();
    }
  });

  test('the client package never sends a path segment that a URL would resolve away', async () => {
    const sent: string[] = [];
    const client = createVaultkeeperClient({
      baseUrl: service.baseUrl,
      fetch: async (input) => {
        sent.push(String(input));
        return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    for (const segment of ['..', '.', '']) {
      await assert.rejects(
        async () => client.vaults.budget(segment),
        (error) => {
          assert.ok(error instanceof VaultkeeperError);
          assert.equal(error.code, 'VALIDATION_ERROR');
          return true;
        },
      );
    }
    assert.deepEqual(sent, []);
    await client.vaults.budget('a/b?c#d%');
    assert.deepEqual(sent, [`${service.baseUrl}/api/vaults/a%2Fb%3Fc%23d%25/budget`]);
  });
});
