// send_transfer: the one tool that spends, on the stdio server only when it was started with the agent's
// key (`vaultkeeper mcp --agent-keypair`). It pays through the client package's agents.transfer: the
// service builds the transfer, the key signs it in this process, the service relays it. The HTTP /mcp
// never holds a key and never lists it.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentTransferResult, KitTransactionSigner, VaultkeeperClient } from '@vaultkeeper/client';
import { z } from 'zod';
import { AgentTransferResult as ResultSchema } from '../domain/agent-transfers/agent-transfer-resource.js';
import { fromApi, INPUT } from './tool-schemas.js';
import { formatSol } from './tool-text.js';

const SEND_INPUT = INPUT.check.omit({ agent: true }).extend({
  idempotencyKey: z
    .string()
    .regex(/^[\x21-\x7e]{1,200}$/, 'must be 1 to 200 printable ASCII characters')
    .optional()
    .describe('the same key within 24 h answers the first result and sends nothing: reuse it when retrying'),
});
const SEND_OUTPUT = fromApi(ResultSchema);

export function sendTransferText(r: AgentTransferResult, amount: string, destination: string): string {
  const what = `${formatSol(amount)} (${amount} lamports) to ${destination}`;
  if (r.status === 'executed') return `Executed: ${what} was paid in transaction ${r.signature}.`;
  if (r.status === 'failed')
    return `Failed: ${what} was not paid (${r.reason ?? 'unknown'}); transaction ${r.signature}.`;
  if (r.approval === undefined) {
    return `Blocked (${r.reason}): ${what} was not paid and the owner cannot approve it; tell the owner. Transaction ${r.signature}.`;
  }
  return `Blocked (${r.reason}): ${what} awaits the owner's approval. Share this link with the owner: ${r.approval.approvalUrl} (Blink: ${r.approval.blinkUrl}), then call wait_for_approval { vault, signature: "${r.signature}" }; do not send it again.`;
}

export function registerSendTransfer(
  server: McpServer,
  client: VaultkeeperClient,
  signer: KitTransactionSigner,
): void {
  server.registerTool(
    'send_transfer',
    {
      title: 'Pay from the vault',
      description: `Pays amount lamports from the vault to destination, signed here with the agent's key (${signer.address}); the service checks, builds, relays and confirms it. Call check_transfer first. Answers executed, blocked (by the owner's policy: on a block with approval links, share the link with the owner and call wait_for_approval with the signature) or failed. Pass an idempotencyKey and reuse it when retrying, so a transfer is never paid twice.`,
      inputSchema: SEND_INPUT,
      outputSchema: SEND_OUTPUT,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    async ({ vault, destination, amount, idempotencyKey }): Promise<CallToolResult> => {
      try {
        const { check: _check, ...result } = await client.agents.transfer({
          vault,
          destination,
          amount: String(amount),
          signer,
          ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
        });
        return {
          structuredContent: result as Record<string, unknown>,
          content: [{ type: 'text', text: sendTransferText(result, String(amount), destination) }],
        };
      } catch (error) {
        return {
          isError: true,
          content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }],
        };
      }
    },
  );
}
