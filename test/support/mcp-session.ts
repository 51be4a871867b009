// An MCP session as an agent has it: the service on a real socket with its ingestor on the fake
// validator, a vault whose agent had a transfer blocked, and the MCP SDK's own Client calling the tools.
// The owner decides through Dialect's Blink client (approve) or its sign-message flow (reject).
import assert from 'node:assert/strict';
import { beforeEach } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import type { Address } from '@solana/kit';
import type { FastifyInstance } from 'fastify';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import { buildApp } from '../../src/app.js';
import { clickBlinkButton, createTestBlinkAdapter } from './blink-client.js';
import { randomAddress } from './factories.js';
import { type IngestionHarness, useIngestionHarness } from './ingestion-harness.js';
import { waitFor, waitForSignatures } from './wait.js';

export const SOL = 1_000_000_000n;
const DEVNET_ID = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';

export interface Service {
  readonly h: IngestionHarness;
  readonly baseUrl: string;
  readonly app: FastifyInstance;
}

/** The service on 127.0.0.1 (PUBLIC_BASE_URL names its port) with its ingestor live, per test. */
export function useServiceWithIngestor(env: Record<string, string> = {}): Service {
  const h = useIngestionHarness();
  const state = { baseUrl: '', app: undefined as unknown as FastifyInstance };
  beforeEach(async () => {
    const origin = await h.world.openOrigin();
    state.baseUrl = origin.url;
    await h.startLive({ PUBLIC_BASE_URL: state.baseUrl, RATE_LIMIT_ENABLED: 'false', ...env });
    state.app = await buildApp(h.deps);
    await state.app.ready();
    origin.serve({ app: state.app, deps: h.deps });
  });
  return {
    h,
    get baseUrl() {
      return state.baseUrl;
    },
    get app() {
      return state.app;
    },
  };
}

export interface BlockedTransfer {
  owner: TestWallet;
  vault: Address;
  destination: Address;
  amount: bigint;
  signature: string;
}

/** A vault with a 1 SOL daily limit and 100 SOL, whose agent sent `amount`, blocked (limit), as ingested. */
export async function blockTransfer(h: IngestionHarness, amount = 3n * SOL): Promise<BlockedTransfer> {
  const owner = createTestWallet();
  const created = await h.fake.createVault({
    authority: owner.address as Address,
    dailyLimit: SOL,
    name: 'Agent',
  });
  await h.fake.deposit(created.vault, 100n * SOL);
  await h.fake.airdrop(owner.address as Address, SOL);
  const destination = randomAddress() as Address;
  const result = await h.fake.block(created.vault, { destination, amount, reason: 'exceeded_daily_limit' });
  await waitForSignatures(h.storage.storage, [result.signature]);
  return { owner, vault: created.vault, destination, amount, signature: result.signature };
}

/** The owner decides through the Blink of the request, as a wallet does. */
export async function decide(
  h: IngestionHarness,
  approvalUrl: string,
  owner: TestWallet,
  label: 'Approve' | 'Reject',
) {
  const adapter = createTestBlinkAdapter(owner, { rpcUrl: h.fake.rpcUrl, blockchainId: DEVNET_ID });
  const run = await clickBlinkButton(approvalUrl, label, adapter);
  assert.equal(run.blink.type, 'completed', JSON.stringify(run.caption));
}

// biome-ignore lint/suspicious/noExplicitAny: structured content is read field by field and asserted.
export type Structured = Record<string, any>;

export async function callTool(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { result, data: (result.structuredContent ?? {}) as Structured, text: textOf(result) };
}

export const textOf = (result: CallToolResult): string =>
  result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

export const TOOLS = [
  'check_transfer',
  'get_approval',
  'get_budget',
  'list_transactions',
  'wait_for_approval',
];

/** Lists the tools and the prompt, and calls each read tool on a blocked transfer; returns the approval. */
export async function exerciseReadTools(client: Client, b: BlockedTransfer): Promise<Structured> {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
  for (const tool of tools) {
    assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
    assert.equal(tool.inputSchema.type, 'object', tool.name);
    assert.equal(tool.outputSchema?.type, 'object', tool.name);
  }
  const { prompts } = await client.listPrompts();
  assert.deepEqual(
    prompts.map((p) => p.name),
    ['agent-guide'],
  );
  const guide = await client.getPrompt({ name: 'agent-guide', arguments: { vault: b.vault } });
  const guideText = guide.messages.map((m) => (m.content.type === 'text' ? m.content.text : '')).join('');
  assert.match(guideText, /check_transfer/);
  assert.match(guideText, /wait_for_approval/);
  assert.match(guideText, new RegExp(b.vault));

  const budget = await callTool(client, 'get_budget', { vault: b.vault });
  assert.equal(budget.result.isError, undefined, budget.text);
  assert.equal(budget.data.vault, b.vault);
  assert.equal(budget.data.dailyLimit, String(SOL));
  assert.equal(budget.data.pendingApprovalsTotal, 1);
  assert.match(budget.text, /1 SOL daily limit/);

  const allowed = await callTool(client, 'check_transfer', {
    vault: b.vault,
    destination: b.destination,
    amount: '250000000',
  });
  assert.equal(allowed.data.verdict, 'allowed', allowed.text);
  assert.match(allowed.text, /^Allowed: 0\.25 SOL \(250000000 lamports\)/);
  const blocked = await callTool(client, 'check_transfer', {
    vault: b.vault,
    destination: b.destination,
    amount: String(b.amount),
  });
  assert.deepEqual(
    [blocked.data.verdict, blocked.data.reason, blocked.data.approval],
    ['blocked', 'exceeded_daily_limit', 'possible'],
  );
  assert.match(blocked.text, /^Blocked \(exceeded_daily_limit\): 3 SOL/);

  const list = await callTool(client, 'list_transactions', { vault: b.vault, status: 'blocked', limit: 5 });
  assert.equal(list.data.total, 1, list.text);
  assert.equal(list.data.transactions[0].amount, String(b.amount));
  assert.equal(list.data.transactions[0].blockReason, 'exceeded_daily_limit');
  // The agent names its blocked transfer by the signature the list gives it.
  const listed = list.data.transactions[0].signature;
  assert.equal(listed, b.signature, 'a blocked transfer is listed with its signature');

  const approval = await callTool(client, 'get_approval', { vault: b.vault, signature: listed });
  assert.equal(approval.data.status, 'pending', approval.text);
  assert.equal(approval.data.amount, String(b.amount));
  assert.equal(approval.data.destination, b.destination);
  assert.match(approval.text, /^Pending: 3 SOL/);
  return approval.data;
}

/** Calls wait_for_approval with a progress handler; the owner decides once progress has arrived. */
export async function waitThroughDecision(
  client: Client,
  h: IngestionHarness,
  b: BlockedTransfer,
  approvalUrl: string,
  label: 'Approve' | 'Reject',
): Promise<{ data: Structured; text: string; progress: Progress[] }> {
  const progress: Progress[] = [];
  const call = client.callTool(
    { name: 'wait_for_approval', arguments: { vault: b.vault, signature: b.signature, timeoutSeconds: 120 } },
    undefined,
    {
      onprogress: (p) => progress.push(p),
      timeout: 150_000,
    },
  );
  await waitFor(() => progress.length > 0, { message: 'a progress notification while waiting' });
  await decide(h, approvalUrl, b.owner, label);
  const result = (await call) as CallToolResult;
  assert.equal(result.isError, undefined, textOf(result));
  return { data: result.structuredContent as Structured, text: textOf(result), progress };
}

/**
 * Bad arguments (checked by the tool's input schema before any call is built) and an unknown vault (the
 * API's message) are tool results with isError naming what is wrong.
 */
export async function assertToolErrors(client: Client, b: BlockedTransfer): Promise<void> {
  const badAmount = await callTool(client, 'check_transfer', {
    vault: b.vault,
    destination: b.destination,
    amount: 'ten',
  });
  assert.equal(badAmount.result.isError, true);
  assert.match(badAmount.text, /must be a whole number of lamports at amount/);
  const badDestination = await callTool(client, 'check_transfer', {
    vault: b.vault,
    destination: 'nope',
    amount: '1',
  });
  assert.equal(badDestination.result.isError, true);
  assert.match(badDestination.text, /must be a base58 address \(32 bytes\) at destination/);
  const unknown = await callTool(client, 'get_budget', { vault: randomAddress() });
  assert.equal(unknown.result.isError, true);
  assert.equal(unknown.text, 'Vault not found');
  const badSignature = await callTool(client, 'get_approval', { vault: b.vault, signature: 'abc' });
  assert.equal(badSignature.result.isError, true);
  assert.match(badSignature.text, /must be a base58 transaction signature \(64 bytes\) at signature/);
  const badLimit = await callTool(client, 'list_transactions', { vault: b.vault, limit: 500 });
  assert.equal(badLimit.result.isError, true);
  assert.match(badLimit.text, /limit/);
}
