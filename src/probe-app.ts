// buildProbeApp(deps): what a process without the api role serves on PORT: /livez, /readyz, /metrics.
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { AppDeps } from './app-deps.js';
import { registerErrorHandling } from './http/error-handler.js';
import { metricsRoutes } from './http/routes/metrics.routes.js';
import { probeRoutes } from './http/routes/probes.routes.js';
import { ErrorEnvelope } from './http/schemas/common.js';

export async function buildProbeApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    // Probes carry no body; anything larger is not a probe.
    bodyLimit: 1024,
  });
  app.addSchema(ErrorEnvelope);
  registerErrorHandling(app);
  await app.register(probeRoutes, { deps });
  await app.register(metricsRoutes, { deps });
  return app;
}
