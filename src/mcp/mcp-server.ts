// One MCP server over a Vaultkeeper client: the five read-only tools and the agent-guide prompt. Built
// per request for POST /mcp (stateless), once for stdio (`vaultkeeper mcp --url`).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { KitTransactionSigner, VaultkeeperClient } from '@vaultkeeper/client';
import { GUIDE_ARGUMENTS } from './tool-schemas.js';
import { registerTools } from './tools.js';
import { registerSendTransfer } from './transfer-tool.js';

export const AGENT_GUIDE = `You spend SOL from a Vaultkeeper vault: an on-chain program enforces your owner's daily limit, whitelist and pause, and blocks any transfer that breaks them.

1. Before every transfer call check_transfer { vault, destination, amount } (amount in lamports as a decimal string; 1 SOL = 1000000000).
   - verdict "allowed": send it.
   - verdict "blocked" with approval "possible" (not_whitelisted, exceeded_daily_limit): sending it fails on chain but asks your owner for an approval. Send it only if the owner should decide; then call get_approval { vault, signature } with the failed transaction's signature, share its approvalUrl (or blinkUrl) with the owner, and call wait_for_approval { vault, signature }. On "executed" or "approved" the owner sent it for you: never send it again. On "rejected" or "expired" drop it.
   - verdict "blocked" with approval "none" (insufficient_funds) or "refused" (vault_paused, wrong_agent): do not send; tell the owner.
2. get_budget { vault } tells what you may still send today (remaining, maxTransfer with the fee), when the window resets (resetsAt) and the vault's pending overrides (transfers awaiting the owner's approval).
3. list_transactions { vault } shows what you sent and what was blocked.
Amounts are lamports as decimal strings; times are ISO 8601 UTC by the cluster's clock.`;

/** The loop with send_transfer (the stdio server started with the agent's key). */
export const AGENT_GUIDE_WITH_SEND = `${AGENT_GUIDE}

You can pay with send_transfer { vault, destination, amount, idempotencyKey }: the loop is check_transfer → send_transfer → on "blocked" with approval links, share the approvalUrl with the owner and call wait_for_approval { vault, signature } with the signature send_transfer answered → on "executed" (or "approved") it is paid: never send it again.
- Send only what check_transfer called allowed, or blocked with approval "possible" when the owner should decide.
- Give every transfer its own idempotencyKey and reuse it when you retry after an error or a lost answer: the service then answers the first result and pays nothing twice.
- "failed" carries the reason: do not retry a transfer the program refused; tell the owner.`;

/** One for every server: each would otherwise build its own Ajv (most of what building a server costs). */
const sharedValidator = new AjvJsonSchemaValidator();

export function createMcpServer(
  client: VaultkeeperClient,
  version: string,
  options: { agentSigner?: KitTransactionSigner } = {},
): McpServer {
  const guide = options.agentSigner === undefined ? AGENT_GUIDE : AGENT_GUIDE_WITH_SEND;
  const server = new McpServer(
    { name: 'vaultkeeper', title: 'Vaultkeeper', version },
    {
      capabilities: { tools: {}, prompts: {} },
      jsonSchemaValidator: sharedValidator,
      instructions:
        'Check every transfer with check_transfer before sending it; the agent-guide prompt explains the loop.',
    },
  );
  registerTools(server, client);
  if (options.agentSigner !== undefined) registerSendTransfer(server, client, options.agentSigner);
  server.registerPrompt(
    'agent-guide',
    {
      title: 'How to spend from a vault',
      description:
        'Check before sending; on a block that the owner can approve, share the approval link and wait.',
      argsSchema: GUIDE_ARGUMENTS,
    },
    ({ vault }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: vault === undefined ? guide : `${guide}\nYour vault is ${vault}.`,
          },
        },
      ],
    }),
  );
  return server;
}
