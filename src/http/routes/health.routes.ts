import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { HealthService } from '../../domain/health/health.js';
import { described } from '../schemas/common.js';
import { HealthResponse } from './health.schemas.js';

export const healthRoutes: FastifyPluginAsyncTypebox<{ health: HealthService }> = async (app, { health }) => {
  app.get(
    '/api/health',
    {
      config: { rateLimit: false },
      schema: {
        operationId: 'getHealth',
        tags: ['health'],
        summary: 'Service health: database, cache, chain feed, latency and error rate',
        response: {
          200: described(HealthResponse, 'Healthy or degraded: every dependency and figure'),
          503: described(HealthResponse, 'Unhealthy: the same report, naming what is down'),
        },
      },
    },
    async (_request, reply) => {
      const result = await health.getHealth();
      return reply
        .code(result.status === 'unhealthy' ? 503 : 200)
        .header('cache-control', 'no-store')
        .send(result);
    },
  );
};
