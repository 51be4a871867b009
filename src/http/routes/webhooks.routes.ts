import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import type { DeliveryService } from '../../domain/webhooks/delivery-service.js';
import type { WebhookService } from '../../domain/webhooks/webhook-service.js';
import { type AuditAnswer, createdTarget, paramTarget } from '../plugins/audit-trail.js';
import type { KeyVaultSource } from '../plugins/route-scope.js';
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

// Wallet auth also documents the security scheme and 401, and sends Cache-Control: no-store. Keys need
// the `webhooks` scope; a key limited to some vaults reaches the subscriptions of those vaults only.
const webhookRoute = { auth: 'required', scope: 'webhooks' } as const;
const WEBHOOK_PARAM: KeyVaultSource = { in: 'params', name: 'id', kind: 'webhook' };
const BODY_VAULT: KeyVaultSource = { in: 'body', name: 'vault', kind: 'vault' };
/** A write on one subscription, recorded in the audit trail as `action`. */
const audited = (action: string, target = paramTarget('webhook')) => ({
  ...webhookRoute,
  keyVault: WEBHOOK_PARAM,
  audit: { action, target },
});
const createdWebhookVault = (_: unknown, answer: AuditAnswer) =>
  typeof answer?.vault === 'string' ? answer.vault : undefined;
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
      config: {
        ...webhookRoute,
        keyVault: BODY_VAULT,
        audit: { action: 'webhook.create', target: createdTarget('webhook'), vault: createdWebhookVault },
      },
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
      reply
        .code(201)
        .send(
          await webhooks.createWebhook(request.wallet!, request.body, request.clientKey, request.auditStamp),
        ),
  );

  app.get(
    '/api/webhooks',
    {
      config: webhookRoute,
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
      config: { ...webhookRoute, keyVault: WEBHOOK_PARAM },
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
      config: audited('webhook.update'),
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
    async (request) =>
      webhooks.updateWebhook(request.wallet!, request.params.id, request.body, request.auditStamp),
  );

  app.delete(
    '/api/webhooks/:id',
    {
      config: audited('webhook.delete'),
      schema: {
        operationId: 'deleteWebhook',
        tags,
        summary: 'Delete a subscription and its delivery history (owner only)',
        params: WebhookIdParams,
        response: { 204: Type.Null({ description: 'deleted' }), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await webhooks.deleteWebhook(request.wallet!, request.params.id, request.auditStamp);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/webhooks/:id/rotate-secret',
    {
      config: audited('webhook.rotate_secret'),
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
    async (request) => webhooks.rotateSecret(request.wallet!, request.params.id, request.auditStamp),
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
      config: audited('webhook.test'),
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
      reply
        .code(202)
        .send(await deliveries.sendTestEvent(request.wallet!, request.params.id, request.auditStamp)),
  );

  app.get(
    '/api/webhooks/:id/deliveries',
    {
      config: { ...webhookRoute, keyVault: WEBHOOK_PARAM },
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
      config: audited('webhook.retry', paramTarget('delivery', 'deliveryId')),
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
    async (request, reply) => {
      const { id, deliveryId } = request.params;
      return reply
        .code(202)
        .send(await deliveries.retryDelivery(request.wallet!, id, deliveryId, request.auditStamp));
    },
  );
  app.post(
    '/api/webhooks/:id/recover',
    {
      config: audited('webhook.recover'),
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
        .send(
          await deliveries.recoverDeliveries(
            request.wallet!,
            request.params.id,
            request.body,
            request.auditStamp,
          ),
        ),
  );
};
