import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ActionService } from '../../domain/actions/action-service.js';
import type { OverrideReadService } from '../../domain/overrides/override-reads.js';
import { described, errorResponses } from '../schemas/common.js';
import { strictValidatorCompiler } from '../validator.js';
import {
  Override,
  OverrideAddressQuery,
  OverrideList,
  OverrideListQuery,
  OverrideParams,
  PreviewQuery,
} from './overrides.schemas.js';
import { TRANSACTION_CACHE_CONTROL } from './transactions.routes.js';

export const overrideRoutes: FastifyPluginAsyncTypebox<{
  overrides: OverrideReadService;
  actions: Pick<ActionService, 'previewApprove'>;
}> = async (app, { overrides, actions }) => {
  app.setValidatorCompiler(strictValidatorCompiler);

  app.get(
    '/api/overrides',
    {
      schema: {
        operationId: 'listOverrides',
        tags: ['overrides'],
        summary:
          'List overrides (the records of blocked transfers), newest first, optionally of one vault, one owner and one status',
        description:
          "`owner=<address>&status=pending` lists every override still awaiting the owner's approval across their vaults: pending and not expired, read as of the request.",
        querystring: OverrideListQuery,
        response: {
          200: described(OverrideList, 'A page of overrides, newest first'),
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const list = await overrides.listOverrides(request.query);
      return reply.header('cache-control', TRANSACTION_CACHE_CONTROL).send(list);
    },
  );

  app.get(
    '/api/overrides/:vault/:nonce',
    {
      schema: {
        operationId: 'getOverride',
        tags: ['overrides'],
        summary: 'One override of a vault by its address: nonce, and ?transfer= for all but the first',
        params: OverrideParams,
        querystring: OverrideAddressQuery,
        response: {
          200: described(Override, 'The override, with its Blink and whether it expired'),
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const { vault, nonce } = request.params;
      const override = await overrides.getOverride(vault, nonce, request.query.transfer);
      return reply.header('cache-control', TRANSACTION_CACHE_CONTROL).send(override);
    },
  );

  app.get(
    '/api/overrides/:vault/:nonce/preview',
    {
      // It simulates a transaction as approve does: it spends the write budget, not a read.
      config: { rateLimitCategory: 'write' },
      schema: {
        tags: ['overrides'],
        operationId: 'previewOverrideApproval',
        summary:
          'Approve preview: what approving the override costs and does, the approve transaction for `account`, simulated',
        description:
          'Instructions, compute units, priority and network fees, and the balance changes of payer, vault, destination and treasury; or the simulation error in words (still 200). Spends the write budget; identical previews within 5 s share one simulation.',
        params: OverrideParams,
        querystring: PreviewQuery,
        response: { 200: { $ref: 'TransactionPreview#' }, ...errorResponses(403, 404, 409, 503) },
      },
    },
    async (request, reply) => {
      const { vault, nonce } = request.params;
      const { account, transfer } = request.query;
      const preview = await actions.previewApprove({ vault, nonce, transfer }, account, request);
      return reply.header('cache-control', 'no-store').send(preview);
    },
  );
};
