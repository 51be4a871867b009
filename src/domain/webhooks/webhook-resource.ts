// The webhook resources as owners read them: a subscription (with its secret once, when created or
// rotated) and a delivery with its attempts. Schemas and types in one place.
import { type Static, Type } from 'typebox';
import { NullableString, StringEnum, Timestamp } from '../../lib/json-schema.js';
import { DELIVERY_STATUSES, WEBHOOK_FORMATS } from '../../storage/schema/webhooks.js';
import { TEST_EVENT } from './webhook-events.js';

const NullableInteger = (description?: string) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], ...(description ? { description } : {}) });
const NullableTimestamp = (description?: string) =>
  NullableString({ format: 'date-time', ...(description ? { description } : {}) });

export const WebhookFormat = StringEnum(WEBHOOK_FORMATS, {
  description:
    'json: the signed envelope; slack, discord, telegram: that platform’s own message body (unsigned)',
});

const webhookFields = {
  id: Type.String({ format: 'uuid' }),
  url: Type.String({
    description:
      'the URL; a chat destination shows only its origin and last 4 characters (it holds a secret)',
  }),
  format: WebhookFormat,
  events: Type.Array(Type.String()),
  vault: NullableString({ description: 'vault address; null = every vault of the owner' }),
  active: Type.Boolean(),
  verified: Type.Boolean({
    description:
      'false for a mailto: address until its recipient confirms (nothing is sent before); always true for https',
  }),
  disabledReason: NullableString({ description: 'why the subscription was disabled' }),
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
};

export const Webhook = Type.Object(webhookFields, { title: 'Webhook' });
export type Webhook = Static<typeof Webhook>;

export const WebhookWithSecret = Type.Object(
  {
    ...webhookFields,
    secret: Type.String({ description: 'whsec_… signing secret; shown only in this response' }),
  },
  { title: 'WebhookWithSecret' },
);
export type WebhookWithSecret = Static<typeof WebhookWithSecret>;

export const DeliveryStatus = StringEnum(DELIVERY_STATUSES);

const DeliveryAttempt = Type.Object({
  attempt: Type.Integer({ minimum: 1 }),
  startedAt: Timestamp(),
  durationMs: Type.Integer(),
  statusCode: NullableInteger('HTTP status, or SMTP reply code for e-mail'),
  error: NullableString(),
  responseBody: NullableString({ description: 'first 1 KiB of the response' }),
});
export type DeliveryAttempt = Static<typeof DeliveryAttempt>;

/** What is signed and sent: the body is this plus `signature`. */
const DeliveryPayload = Type.Object(
  {
    id: Type.String(),
    event: Type.String(),
    timestamp: Timestamp(),
    data: Type.Record(Type.String(), Type.Unknown()),
  },
  { description: 'what is signed and sent (the body adds `signature`)' },
);
export type DeliveryPayload = Static<typeof DeliveryPayload>;

export const Delivery = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'also the webhook-id header and the payload id' }),
    webhookId: Type.String({ format: 'uuid' }),
    event: Type.String({ description: `an event name, or ${TEST_EVENT}` }),
    status: DeliveryStatus,
    attemptCount: Type.Integer(),
    nextAttemptAt: NullableTimestamp('when the next attempt is due (pending only)'),
    lastStatusCode: NullableInteger(),
    lastError: NullableString(),
    createdAt: Timestamp(),
    completedAt: NullableTimestamp(),
    payload: DeliveryPayload,
    attempts: Type.Array(DeliveryAttempt),
  },
  { title: 'Delivery' },
);
export type Delivery = Static<typeof Delivery>;
