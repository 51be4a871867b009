import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import type { ReadinessService } from '../../domain/health/readiness.js';
import type { EventLoopDelay } from '../../lib/event-loop-delay.js';
import { described } from '../schemas/common.js';

const Check = Type.Object({ ok: Type.Boolean(), detail: Type.String() });
const Checks = Type.Record(Type.String(), Check, {
  description: 'one entry per check: database and each role',
});
const LivenessResponse = Type.Object(
  {
    status: Type.Literal('alive'),
    uptime: Type.Number({ description: 'seconds since the process started' }),
    checks: Type.Object({ eventLoop: Check }),
  },
  { title: 'Liveness' },
);
const ReadinessResponse = Type.Object(
  {
    status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')]),
    roles: Type.Array(Type.Union([Type.Literal('api'), Type.Literal('ingestor'), Type.Literal('worker')])),
    checks: Checks,
  },
  { title: 'Readiness' },
);

/** /livez and /readyz: served by every process, whatever its roles. */
export const probeRoutes: FastifyPluginAsyncTypebox<{
  readiness: ReadinessService;
  eventLoopDelay: EventLoopDelay;
}> = async (app, { readiness, eventLoopDelay }) => {
  const config = { rateLimit: false };

  app.get(
    '/livez',
    {
      config,
      schema: {
        operationId: 'getLiveness',
        tags: ['operations'],
        summary: 'Liveness: the process and its event loop are alive',
        response: { 200: described(LivenessResponse, 'The process and its event loop answer') },
      },
    },
    async (_request, reply) =>
      reply.header('cache-control', 'no-store').send(readiness.getLiveness(eventLoopDelay.takeP99Ms())),
  );

  app.get(
    '/readyz',
    {
      config,
      schema: {
        operationId: 'getReadiness',
        tags: ['operations'],
        summary: "Readiness: this process can do its roles' work now (503 names the failing checks)",
        response: {
          200: described(ReadinessResponse, 'Ready to serve its roles'),
          503: described(ReadinessResponse, 'Not ready: the failing checks are named'),
        },
      },
    },
    async (_request, reply) => {
      const result = await readiness.getReadiness();
      return reply
        .code(result.status === 'ready' ? 200 : 503)
        .header('cache-control', 'no-store')
        .send(result);
    },
  );
};
