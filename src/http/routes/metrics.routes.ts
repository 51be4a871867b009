import { createHash, timingSafeEqual } from 'node:crypto';
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.js';
import type { Metrics } from '../../lib/metrics.js';
import { errorResponses } from '../schemas/common.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * METRICS_TOKEN set: the request's `Authorization: Bearer <token>` must match. Both sides are hashed
 * first, so the comparison takes the same time whatever the length or content of the guess.
 */
function createMetricsGuard(token: string | null) {
  if (token === null) return null;
  const expected = digest(token);
  return (authorization: string | undefined) => {
    const match = /^Bearer (.+)$/i.exec(authorization ?? '');
    const given = digest(match?.[1] ?? '');
    if (match !== null && timingSafeEqual(given, expected)) return;
    throw new AppError('UNAUTHORIZED', 'metrics need Authorization: Bearer <METRICS_TOKEN>', {
      reason: match === null ? 'missing_token' : 'wrong_token',
    });
  };
}

export const metricsRoutes: FastifyPluginAsyncTypebox<{
  metrics: Pick<Metrics, 'registry'>;
  token: string | null;
}> = async (app, { metrics, token }) => {
  const { registry } = metrics;
  const guard = createMetricsGuard(token);
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
          ...errorResponses(401),
        },
      },
    },
    async (request, reply) => {
      guard?.(request.headers.authorization);
      return reply
        .header('cache-control', 'no-store')
        .type(registry.contentType)
        .send(await registry.metrics());
    },
  );
};
