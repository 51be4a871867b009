// `vaultkeeper mcp --url … --agent-keypair <file>`: the stdio server with the agent's key lists
// send_transfer (not read-only) and pays through the service; a transfer over the limit comes back
// blocked with the approval link, the owner approves through Dialect's Blink client and
// wait_for_approval ends executed. The HTTP /mcp never lists the tool; a key file others can read is refused.
import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Address } from '@solana/kit';
import type { TestWallet } from '../../dev/support/wallet.js';
import { createAgentVault } from '../support/agent-vault.js';
import { runForTest } from '../support/child-process.js';
import { randomAddress } from '../support/factories.js';
import { callTool, SOL, TOOLS, useServiceWithIngestor, waitThroughDecision } from '../support/mcp-session.js';

const CLI = ['--import', 'tsx', 'src/cli/main.ts'];
/** What a desktop app passes, plus the condition that resolves the packages to their sources (no build). */
const ENV = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  NODE_OPTIONS: '--conditions=vaultkeeper-source',
};

const service = useServiceWithIngestor();
const open: Client[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const client of open.splice(0)) await client.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** The agent's key as `solana-keygen` writes it, in a file of the given mode. */
async function keyFile(agent: TestWallet, mode: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'vk-agent-'));
  dirs.push(dir);
  const file = join(dir, 'agent.json');
  await writeFile(file, JSON.stringify([...agent.secretKey]));
  await chmod(file, mode);
  return file;
}

async function connectStdio(file: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...CLI, 'mcp', '--url', service.baseUrl, '--agent-keypair', file],
    env: ENV,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'mcp-agent-test', version: '1.0.0' });
  await client.connect(transport);
  open.push(client);
  return client;
}

/** Tool calls and results, trimmed, as the agent saw them (printed to MCP_TRANSCRIPT_FILE when set). */
const transcript: string[] = [];
const log = (line: string) => transcript.push(line);

describe('send_transfer over MCP', () => {
  test('stdio with --agent-keypair lists send_transfer and pays; blocked → owner approves → wait_for_approval executed', async () => {
    const { owner, agent, vault } = await createAgentVault(service);
    const client = await connectStdio(await keyFile(agent, 0o600));
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOLS, 'send_transfer'].sort());
    const send = tools.find((t) => t.name === 'send_transfer');
    assert.equal(send?.annotations?.readOnlyHint, false);
    const guide = await client.getPrompt({ name: 'agent-guide', arguments: { vault } });
    const guideText = guide.messages.map((m) => (m.content.type === 'text' ? m.content.text : '')).join('');
    assert.match(guideText, /check_transfer → send_transfer → on "blocked"/);

    const paid = randomAddress() as Address;
    const allowed = await callTool(client, 'send_transfer', {
      vault,
      destination: paid,
      amount: '250000000',
    });
    assert.equal(allowed.data.status, 'executed', allowed.text);
    assert.equal(service.h.fake.balance(paid), 250_000_000n);

    const destination = randomAddress() as Address;
    const args = { vault, destination, amount: String(3n * SOL) };
    const check = await callTool(client, 'check_transfer', args);
    log(`→ check_transfer ${JSON.stringify(args)}\n← ${check.text}`);
    assert.equal(check.data.verdict, 'blocked');
    const blocked = await callTool(client, 'send_transfer', { ...args, idempotencyKey: 'invoice-7' });
    log(
      `→ send_transfer ${JSON.stringify({ ...args, idempotencyKey: 'invoice-7' })}\n← ${blocked.text}\n  ${JSON.stringify(blocked.data)}`,
    );
    assert.equal(blocked.result.isError, undefined, blocked.text);
    assert.deepEqual([blocked.data.status, blocked.data.reason], ['blocked', 'exceeded_daily_limit']);
    assert.match(blocked.text, /Share this link with the owner: http/);
    assert.match(blocked.text, /call wait_for_approval/);

    const b = { owner, vault, destination, amount: 3n * SOL, signature: blocked.data.signature as string };
    log(`(the owner opens ${blocked.data.approval.approvalUrl} in a wallet and approves through the Blink)`);
    const waited = await waitThroughDecision(
      client,
      service.h,
      b,
      blocked.data.approval.approvalUrl,
      'Approve',
    );
    log(
      `→ wait_for_approval ${JSON.stringify({ vault, signature: b.signature, timeoutSeconds: 120 })}\n← ${waited.text}`,
    );
    assert.equal(waited.data.status, 'executed', waited.text);
    assert.equal(service.h.fake.balance(destination), 3n * SOL);
    if (process.env.MCP_TRANSCRIPT_FILE)
      await writeFile(process.env.MCP_TRANSCRIPT_FILE, `${transcript.join('\n')}\n`);
  });

  test('the HTTP /mcp never lists send_transfer; a key file others can read is refused with exit 2', async () => {
    const http = new Client({ name: 'mcp-http-test', version: '1.0.0' });
    await http.connect(new StreamableHTTPClientTransport(new URL('/mcp', service.baseUrl)));
    open.push(http);
    const { tools } = await http.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
    const { agent } = await createAgentVault(service);
    const readable = await keyFile(agent, 0o644);
    const run = await runForTest(
      process.execPath,
      [...CLI, 'mcp', '--url', service.baseUrl, '--agent-keypair', readable],
      { env: ENV },
    );
    assert.equal(run.code, 2);
    assert.match(run.stderr, /may be read by group or others \(mode 644\); refusing to use it/);
    assert.equal(run.stdout, '');
  });

  test('vaultkeeper agent transfer pays with a key file, prints the outcome, and refuses a readable key file', async () => {
    const { agent, vault } = await createAgentVault(service);
    const destination = randomAddress() as Address;
    const cli = (file: string, amount: string) =>
      runForTest(
        process.execPath,
        [
          ...CLI,
          'agent',
          'transfer',
          '--vault',
          vault,
          '--to',
          destination,
          '--amount',
          amount,
          '--keypair',
          file,
          '--url',
          service.baseUrl,
        ],
        { env: ENV },
      );
    const paid = await cli(await keyFile(agent, 0o600), '0.01');
    assert.equal(paid.code, 0, paid.stderr);
    assert.match(paid.stdout, new RegExp(`^executed: 0\\.01 SOL to ${destination} \\(\\w{64,88}\\)`));
    assert.equal(service.h.fake.balance(destination), 10_000_000n);
    const blocked = await cli(await keyFile(agent, 0o600), '5');
    assert.equal(blocked.code, 1);
    assert.match(blocked.stdout, /^blocked \(exceeded_daily_limit\): 5 SOL/);
    assert.match(blocked.stdout, /ask the owner to approve: http/);
    const refused = await cli(await keyFile(agent, 0o640), '0.01');
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--keypair .*may be read by group or others/);
    assert.equal(service.h.fake.balance(destination), 10_000_000n, 'nothing more was paid');
  });
});
