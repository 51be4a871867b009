// An agent pays through the service: the build hands out an unsigned execute_agent (checked first, made
// to land); the relay takes it back signed by the agent, sends it and answers the outcome.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  AgentTransferBuild,
  AgentTransferBuildBody,
  AgentTransferResult,
  AgentTransferSendBody,
} from '../../domain/agent-transfers/agent-transfer-resource.js';
import type { AgentTransferService } from '../../domain/agent-transfers/agent-transfer-service.js';
import { described, errorResponses } from '../schemas/common.js';
import { strictValidatorCompiler } from '../validator.js';
import { VaultParams } from './vaults.schemas.js';

export const agentTransferRoutes: FastifyPluginAsyncTypebox<{
  agentTransfers: AgentTransferService;
}> = async (app, { agentTransfers }) => {
  app.setValidatorCompiler(strictValidatorCompiler);

  app.post(
    '/api/vaults/:address/agent-transfers',
    {
      config: { rateLimitCategory: 'write' },
      schema: {
        operationId: 'buildAgentTransfer',
        tags: ['agents'],
        summary: 'An unsigned execute_agent for the agent to sign, after the pre-flight check',
        description:
          'Runs the check first: refused (vault_paused, wrong_agent) is 409 TRANSFER_REFUSED with the check in details, and nothing is built. Otherwise the transaction pays from the vault to the destination with the agent as fee payer and only signer, its compute budget from a simulation and its priority fee from recent fees. A transfer the check calls blocked is built too: sent, it fails on chain and asks the owner for an approval. Sign it and send it to …/agent-transfers/send before lastValidBlockHeight.',
        params: VaultParams,
        body: AgentTransferBuildBody,
        response: {
          200: described(AgentTransferBuild, 'The transaction to sign, the check and its expiry'),
          ...errorResponses(404, 409, 422, 503),
        },
      },
    },
    async (request, reply) => {
      const body = await agentTransfers.buildTransfer(request.params.address, request.body);
      return reply.header('cache-control', 'no-store').send(body);
    },
  );

  app.post(
    '/api/vaults/:address/agent-transfers/send',
    {
      config: { rateLimitCategory: 'write' },
      schema: {
        operationId: 'sendAgentTransfer',
        tags: ['agents'],
        summary: 'Relays the agent-signed transfer and answers its outcome: executed, blocked or failed',
        description:
          "Accepts only one execute_agent of this vault signed by its agent signer (its fee payer and only signer), beside nothing but Compute Budget instructions; anything else is 400 naming why and is never sent. Sends it (preflight skipped, so a blocked transfer lands and asks the owner), waits for it to land (up to 10 s) and answers: executed; blocked with the reason and, for a block the owner can approve, the approval's links once the service has ingested the override (up to 10 s more); failed with the program's error in words. The same idempotencyKey from the same agent within 24 h answers the first result and sends nothing.",
        params: VaultParams,
        body: AgentTransferSendBody,
        response: {
          200: described(AgentTransferResult, 'What became of the transfer'),
          ...errorResponses(404, 503),
        },
      },
    },
    async (request, reply) => {
      const body = await agentTransfers.sendTransfer(request.params.address, request.body);
      return reply.header('cache-control', 'no-store').send(body);
    },
  );
};
