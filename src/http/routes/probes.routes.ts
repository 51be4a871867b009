import { monitorEventLoopDelay } from 'node:perf_hooks';
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import type { AppDeps } from '../../app-deps.js';
import { createReadinessService } from '../../domain/health/readiness.js';

const Check = Type.Object({ ok: Type.Boolean(), detail: Type.String() });
const Checks = Type.Record(Type.String(), Check, {
  description: 'one entry per check: database and each role',
});
const LivenessResponse = Type.Object({
  status: Type.Literal('alive'),
  uptime: Type.Number({ description: 'seconds since the process started' }),
  checks: Type.Object({ eventLoop: Check }),
});
const ReadinessResponse = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')]),
  roles: Type.Array(Type.Union([Type.Literal('api'), Type.Literal('ingestor'), Type.Literal('worker')])),
  checks: Checks,
});

/** /livez and /readyz: served by every process, whatever its roles. */
export const probeRoutes: FastifyPluginAsyncTypebox<{
  deps: Pick<AppDeps, 'storage' | 'config' | 'roleStatus' | 'startedAt'>;
}> = async (app, { deps }) => {
  const readiness = createReadinessService({ ...deps, roles: deps.config.roles });
  const loopDelay = monitorEventLoopDelay({ resolution: 20 });
  loopDelay.enable();
  app.addHook('onClose', async () => loopDelay.disable());
  const config = { rateLimit: false };

  app.get(
    '/livez',
    {
      config,
      schema: {
        tags: ['operations'],
        summary: 'Liveness: the process and its event loop are alive',
        response: { 200: LivenessResponse },
      },
    },
    async (_request, reply) => {
      const p99 = Math.round(loopDelay.percentile(99) / 1e6);
      loopDelay.reset();
      return reply.header('cache-control', 'no-store').send(readiness.getLiveness(p99));
    },
  );

  app.get(
    '/readyz',
    {
      config,
      schema: {
        tags: ['operations'],
        summary: "Readiness: this process can do its roles' work now (503 names the failing checks)",
        response: { 200: ReadinessResponse, 503: ReadinessResponse },
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
