// POST /api/auth/verify: lets integrators check their request signing against the real thing.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { described, errorResponses } from '../schemas/common.js';
import { AuthVerifyResponse } from './auth.schemas.js';

export const authRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api/auth/verify',
    {
      config: { auth: 'required', scope: 'read', rateLimitCategory: 'write' },
      schema: {
        operationId: 'verifyAuth',
        tags: ['auth'],
        summary:
          'Check wallet-auth headers: 200 with the wallet when they verify (the signature is then used)',
        response: {
          200: described(AuthVerifyResponse, 'The signature is valid: the wallet it names'),
          ...errorResponses(401),
        },
      },
    },
    async (request) => ({ wallet: request.wallet!, message: 'These wallet-auth headers are valid.' }),
  );
};
