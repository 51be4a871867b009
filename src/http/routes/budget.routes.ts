// An agent's budget and pre-flight check: read from the chain's own state at request time, never cached.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { BudgetService } from '../../domain/budget/budget-service.js';
import { described, errorResponses } from '../schemas/common.js';
import { strictValidatorCompiler } from '../validator.js';
import { Budget, TransferCheck, TransferCheckQuery } from './budget.schemas.js';
import { VaultParams } from './vaults.schemas.js';

export const budgetRoutes: FastifyPluginAsyncTypebox<{ budget: BudgetService }> = async (app, { budget }) => {
  app.setValidatorCompiler(strictValidatorCompiler);

  app.get(
    '/api/vaults/:address/budget',
    {
      config: { rateLimitCategory: 'read' },
      schema: {
        operationId: 'getVaultBudget',
        tags: ['agents'],
        summary: "What the vault's agent may still send, until when, and the vault's pending overrides",
        description:
          "Read from the chain at request time (the VaultConfig account, the deposit address and the Clock sysvar, as of one confirmed slot) and judged by the program's rules; never cached.",
        params: VaultParams,
        response: {
          200: described(Budget, "The agent's budget as of the slot it names"),
          ...errorResponses(404, 503),
        },
      },
    },
    async (request, reply) => {
      const body = await budget.getBudget(request.params.address);
      return reply.header('cache-control', 'no-store').send(body);
    },
  );

  app.get(
    '/api/vaults/:address/check',
    {
      config: { rateLimitCategory: 'read' },
      schema: {
        operationId: 'checkVaultTransfer',
        tags: ['agents'],
        summary: 'Whether the program would let this transfer through now, and if not why',
        description:
          "A pre-flight check: the program's rules in its order (agent signer, pause, whitelist, daily limit, funds with the fee) applied to the chain's state at request time. Costs no transaction fee and leaves no trace.",
        params: VaultParams,
        querystring: TransferCheckQuery,
        response: {
          200: described(TransferCheck, 'The verdict, the reason and the fee'),
          ...errorResponses(404, 503),
        },
      },
    },
    async (request, reply) => {
      const body = await budget.checkTransfer(request.params.address, request.query);
      return reply.header('cache-control', 'no-store').send(body);
    },
  );
};
