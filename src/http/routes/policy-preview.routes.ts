// The owner's policy preview before signing a policy change: public, on the analytics budget (it reads history).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { PolicyPreviewService } from '../../domain/policy/policy-preview.js';
import { PolicyPreview, PolicyPreviewBody } from '../../domain/policy/policy-preview-resource.js';
import { described, errorResponses } from '../schemas/common.js';
import { strictValidatorCompiler } from '../validator.js';
import { VaultParams } from './vaults.schemas.js';

export const policyPreviewRoutes: FastifyPluginAsyncTypebox<{ policyPreview: PolicyPreviewService }> = async (
  app,
  { policyPreview },
) => {
  app.setValidatorCompiler(strictValidatorCompiler);

  app.post(
    '/api/vaults/:address/policy-preview',
    {
      config: { rateLimitCategory: 'analytics' },
      schema: {
        operationId: 'previewVaultPolicy',
        tags: ['vaults'],
        summary: "Which of the vault's recent transfers a proposed daily limit or whitelist would change",
        description:
          "Replays the vault's transfer attempts of the period (default the last 30 days, at most 90), oldest first, under the proposed policy by the program's rules, and lists those whose outcome would differ. Changes nothing; needs no signature.",
        params: VaultParams,
        body: PolicyPreviewBody,
        response: {
          200: described(PolicyPreview, 'The replay: a summary and the attempts that would change'),
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const body = await policyPreview.preview(request.params.address, request.body, request);
      return reply.header('cache-control', 'no-store').send(body);
    },
  );
};
