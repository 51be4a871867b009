// The MCP tools' input and output schemas, built once per process (a server is built per POST /mcp, and
// building zod schemas is most of what that would cost). Inputs are checked by the SDK before a tool
// runs: an address is base58 of 32 bytes, a signature base58 of 64, an amount a whole number, so no
// argument reaches a path it could steer (`..`, `/`, `?`, `#`, `%`). Outputs are the API's own
// resource schemas.
import { z } from 'zod';
import { Approval } from '../domain/approvals/approval-resource.js';
import { Budget, TransferCheck } from '../domain/budget/budget-resource.js';
import { TransactionResource } from '../domain/transactions/transaction-resource.js';
import { isSolanaAddress } from '../lib/address.js';
import { isSolanaSignature } from '../lib/json-schema.js';

/** A JSON Schema of the API (TypeBox) as the zod object schema the SDK takes. */
export const fromApi = (schema: unknown) =>
  z.fromJSONSchema(JSON.parse(JSON.stringify(schema))) as unknown as z.ZodObject<z.ZodRawShape>;

const BASE58 = '[1-9A-HJ-NP-Za-km-z]';
const NOT_ADDRESS = 'must be a base58 address (32 bytes)';
const NOT_SIGNATURE = 'must be a base58 transaction signature (64 bytes)';

const address = (description: string) =>
  z
    .string()
    .regex(new RegExp(`^${BASE58}{32,44}$`), NOT_ADDRESS)
    .refine(isSolanaAddress, NOT_ADDRESS)
    .describe(description);

const vault = address('the vault address (base58)');
const signature = z
  .string()
  .regex(new RegExp(`^${BASE58}{64,88}$`), NOT_SIGNATURE)
  .refine(isSolanaSignature, NOT_SIGNATURE)
  .describe("the blocked transfer's transaction signature (base58)");

/** Objects, not raw shapes: the SDK would build an object of a shape for every server. */
export const INPUT = {
  budget: z.object({ vault }),
  check: z.object({
    vault,
    destination: address('the account to pay (base58)'),
    amount: z
      .union([
        z.string().regex(/^[0-9]{1,20}$/, 'must be a whole number of lamports'),
        z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
      ])
      .describe('lamports as a decimal string (1 SOL = 1000000000)'),
    agent: address(
      'the key the agent signs with; another than the vault\u2019s agent signer is refused',
    ).optional(),
  }),
  transactions: z.object({
    vault,
    status: z.enum(['executed', 'blocked', 'pending']).optional().describe('only this status'),
    limit: z.number().int().min(1).max(50).optional().describe('how many (1..50, default 20)'),
  }),
  approval: z.object({ vault, signature }),
  wait: z.object({
    vault,
    signature,
    timeoutSeconds: z.number().int().min(1).max(300).optional().describe('1..300, default 60'),
  }),
};

export const OUTPUT = {
  budget: fromApi(Budget),
  check: fromApi(TransferCheck),
  transactions: z.object({
    transactions: z.array(fromApi(TransactionResource)),
    total: z.number().int().min(0),
  }),
  approval: fromApi(Approval),
};

/** The agent-guide prompt's argument. */
export const GUIDE_ARGUMENTS = {
  vault: z.string().optional().describe('the vault address the agent spends from'),
};
