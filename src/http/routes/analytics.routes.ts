import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AnalyticsService } from '../../domain/analytics/analytics.js';
import { described, errorResponses } from '../schemas/common.js';
import { AnalyticsQuery, AnalyticsResponse, RealtimeQuery, RealtimeResponse } from './analytics.schemas.js';

/** Analytics are cached 5 minutes (docs/API.md, Caching); realtime figures never. */
export const ANALYTICS_CACHE_CONTROL = 'public, max-age=300';

export const analyticsRoutes: FastifyPluginAsyncTypebox<{ analytics: AnalyticsService }> = async (
  app,
  { analytics },
) => {
  app.get(
    '/api/analytics',
    {
      config: { rateLimitCategory: 'analytics' },
      schema: {
        operationId: 'getAnalytics',
        tags: ['analytics'],
        summary: 'Spending of one vault or all vaults over a date range, with top destinations and buckets',
        querystring: AnalyticsQuery,
        response: {
          200: described(AnalyticsResponse, 'Spending summary, top destinations and spending by period'),
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const report = await analytics.getAnalytics(request.query);
      return reply.header('cache-control', ANALYTICS_CACHE_CONTROL).send(report);
    },
  );

  app.get(
    '/api/analytics/realtime',
    {
      config: { rateLimitCategory: 'analytics' },
      schema: {
        operationId: 'getRealtimeAnalytics',
        tags: ['analytics'],
        summary: "A vault's balance and daily spending window, read live from the chain",
        querystring: RealtimeQuery,
        response: {
          200: described(
            RealtimeResponse,
            "Balance, limit use and today's activity, read live from the chain",
          ),
          ...errorResponses(404, 503),
        },
      },
    },
    async (request, reply) => {
      const report = await analytics.getRealtime(request.query.vault);
      return reply.header('cache-control', 'no-store').send(report);
    },
  );
};
