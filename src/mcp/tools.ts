// The MCP tools and the agent-guide prompt, shared by both transports: each tool calls the client
// package (over HTTP for stdio, in process for POST /mcp) and answers structured content matching its
// output schema (the API's own resource schemas) plus one line of text. Arguments are checked by their
// schemas (tool-schemas.ts) before any call is built; a bad one, or a refusal of the API (unknown
// vault, a wait cap), is a tool result with isError and the message.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { VaultkeeperClient } from '@vaultkeeper/client';
import type { TransactionResource as Transaction } from '../domain/transactions/transaction-resource.js';
import { INPUT, OUTPUT } from './tool-schemas.js';
import { approvalText, budgetText, checkText, transactionsText } from './tool-text.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const PROGRESS_EVERY_MS = 5_000;
const annotations = { readOnlyHint: true, openWorldHint: false } as const;

async function answer<T extends object>(
  call: () => Promise<T>,
  text: (value: T) => string,
): Promise<CallToolResult> {
  try {
    const value = await call();
    return {
      structuredContent: value as Record<string, unknown>,
      content: [{ type: 'text', text: text(value) }],
    };
  } catch (error) {
    return {
      isError: true,
      content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }],
    };
  }
}

/** Progress notifications every few seconds while `work` runs, when the caller gave a progressToken. */
async function withProgress<T>(extra: Extra, totalSeconds: number, work: () => Promise<T>): Promise<T> {
  const token = extra._meta?.progressToken;
  if (token === undefined) return work();
  const started = Date.now();
  let last = -1;
  const notify = () => {
    const progress = Math.max(last + 0.001, (Date.now() - started) / 1000);
    last = progress;
    const message = `waiting for the owner's decision (${Math.floor(progress)} s of ${totalSeconds} s)`;
    void extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress, total: totalSeconds, message },
      })
      .catch(() => {});
  };
  notify();
  const timer = setInterval(notify, PROGRESS_EVERY_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/**
 * A list item with its signature: lists leave a blocked attempt's out (the API's list format), but an
 * agent names its blocked transfer by that signature, so it is read from the item's detail.
 */
async function withSignature(client: VaultkeeperClient, item: Transaction): Promise<Transaction> {
  if (item.signature !== null || item.status !== 'blocked') return item;
  const detail = await client.transactions.get(item.id);
  return { ...item, signature: detail.signature };
}

/** The five tools, each calling `client`. */
export function registerTools(server: McpServer, client: VaultkeeperClient): void {
  registerPolicyTools(server, client);
  registerApprovalTools(server, client);
}

/** What the agent may send: the budget, the pre-flight check and the history. */
function registerPolicyTools(server: McpServer, client: VaultkeeperClient): void {
  server.registerTool(
    'get_budget',
    {
      title: 'Budget of a vault',
      description:
        "What the vault's agent may still send today, when the window resets, the balance, the largest transfer possible now (fee included), the whitelist and the vault's pending overrides (transfers awaiting the owner's approval); read from the chain now.",
      inputSchema: INPUT.budget,
      outputSchema: OUTPUT.budget,
      annotations,
    },
    ({ vault }) => answer(() => client.vaults.budget(vault), budgetText),
  );

  server.registerTool(
    'check_transfer',
    {
      title: 'Pre-flight check of a transfer',
      description:
        'Whether the vault program would let this transfer through now, and if not why (allowed, blocked: not_whitelisted / exceeded_daily_limit / insufficient_funds, refused: vault_paused / wrong_agent), with the fee; costs no transaction. Call it before every transfer.',
      inputSchema: INPUT.check,
      outputSchema: OUTPUT.check,
      annotations,
    },
    ({ vault, destination, amount, agent }) =>
      answer(
        () =>
          client.vaults.check(vault, {
            destination,
            amount: String(amount),
            ...(agent === undefined ? {} : { agent }),
          }),
        checkText,
      ),
  );

  server.registerTool(
    'list_transactions',
    {
      title: "A vault's transactions",
      description:
        "The vault's transfers, newest first: executed, blocked (with the reason and the signature that get_approval and wait_for_approval take) or pending (an approved override's transfer, not sent yet: no signature).",
      inputSchema: INPUT.transactions,
      outputSchema: OUTPUT.transactions,
      annotations,
    },
    ({ vault, status, limit }) =>
      answer(
        async () => {
          const list = await client.transactions.list({ vault, status, limit: limit ?? 20 });
          const transactions = await Promise.all(list.transactions.map((t) => withSignature(client, t)));
          return { transactions, total: list.pagination.total };
        },
        (list) => transactionsText(vault, list),
      ),
  );
}

/** The owner's decision on a blocked transfer: read now, or waited for. */
function registerApprovalTools(server: McpServer, client: VaultkeeperClient): void {
  server.registerTool(
    'get_approval',
    {
      title: 'The owner\u2019s decision on a blocked transfer',
      description:
        'The owner\u2019s approval of a blocked transfer (the decision on its override), by the transfer\u2019s signature: pending, approved, executed, rejected, expired or none, with the links to share with the owner (blinkUrl, approvalUrl).',
      inputSchema: INPUT.approval,
      outputSchema: OUTPUT.approval,
      annotations,
    },
    ({ vault, signature }) => answer(() => client.approvals.get({ vault, signature }), approvalText),
  );

  server.registerTool(
    'wait_for_approval',
    {
      title: 'Wait for the owner\u2019s decision',
      description:
        'Waits until the owner decides on the override a blocked transfer asked for (or it expires), up to timeoutSeconds, and answers as get_approval does (still pending at the timeout). Sends progress notifications while waiting when given a progressToken.',
      inputSchema: INPUT.wait,
      outputSchema: OUTPUT.approval,
      annotations,
    },
    ({ vault, signature, timeoutSeconds = 60 }, extra) =>
      answer(
        () =>
          withProgress(extra, timeoutSeconds, () =>
            client.approvals.wait({
              vault,
              signature,
              timeoutMs: timeoutSeconds * 1000,
              signal: extra.signal,
            }),
          ),
        approvalText,
      ),
  );
}
