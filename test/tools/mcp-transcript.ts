// Prints an MCP session as an agent has it, against the test validator: the service on a socket with
// its ingestor, the MCP SDK's Client over Streamable HTTP listing the tools, checking a transfer, the
// block, waiting, and the owner approving through Dialect's Blink client. docs/AGENTS.md, MCP.
// node --import tsx test/tools/mcp-transcript.ts
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Address } from '@solana/kit';
import { createTestWallet } from '../../dev/support/wallet.js';
import { startFakeValidator } from '../../dev/validator/index.js';
import { buildApp } from '../../src/app.js';
import { createTestDeps } from '../support/app.js';
import { clickBlinkButton, createTestBlinkAdapter } from '../support/blink-client.js';
import { createTestStorage } from '../support/database.js';
import { randomAddress } from '../support/factories.js';
import { startTestIngestor } from '../support/ingestor.js';
import { waitFor, waitForSignatures, waitForSubscription } from '../support/wait.js';

const SOL = 1_000_000_000n;
const started = Date.now();
const say = (line: string) =>
  process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(2).padStart(6)} s] ${line}\n`);
const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

const storage = await createTestStorage();
const fake = await startFakeValidator();
const server = createServer();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const deps = createTestDeps({
  storage: storage.storage,
  env: { SOLANA_RPC_URL: fake.rpcUrl, SOLANA_WS_URL: fake.wsUrl, PUBLIC_BASE_URL: baseUrl },
});
const ingestor = startTestIngestor(deps);
await waitForSubscription(storage.storage);
const app = await buildApp(deps);
await app.ready();
server.on('request', (req, res) => app.server.emit('request', req, res));

try {
  const owner = createTestWallet();
  const created = await fake.createVault({
    authority: owner.address as Address,
    dailyLimit: SOL,
    name: 'Agent',
  });
  await fake.deposit(created.vault, 10n * SOL);
  await fake.airdrop(owner.address as Address, SOL);
  const vault = created.vault;
  const destination = randomAddress() as Address;
  // The vault must be known to the service (ingested) before its tools answer for it.
  await waitFor(async () => (await app.inject({ url: `/api/vaults/${vault}` })).statusCode === 200);

  const client = new Client({ name: 'transcript-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', baseUrl)));
  say(
    `connected to ${baseUrl}/mcp: ${client.getServerVersion()?.name} ${client.getServerVersion()?.version}`,
  );
  const { tools } = await client.listTools();
  say(
    `tools/list → ${tools.map((t) => `${t.name}${t.annotations?.readOnlyHint ? ' (read-only)' : ''}`).join(', ')}`,
  );
  const call = async (name: string, args: Record<string, unknown>) => {
    say(`tools/call ${name} ${JSON.stringify(args)}`);
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    say(`  ← ${result.isError ? '[isError] ' : ''}${text(result)}`);
    return result.structuredContent as Record<string, string>;
  };
  await call('get_budget', { vault });
  const amount = String(3n * SOL);
  await call('check_transfer', { vault, destination, amount });

  say(`agent sends the transfer anyway (the owner should decide): ${amount} lamports to ${destination}`);
  const blocked = await fake.block(vault, { destination, amount: 3n * SOL, reason: 'exceeded_daily_limit' });
  say(`  ← the program failed it (TransactionBlocked: exceeded_daily_limit), signature ${blocked.signature}`);
  await waitForSignatures(storage.storage, [blocked.signature]);
  const approval = await call('get_approval', { vault, signature: blocked.signature });

  say(
    `tools/call wait_for_approval ${JSON.stringify({ vault, signature: blocked.signature, timeoutSeconds: 120 })} (progressToken given)`,
  );
  let progressCount = 0;
  const waiting = client.callTool(
    { name: 'wait_for_approval', arguments: { vault, signature: blocked.signature, timeoutSeconds: 120 } },
    undefined,
    {
      timeout: 150_000,
      onprogress: (p) => {
        progressCount += 1;
        say(`  … notifications/progress ${p.progress.toFixed(3)}/${p.total}: ${p.message}`);
      },
    },
  );
  await waitFor(() => progressCount > 0);
  say(`owner opens ${approval.approvalUrl} in a wallet (Dialect's Blink client) and clicks Approve`);
  const adapter = createTestBlinkAdapter(owner, {
    rpcUrl: fake.rpcUrl,
    blockchainId: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
  });
  const run = await clickBlinkButton(approval.approvalUrl!, 'Approve', adapter);
  const decidedAt = Date.now();
  say(`  ← Blink: ${run.blink.title}: ${run.blink.description}`);
  const result = (await waiting) as CallToolResult;
  say(`  ← wait_for_approval (${Date.now() - decidedAt} ms after the Blink completed): ${text(result)}`);
  say(`  structuredContent: ${JSON.stringify(result.structuredContent)}`);
  await call('list_transactions', { vault, limit: 5 });
  await client.close();
} finally {
  await app.close();
  server.closeAllConnections();
  server.close();
  await ingestor.stop();
  await fake.close();
  await storage.close();
}
