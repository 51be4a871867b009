// The approval of a blocked transfer (the owner's decision on the override it asked for), by the
// transfer's signature: read now, or held (waitMs) until the owner decides, so an agent waits with one
// request instead of polling; a held request takes a slot of the caller's (its address and network)
// under the process's wait cap.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@fastify/type-provider-typebox';
import { Approval } from '../../domain/approvals/approval-resource.js';
import type { ApprovalService } from '../../domain/approvals/approval-service.js';
import { Signature } from '../../lib/json-schema.js';
import { described, errorResponses } from '../schemas/common.js';
import { strictValidatorCompiler } from '../validator.js';
import { VaultParams } from './vaults.schemas.js';

/** The longest a request is held: under common proxies' 60 s idle timeout. */
export const MAX_APPROVAL_WAIT_MS = 50_000;

const ApprovalParams = Type.Object({
  address: VaultParams.properties.address,
  signature: Signature("the blocked transfer's transaction signature"),
});

const ApprovalQuery = Type.Object(
  {
    waitMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_APPROVAL_WAIT_MS,
        description:
          'hold the request up to this many milliseconds while the override is pending; 0 (default) answers at once, and so does any other status (a transfer not seen yet is none at once)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const approvalRoutes: FastifyPluginAsyncTypebox<{ approvals: ApprovalService }> = async (
  app,
  { approvals },
) => {
  app.setValidatorCompiler(strictValidatorCompiler);

  app.get(
    '/api/vaults/:address/approvals/:signature',
    {
      config: { rateLimitCategory: 'read' },
      schema: {
        operationId: 'getTransferApproval',
        tags: ['agents'],
        summary:
          "The approval of a blocked transfer: the owner's decision on its override, by the transfer's signature",
        description:
          'status pending, approved, executed, rejected, expired, or none (the transfer asked for no approval, or is not seen yet). With waitMs a pending override is held: the answer comes as soon as the status is no longer pending (within about 250 ms of the decision, whichever process recorded it), or when waitMs passes. Held waits are capped per client address, per network and per process (docs/AGENTS.md): over a share 429, a full process 503, both with Retry-After.',
        params: ApprovalParams,
        querystring: ApprovalQuery,
        response: {
          200: described(Approval, 'The approval as of now'),
          ...errorResponses(404, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const left = new AbortController();
      const onClose = () => left.abort();
      request.raw.once('close', onClose);
      const { address, signature } = request.params;
      try {
        const approval = await approvals.getApproval(address, signature, {
          waitMs: request.query.waitMs ?? 0,
          signal: left.signal,
          holder: request,
        });
        return reply.header('cache-control', 'no-store').send(approval);
      } finally {
        request.raw.off('close', onClose);
      }
    },
  );
};
