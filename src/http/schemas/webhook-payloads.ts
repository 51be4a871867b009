// What a subscription receives, for the OpenAPI document's `webhooks`: one POST per event, its body
// `{ id, event, timestamp, data, signature }` and the signature headers (docs/WEBHOOKS.md).
import { type TSchema, Type } from '@fastify/type-provider-typebox';
import { WEBHOOK_EVENTS } from '@vaultkeeper/webhooks';
import { OverrideResource } from '../../domain/overrides/override-resource.js';
import { BLOCK_REASONS, TransactionResource } from '../../domain/transactions/transaction-resource.js';
import { VaultDetail } from '../../domain/vaults/vault-resource.js';
import { TEST_EVENT } from '../../domain/webhooks/webhook-events.js';
import { Address, Lamports, NullableString, StringEnum } from '../../lib/json-schema.js';

const BlockedTransfer = Type.Object(
  {
    vault: Address('the vault'),
    destination: Address('where the transfer was going'),
    amount: Lamports(),
    blockReason: StringEnum(BLOCK_REASONS),
    blinkUrl: NullableString({ description: 'the Blink that approves it; null without an override' }),
    approvalUrl: NullableString({ description: "the owner's approval page; null without an override" }),
    signature: NullableString({ description: 'the failed transaction that recorded the attempt' }),
  },
  { title: 'BlockedTransfer' },
);

const VaultEventData = Type.Object(
  { vault: Address('the vault address'), ...VaultDetail.properties },
  { title: 'VaultEventData' },
);

const PolicyChange = Type.Object(
  {
    vault: Address('the vault'),
    dailyLimit: Lamports(),
    whitelistCount: Type.Integer({ minimum: 0 }),
    agentSigner: Address('the key allowed to spend'),
  },
  { title: 'PolicyChange' },
);

const TestEventData = Type.Object(
  {
    webhook: Type.String({ format: 'uuid' }),
    vault: NullableString({ description: 'the subscription’s vault; null for every vault of its owner' }),
    message: Type.String(),
  },
  { title: 'TestEventData' },
);

const BudgetThreshold = Type.Object(
  {
    vault: Address('the vault'),
    threshold: Type.Integer({ minimum: 1, maximum: 100, description: 'the percentage of the limit crossed' }),
    dailyLimit: Lamports(),
    spentToday: Lamports(),
    remaining: Lamports(),
    windowStart: Type.String({ format: 'date-time', description: "the window (the program's last_reset)" }),
    resetsAt: Type.String({ format: 'date-time' }),
    signature: Type.String({ description: 'the executed transfer that crossed it' }),
  },
  { title: 'BudgetThreshold' },
);

const AgentVelocity = Type.Object(
  {
    vault: Address('the vault'),
    agentSigner: Address('the agent key'),
    windowSeconds: Type.Integer({ minimum: 60 }),
    maxTransfers: Type.Integer({ minimum: 1 }),
    count: Type.Integer({ description: 'attempts (executed and blocked) in the window' }),
    since: Type.String({ format: 'date-time', description: 'block time of the oldest attempt counted' }),
  },
  { title: 'AgentVelocity' },
);

const OverrideExpiring = Type.Object(
  {
    ...OverrideResource.properties,
    minutesLeft: Type.Integer({ minimum: 0, description: 'whole minutes until it expires, rounded up' }),
  },
  { title: 'OverrideExpiring' },
);

const TransactionDropped = Type.Object(
  {
    signature: Type.String({ description: 'the transaction the cluster dropped' }),
    slot: Type.Integer({ minimum: 0, description: 'the slot it had been confirmed in' }),
    vault: Address('a vault it named (one event per vault)'),
    previousStatus: Type.Union(
      [Type.Literal('executed'), Type.Literal('blocked'), Type.Literal('pending'), Type.Null()],
      { description: 'the status its transfer had; null when it made no transfer' },
    ),
  },
  { title: 'TransactionDropped' },
);

const DATA: Readonly<Record<string, TSchema>> = {
  'budget.threshold': BudgetThreshold,
  'agent.velocity': AgentVelocity,
  'override.expiring': OverrideExpiring,
  'override.expired': OverrideResource,
  'transaction.blocked': BlockedTransfer,
  'transaction.executed': TransactionResource,
  'transaction.dropped': TransactionDropped,
  'override.created': OverrideResource,
  'override.approved': OverrideResource,
  'override.executed': OverrideResource,
  'override.rejected': OverrideResource,
  'vault.created': VaultEventData,
  'vault.paused': VaultEventData,
  'vault.resumed': VaultEventData,
  'policy.updated': PolicyChange,
  [TEST_EVENT]: TestEventData,
};

/** `transaction.executed` → `TransactionExecutedEvent`. */
const titleOf = (event: string) =>
  `${event
    .split(/[._]/)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('')}Event`;

const header = (description: string) => ({ required: true, schema: { type: 'string' }, description });

function webhookOperation(event: string, data: TSchema) {
  const body = Type.Object(
    {
      id: Type.String({ description: 'the delivery id: the same on every retry, dedupe on it' }),
      event: Type.Literal(event),
      timestamp: Type.String({ format: 'date-time' }),
      data,
      signature: Type.String({
        description: 'hex HMAC-SHA256 of the body up to this field (X-Vaultkeeper-Signature)',
      }),
    },
    { title: titleOf(event) },
  );
  return {
    post: {
      operationId: `on${titleOf(event).replace(/Event$/, '')}`,
      summary: `Delivered when ${event} happens`,
      tags: ['webhooks'],
      parameters: [
        { in: 'header', name: 'webhook-id', ...header('Standard Webhooks: the delivery id') },
        {
          in: 'header',
          name: 'webhook-timestamp',
          ...header('Standard Webhooks: unix seconds of this attempt'),
        },
        { in: 'header', name: 'webhook-signature', ...header('Standard Webhooks: v1,<base64 HMAC-SHA256>') },
        { in: 'header', name: 'x-vaultkeeper-signature', ...header('hex HMAC-SHA256 of the signed text') },
        { in: 'header', name: 'x-vaultkeeper-event', ...header('the event name') },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: body } } },
      responses: {
        '2XX': { description: 'Received: any 2xx within the timeout ends the delivery' },
        '410': { description: 'Gone: the subscription is disabled' },
        default: { description: 'Any other answer (or none) is retried on the schedule' },
      },
    },
  };
}

/** OpenAPI 3.1 `webhooks`: every event a subscription can receive, and the test event. */
export function buildWebhookDocumentation(): Record<string, unknown> {
  return Object.fromEntries(
    [...WEBHOOK_EVENTS, TEST_EVENT].map((event) => [event, webhookOperation(event, DATA[event]!)]),
  );
}
