import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import type { DeliveryService } from '../../domain/webhooks/delivery-service.js';
import type { WebhookService } from '../../domain/webhooks/webhook-service.js';
import { described, errorResponses } from '../schemas/common.js';
import { webhookConfirmationRoutes } from './webhook-confirmation.routes.js';
import {
  CreateWebhookBody,
  DeliveriesQuery,
  Delivery,
  DeliveryIdParams,
  DeliveryList,
  RecoverBody,
  Recovered,
  UpdateWebhookBody,
  Webhook,
  WebhookIdParams,
  WebhookList,
  WebhooksQuery,
  WebhookWithSecret,
} from './webhooks.schemas.js';

// Wallet auth also documents the security scheme and 401, and sends Cache-Control: no-store.
const protectedRoute = { config: { auth: 'required' as const } };
const tags = ['webhooks'];

/** Subscriptions, their deliveries, and the page that confirms a `mailto:` subscription. */
export const webhookRoutes: FastifyPluginAsyncTypebox<{
  webhooks: WebhookService;
  deliveries: DeliveryService;
}> = async (app, { webhooks, deliveries }) => {
  await app.register(webhookConfirmationRoutes, { webhooks });
  await app.register(webhookSubscriptionRoutes, { webhooks });
  await app.register(webhookDeliveryRoutes, { deliveries });
};

/** Create, read, change, delete a subscription and rotate its secret (owner only, but for create). */
const webhookSubscriptionRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhookService }> = async (
  app,
  { webhooks },
) => {
  app.post(
    '/api/webhooks',
    {
      ...protectedRoute,
      schema: {
        operationId: 'createWebhook',
        tags,
        summary: 'Subscribe a URL (or mailto:) to events; answers the signing secret once',
        body: CreateWebhookBody,
        response: {
          201: described(WebhookWithSecret, 'The subscription and its signing secret (shown only here)'),
          ...errorResponses(401, 403, 404, 409, 429),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await webhooks.createWebhook(request.wallet!, request.body, request.clientKey)),
  );

  app.get(
    '/api/webhooks',
    {
      ...protectedRoute,
      schema: {
        operationId: 'listWebhooks',
        tags,
        summary: "The signer's webhook subscriptions",
        querystring: WebhooksQuery,
        response: {
          200: described(WebhookList, "A page of the signer's subscriptions"),
          ...errorResponses(401),
        },
      },
    },
    async (request) => webhooks.listWebhooks(request.wallet!, request.query),
  );

  app.get(
    '/api/webhooks/:id',
    {
      ...protectedRoute,
      schema: {
        operationId: 'getWebhook',
        tags,
        summary: 'One subscription (owner only)',
        params: WebhookIdParams,
        response: { 200: described(Webhook, 'The subscription'), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => webhooks.getWebhook(request.wallet!, request.params.id),
  );

  await app.register(webhookChangeRoutes, { webhooks });
};

/** Change, delete a subscription and rotate its secret (owner only). */
const webhookChangeRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhookService }> = async (
  app,
  { webhooks },
) => {
  app.patch(
    '/api/webhooks/:id',
    {
      ...protectedRoute,
      schema: {
        operationId: 'updateWebhook',
        tags,
        summary: 'Change url or events, or disable / re-enable a subscription (owner only)',
        params: WebhookIdParams,
        body: UpdateWebhookBody,
        response: {
          200: described(Webhook, 'The subscription as changed'),
          ...errorResponses(401, 403, 404, 429),
        },
      },
    },
    async (request) => webhooks.updateWebhook(request.wallet!, request.params.id, request.body),
  );

  app.delete(
    '/api/webhooks/:id',
    {
      ...protectedRoute,
      schema: {
        operationId: 'deleteWebhook',
        tags,
        summary: 'Delete a subscription and its delivery history (owner only)',
        params: WebhookIdParams,
        response: { 204: Type.Null({ description: 'deleted' }), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await webhooks.deleteWebhook(request.wallet!, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/webhooks/:id/rotate-secret',
    {
      ...protectedRoute,
      schema: {
        operationId: 'rotateWebhookSecret',
        tags,
        summary: 'New signing secret (shown once); the old one keeps signing alongside it for 24 h',
        params: WebhookIdParams,
        response: {
          200: described(WebhookWithSecret, 'The subscription and its new signing secret (shown only here)'),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => webhooks.rotateSecret(request.wallet!, request.params.id),
  );
};

/** A subscription's deliveries: send a test event, list them with their attempts, retry one now. */
const webhookDeliveryRoutes: FastifyPluginAsyncTypebox<{ deliveries: DeliveryService }> = async (
  app,
  { deliveries },
) => {
  app.post(
    '/api/webhooks/:id/test',
    {
      ...protectedRoute,
      schema: {
        operationId: 'testWebhook',
        tags,
        summary: 'Send a webhook.test event to the subscription (a few per subscription every 5 minutes)',
        params: WebhookIdParams,
        response: {
          202: described(Delivery, 'The webhook.test delivery, queued'),
          ...errorResponses(401, 403, 404, 409, 429),
        },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await deliveries.sendTestEvent(request.wallet!, request.params.id)),
  );

  app.get(
    '/api/webhooks/:id/deliveries',
    {
      ...protectedRoute,
      schema: {
        operationId: 'listDeliveries',
        tags,
        summary: 'Deliveries of a subscription, newest first, with every attempt',
        params: WebhookIdParams,
        querystring: DeliveriesQuery,
        response: {
          200: described(DeliveryList, 'A page of deliveries, newest first, with every attempt'),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => deliveries.listDeliveries(request.wallet!, request.params.id, request.query),
  );

  app.post(
    '/api/webhooks/:id/deliveries/:deliveryId/retry',
    {
      ...protectedRoute,
      schema: {
        operationId: 'retryDelivery',
        tags,
        summary: 'Send a delivery again now',
        params: DeliveryIdParams,
        response: {
          202: described(Delivery, 'The delivery, due now (one being sent at this moment is left to finish)'),
          ...errorResponses(401, 403, 404, 409),
        },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(await deliveries.retryDelivery(request.wallet!, request.params.id, request.params.deliveryId)),
  );
  app.post(
    '/api/webhooks/:id/recover',
    {
      ...protectedRoute,
      schema: {
        operationId: 'recoverDeliveries',
        tags,
        summary:
          'Send again now the deliveries created since a time whose last attempt failed (a batch per call, then a cooldown)',
        params: WebhookIdParams,
        body: RecoverBody,
        response: {
          202: described(
            Recovered,
            'How many deliveries were queued to be sent again now, and how many are left',
          ),
          ...errorResponses(401, 403, 404, 409, 429),
        },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(await deliveries.recoverDeliveries(request.wallet!, request.params.id, request.body)),
  );
};
