// One MCP server over a Vaultkeeper client: the five read-only tools and the agent-guide prompt. Built
// per request for POST /mcp (stateless), once for stdio (`vaultkeeper mcp --url`).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { VaultkeeperClient } from '@vaultkeeper/client';
import { z } from 'zod';
import { registerTools } from './tools.js';

export const AGENT_GUIDE = `You spend SOL from a Vaultkeeper vault: an on-chain program enforces your owner's daily limit, whitelist and pause, and blocks any transfer that breaks them.

1. Before every transfer call check_transfer { vault, destination, amount } (amount in lamports as a decimal string; 1 SOL = 1000000000).
   - verdict "allowed": send it.
   - verdict "blocked" with approval "possible" (not_whitelisted, exceeded_daily_limit): sending it fails on chain but asks your owner for an approval. Send it only if the owner should decide; then call get_approval { vault, signature } with the failed transaction's signature, share its approvalUrl (or blinkUrl) with the owner, and call wait_for_approval { vault, signature }. On "executed" or "approved" the owner sent it for you: never send it again. On "rejected" or "expired" drop it.
   - verdict "blocked" with approval "none" (insufficient_funds) or "refused" (vault_paused, wrong_agent): do not send; tell the owner.
2. get_budget { vault } tells what you may still send today (remaining, maxTransfer with the fee), when the window resets (resetsAt) and the owner's open approvals.
3. list_transactions { vault } shows what you sent and what was blocked.
Amounts are lamports as decimal strings; times are ISO 8601 UTC by the cluster's clock.`;

export function createMcpServer(client: VaultkeeperClient, version: string): McpServer {
  const server = new McpServer(
    { name: 'vaultkeeper', title: 'Vaultkeeper', version },
    {
      capabilities: { tools: {}, prompts: {} },
      instructions:
        'Check every transfer with check_transfer before sending it; the agent-guide prompt explains the loop.',
    },
  );
  registerTools(server, client);
  server.registerPrompt(
    'agent-guide',
    {
      title: 'How to spend from a vault',
      description:
        'Check before sending; on a block that the owner can approve, share the approval link and wait.',
      argsSchema: { vault: z.string().optional().describe('the vault address the agent spends from') },
    },
    ({ vault }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: vault === undefined ? AGENT_GUIDE : `${AGENT_GUIDE}\nYour vault is ${vault}.`,
          },
        },
      ],
    }),
  );
  return server;
}
