// Public vault reads. POST/PATCH live in vault-writes.routes.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { VaultReadService } from '../../domain/vaults/vault-reads.js';
import { described, errorResponses } from '../schemas/common.js';
import { strictValidatorCompiler } from '../validator.js';
import { VaultDetail, VaultList, VaultListQuery, VaultParams } from './vaults.schemas.js';

/** Vault data is cached 5 minutes (docs/API.md, Caching); clients may keep it as long. */
export const VAULT_CACHE_CONTROL = 'public, max-age=300';
const JSON_BODY = 'application/json; charset=utf-8';

export const vaultRoutes: FastifyPluginAsyncTypebox<{ vaults: VaultReadService }> = async (
  app,
  { vaults },
) => {
  app.setValidatorCompiler(strictValidatorCompiler);

  app.get(
    '/api/vaults',
    {
      schema: {
        operationId: 'listVaults',
        tags: ['vaults'],
        summary: 'List vaults, newest first, optionally of one owner',
        querystring: VaultListQuery,
        response: { 200: described(VaultList, 'A page of vaults, newest first'), ...errorResponses() },
      },
    },
    async (request, reply) => {
      const list = await vaults.listVaults(request.query);
      return reply.header('cache-control', VAULT_CACHE_CONTROL).send(list);
    },
  );

  app.get(
    '/api/vaults/:address',
    {
      schema: {
        operationId: 'getVault',
        tags: ['vaults'],
        summary: 'One vault by address or record uuid, with its policy and stats',
        params: VaultParams,
        response: {
          200: described(VaultDetail, 'The vault with its deposit address, whitelist, tier and stats'),
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      // The stored body, serialized by this route's response schema when it was cached.
      const body = await vaults.getVaultBody(
        request.params.address,
        (vault) => reply.serialize(vault) as string,
      );
      return reply
        .header('cache-control', VAULT_CACHE_CONTROL)
        .type(JSON_BODY)
        .send(body as never);
    },
  );
};
