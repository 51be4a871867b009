import { jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { timestamptz } from './columns.js';

/**
 * Agent transfers relayed with an idempotency key: the first request of a key claims the row and sends;
 * a later one with the same key (same agent, within 24 h) answers `result` and sends nothing. `result`
 * is null while the first request has not learnt the outcome (a retry then confirms `signature` again).
 */
export const agentTransferRequests = pgTable(
  'agent_transfer_requests',
  {
    agent: text('agent').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    vault: text('vault').notNull(),
    signature: text('signature').notNull(),
    result: jsonb('result'),
    createdAt: timestamptz('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.agent, t.idempotencyKey] })],
);
export type AgentTransferRequestRow = typeof agentTransferRequests.$inferSelect;
