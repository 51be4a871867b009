import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import type { Metrics } from '../../lib/metrics.js';
import { errorResponses } from '../schemas/common.js';

export const metricsRoutes: FastifyPluginAsyncTypebox<{ metrics: Pick<Metrics, 'registry'> }> = async (
  app,
  { metrics },
) => {
  const { registry } = metrics;
  app.get(
    '/metrics',
    {
      config: { rateLimit: false },
      schema: {
        operationId: 'getMetrics',
        tags: ['operations'],
        summary: 'Prometheus metrics: HTTP latency, ingestion, deliveries, cache, rate limits, event loop',
        response: {
          200: {
            description: 'Prometheus text exposition format 0.0.4',
            content: { [registry.contentType]: { schema: Type.String() } },
          },
          ...errorResponses(),
        },
      },
    },
    async (_request, reply) =>
      reply
        .header('cache-control', 'no-store')
        .type(registry.contentType)
        .send(await registry.metrics()),
  );
};
