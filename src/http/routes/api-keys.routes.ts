// API keys: a wallet signature creates one; the wallet, or any of its keys, lists and deletes them.
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import type { ApiKeyService } from '../../domain/api-keys/api-key-service.js';
import { createdTarget, paramTarget } from '../plugins/audit-trail.js';
import { errorResponses } from '../schemas/common.js';
import { ApiKeyIdParams, ApiKeyList, ApiKeyWithKey, CreateApiKeyBody } from './api-keys.schemas.js';

const tags = ['api-keys'];

export const apiKeyRoutes: FastifyPluginAsyncTypebox<{ apiKeys: ApiKeyService }> = async (
  app,
  { apiKeys },
) => {
  app.post(
    '/api/api-keys',
    {
      // Only a wallet signature bound to this very request creates a key: a key cannot make more keys.
      config: {
        auth: 'required',
        apiKeys: false,
        requestBound: true,
        rateLimitCategory: 'write',
        audit: { action: 'api_key.create', target: createdTarget('api_key') },
      },
      schema: {
        tags,
        operationId: 'createApiKey',
        summary: 'Create an API key acting as the signing wallet; answers the key once',
        body: CreateApiKeyBody,
        response: {
          201: { ...ApiKeyWithKey, description: 'The new key; `key` is never shown again' },
          ...errorResponses(401, 409),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await apiKeys.createApiKey(request.wallet!, request.body, request.auditStamp)),
  );

  app.get(
    '/api/api-keys',
    {
      config: { auth: 'required', scope: 'read' },
      schema: {
        tags,
        operationId: 'listApiKeys',
        summary: "The caller's API keys, oldest first (never the keys themselves)",
        response: {
          200: { ...ApiKeyList, description: "The caller's live keys" },
          ...errorResponses(401),
        },
      },
    },
    async (request) => apiKeys.listApiKeys(request.wallet!),
  );

  app.delete(
    '/api/api-keys/:id',
    {
      // Revoking keys is an owner-wide write: a key limited to some vaults may not.
      config: {
        auth: 'required',
        scope: 'vaults:write',
        audit: { action: 'api_key.delete', target: paramTarget('api_key') },
      },
      schema: {
        tags,
        operationId: 'deleteApiKey',
        summary: 'Delete (revoke) one of the caller’s API keys; requests carrying it are refused at once',
        params: ApiKeyIdParams,
        response: {
          204: Type.Null({ description: 'Deleted: requests carrying the key are refused from now on' }),
          ...errorResponses(401, 404),
        },
      },
    },
    async (request, reply) => {
      await apiKeys.deleteApiKey(request.wallet!, request.params.id, request.auditStamp);
      return reply.code(204).send(null);
    },
  );
};
