// `vaultkeeper mcp --url` as a desktop agent starts it: the MCP SDK's StdioClientTransport spawns the
// command, whose tools call the running service over HTTP (it has no database settings at all), and
// the same session as over HTTP works end to end; a missing or mistyped --url is a clear exit 2.
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { runForTest } from '../support/child-process.js';
import {
  assertToolErrors,
  blockTransfer,
  exerciseReadTools,
  useServiceWithIngestor,
  waitThroughDecision,
} from '../support/mcp-session.js';

const CLI = ['--import', 'tsx', 'src/cli/main.ts'];
/** Only what a desktop app passes: no DATABASE_URL, DATA_DIR or Solana settings. */
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };

const service = useServiceWithIngestor();
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

async function connect(): Promise<{ client: Client; stderr: string[] }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...CLI, 'mcp', '--url', service.baseUrl],
    env: ENV,
    stderr: 'pipe',
  });
  const stderr: string[] = [];
  transport.stderr?.on('data', (chunk) => stderr.push(String(chunk)));
  client = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr };
}

const run = (args: string[]) => runForTest(process.execPath, [...CLI, ...args], { env: ENV });

describe('vaultkeeper mcp --url (stdio), with the SDK client', () => {
  test('lists and calls every tool through the running service, and waits through the owner’s approval', async () => {
    const { client, stderr } = await connect();
    const b = await blockTransfer(service.h);
    const approval = await exerciseReadTools(client, b);
    const waited = await waitThroughDecision(client, service.h, b, approval.approvalUrl, 'Approve');
    assert.ok(['executed', 'approved'].includes(waited.data.status), waited.text);
    assert.ok(waited.progress.length >= 1);
    assert.equal(service.h.fake.balance(b.destination), b.amount);
    assert.match(stderr.join(''), /serving http:\/\/127\.0\.0\.1:\d+\/ on stdio/);
  });

  test('waits through a rejection, and tool errors are isError results with the API’s message', async () => {
    const { client } = await connect();
    const b = await blockTransfer(service.h);
    await assertToolErrors(client, b);
    const approval = (
      await client.callTool({ name: 'get_approval', arguments: { vault: b.vault, signature: b.signature } })
    ).structuredContent as { approvalUrl: string };
    const waited = await waitThroughDecision(client, service.h, b, approval.approvalUrl, 'Reject');
    assert.equal(waited.data.status, 'rejected', waited.text);
  });

  test('a missing or mistyped --url, or a URL nothing answers at, is a clear message and a non-zero exit', async () => {
    const [missing, typo, notUrl, nobody] = await Promise.all([
      run(['mcp']),
      run(['mcp', '--ulr', service.baseUrl]),
      run(['mcp', '--url', 'vaultkeeper.example']),
      run(['mcp', '--url', 'http://127.0.0.1:9']),
    ]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /mcp needs the service to call: --url <url>/);
    assert.equal(missing.stdout, '');
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /unknown option "--ulr" for "mcp" \(did you mean "--url"\?\)/);
    assert.equal(notUrl.code, 2);
    assert.match(notUrl.stderr, /--url must be an http:\/\/ or https:\/\/ URL/);
    assert.equal(nobody.code, 1);
    assert.match(nobody.stderr, /no Vaultkeeper service answers at http:\/\/127\.0\.0\.1:9\//);
  });
});
