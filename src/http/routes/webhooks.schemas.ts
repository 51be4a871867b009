import { Type } from '@fastify/type-provider-typebox';
import type { WebhookFormat as WebhookFormatName } from '../../domain/webhooks/chat/destination.js';
import { RECOVER_MAX_PER_CALL } from '../../domain/webhooks/delivery-limits.js';
import { DELIVERY_FILTERS, RECOVER_MAX_DAYS } from '../../domain/webhooks/delivery-service.js';
import { MAX_URL_LENGTH } from '../../domain/webhooks/subscription-url.js';
import { WEBHOOK_EVENTS } from '../../domain/webhooks/webhook-events.js';
import {
  Delivery,
  Webhook,
  WebhookFormat,
  WebhookWithSecret,
} from '../../domain/webhooks/webhook-resource.js';
import { Address, StringEnum } from '../../lib/json-schema.js';
import { Pagination } from '../../lib/pagination.js';
import { PaginationQuery } from '../schemas/common.js';

export { Delivery, Webhook, WebhookWithSecret };

const Page = { page: Type.Optional(PaginationQuery.page), limit: Type.Optional(PaginationQuery.limit) };

const WebhookEventName = StringEnum(WEBHOOK_EVENTS, {
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
    'https:// receiver (http:// only when private URLs are allowed), a Slack, Discord or Telegram webhook URL, or mailto:address when SMTP is configured',
});

const FormatField = Type.Unsafe<WebhookFormatName>({
  ...WebhookFormat,
  description:
    'json (signed envelope) or slack, discord, telegram (the platform’s body); omitted: detected from the URL (hooks.slack.com, discord.com/api/webhooks, api.telegram.org/bot…/sendMessage?chat_id=…), else json',
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
    format: Type.Optional(FormatField),
    events: Events,
    vault: Type.Optional(Address('vault address; omitted = every vault the signer owns, now and later')),
  },
  { title: 'CreateWebhookRequest', additionalProperties: false },
);

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    format: Type.Optional(FormatField),
    events: Type.Optional(Events),
    active: Type.Optional(Type.Boolean({ description: 'true re-enables a disabled subscription' })),
  },
  { title: 'UpdateWebhookRequest', additionalProperties: false, minProperties: 1 },
);

export const WebhookList = Type.Object(
  { webhooks: Type.Array(Webhook), pagination: Pagination },
  { title: 'WebhookList' },
);

const DeliveryFilter = StringEnum(DELIVERY_FILTERS, {
  description:
    'pending, succeeded or failed (exhausted); failing = the last attempt failed, still retrying or exhausted',
});

export const DeliveriesQuery = Type.Object(
  { ...Page, status: Type.Optional(DeliveryFilter) },
  { additionalProperties: false },
);

export const WebhooksQuery = Type.Object(Page, { additionalProperties: false });

export const DeliveryList = Type.Object(
  { deliveries: Type.Array(Delivery), pagination: Pagination },
  { title: 'DeliveryList' },
);

export const RecoverBody = Type.Object(
  {
    since: Type.String({
      minLength: 10,
      maxLength: 40,
      description: `ISO 8601 date or date-time, at most ${RECOVER_MAX_DAYS} days back: deliveries created since then are re-sent`,
    }),
  },
  { title: 'RecoverRequest', additionalProperties: false },
);

export const Recovered = Type.Object(
  {
    requeued: Type.Integer({
      minimum: 0,
      maximum: RECOVER_MAX_PER_CALL,
      description: `how many deliveries were queued to be sent again now (oldest first, at most ${RECOVER_MAX_PER_CALL})`,
    }),
    remaining: Type.Integer({
      minimum: 0,
      description: 'failing deliveries since then left for another call, after the cooldown',
    }),
    cooldownSeconds: Type.Integer({
      minimum: 0,
      description: 'seconds before this subscription may be recovered again (0 when nothing was queued)',
    }),
  },
  { title: 'RecoverResult' },
);
