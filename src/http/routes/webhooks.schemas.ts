import { Type } from '@fastify/type-provider-typebox';
import { TEST_EVENT, WEBHOOK_EVENTS } from '../../domain/webhooks/events.js';
import { MAX_URL_LENGTH } from '../../domain/webhooks/subscription-url.js';
import { DELIVERY_STATUSES } from '../../storage/schema/webhooks.js';
import { Address, Pagination, PaginationQuery, Timestamp } from '../schemas/common.js';
import { NullableString, StringEnum } from '../schemas/json-types.js';

const NullableInteger = (description?: string) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], ...(description ? { description } : {}) });
const NullableTimestamp = (description?: string) =>
  NullableString({ format: 'date-time', ...(description ? { description } : {}) });
const Page = { page: Type.Optional(PaginationQuery.page), limit: Type.Optional(PaginationQuery.limit) };

export const WebhookEventName = StringEnum(WEBHOOK_EVENTS, {
  description: 'an event a subscription can receive',
});

const Events = Type.Array(WebhookEventName, {
  minItems: 1,
  maxItems: WEBHOOK_EVENTS.length,
  uniqueItems: true,
});

const Url = Type.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  description:
    'https:// receiver (http:// only when private URLs are allowed), or mailto:address when SMTP is configured',
});

export const ConfirmationParams = Type.Object({
  token: Type.String({
    pattern: '^[A-Za-z0-9_-]{16,128}$',
    description: 'the token of a confirmation e-mail',
  }),
});

export const WebhookIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
export const DeliveryIdParams = Type.Object({
  id: Type.String({ format: 'uuid' }),
  deliveryId: Type.String({ format: 'uuid' }),
});

export const CreateWebhookBody = Type.Object(
  {
    url: Url,
    events: Events,
    vault: Type.Optional(Address('vault address; omitted = every vault the signer owns, now and later')),
  },
  { additionalProperties: false },
);

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    active: Type.Optional(Type.Boolean({ description: 'true re-enables a disabled subscription' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

const webhookFields = {
  id: Type.String({ format: 'uuid' }),
  url: Type.String(),
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

export const Webhook = Type.Object(webhookFields);

export const WebhookWithSecret = Type.Object({
  ...webhookFields,
  secret: Type.String({ description: 'whsec_… signing secret; shown only in this response' }),
});

export const WebhookList = Type.Object({ webhooks: Type.Array(Webhook), pagination: Pagination });

export const DeliveryStatus = StringEnum(DELIVERY_STATUSES);

export const DeliveriesQuery = Type.Object(
  { ...Page, status: Type.Optional(DeliveryStatus) },
  { additionalProperties: false },
);

export const WebhooksQuery = Type.Object(Page, { additionalProperties: false });

const Attempt = Type.Object({
  attempt: Type.Integer({ minimum: 1 }),
  startedAt: Timestamp(),
  durationMs: Type.Integer(),
  statusCode: NullableInteger('HTTP status, or SMTP reply code for e-mail'),
  error: NullableString(),
  responseBody: NullableString({ description: 'first 1 KiB of the response' }),
});

export const Delivery = Type.Object({
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
  payload: Type.Object(
    {
      id: Type.String(),
      event: Type.String(),
      timestamp: Timestamp(),
      data: Type.Record(Type.String(), Type.Unknown()),
    },
    { description: 'what is signed and sent (the body adds `signature`)' },
  ),
  attempts: Type.Array(Attempt),
});

export const DeliveryList = Type.Object({ deliveries: Type.Array(Delivery), pagination: Pagination });
