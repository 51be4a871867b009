// The agent-transfer resources: the build request and its answer (an unsigned execute_agent for the
// agent to sign), the relay request, and the relay's answer (executed, blocked or failed).
import { type Static, Type } from 'typebox';
import { Address, Signature } from '../../lib/json-schema.js';
import { TransferCheck } from '../budget/budget-resource.js';

export const AgentTransferBuildBody = Type.Object(
  {
    destination: Address('the account to pay'),
    amount: Type.String({
      minLength: 1,
      maxLength: 40,
      description: 'lamports to send: a decimal integer from 1 to 2^64-1',
    }),
    agent: Address("the agent's signer: the fee payer and the only signer of the transaction"),
  },
  { additionalProperties: false, title: 'AgentTransferBuildRequest' },
);
export type AgentTransferBuildBody = Static<typeof AgentTransferBuildBody>;

export const AgentTransferBuild = Type.Object(
  {
    transaction: Type.String({
      description:
        'the unsigned transaction, base64 wire format: SetComputeUnitLimit, SetComputeUnitPrice (unless PRIORITY_FEE=off), execute_agent; the agent is the fee payer',
    }),
    check: TransferCheck,
    lastValidBlockHeight: Type.String({
      description: 'the block height after which the transaction can no longer land: sign and send before it',
    }),
  },
  { title: 'AgentTransferBuild' },
);
export type AgentTransferBuild = Static<typeof AgentTransferBuild>;

export const AgentTransferSendBody = Type.Object(
  {
    transaction: Type.String({
      minLength: 1,
      maxLength: 4_096,
      description: 'the transaction signed by the agent signer, base64 wire format',
    }),
    idempotencyKey: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: '^[\\x21-\\x7e]+$',
        description:
          'the same key from the same agent within 24 h answers the first result and sends nothing (printable ASCII)',
      }),
    ),
  },
  { additionalProperties: false, title: 'AgentTransferSendRequest' },
);
export type AgentTransferSendBody = Static<typeof AgentTransferSendBody>;

export const AGENT_TRANSFER_STATUSES = ['executed', 'blocked', 'failed'] as const;
export type AgentTransferStatus = (typeof AGENT_TRANSFER_STATUSES)[number];

export const AgentTransferApproval = Type.Object({
  nonce: Type.String({ description: "the override's nonce" }),
  approvalUrl: Type.String({ format: 'uri', description: 'the approval page: share it with the owner' }),
  blinkUrl: Type.String({ format: 'uri', description: "the override's Blink: share it with the owner" }),
});

export const AgentTransferResult = Type.Object(
  {
    status: Type.Unsafe<AgentTransferStatus>({
      type: 'string',
      enum: [...AGENT_TRANSFER_STATUSES],
      description:
        'executed: the transfer was paid; blocked: the program refused it by policy (the owner may approve it when approval is present); failed: it did not run (reason says why)',
    }),
    signature: Signature('the transaction signature'),
    reason: Type.Optional(
      Type.String({
        description:
          "blocked: not_whitelisted, exceeded_daily_limit or insufficient_funds; failed: the program's or the runtime's error in words",
      }),
    ),
    approval: Type.Optional(AgentTransferApproval),
  },
  { title: 'AgentTransferResult' },
);
export type AgentTransferResult = Static<typeof AgentTransferResult>;
