// buildProbeApp(deps, services): what a process without the api role serves on PORT: /livez, /readyz, /metrics.
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { AppDeps } from './app-deps.js';
import { registerErrorHandling } from './http/error-handler.js';
import { metricsRoutes } from './http/routes/metrics.routes.js';
import { probeRoutes } from './http/routes/probes.routes.js';
import { ErrorEnvelope } from './http/schemas/common.js';
import { createServices, type Services } from './services.js';

/** Like buildApp, it closes the services it is given when it closes. */
export async function buildProbeApp(
  deps: AppDeps,
  services: Pick<Services, 'readiness' | 'eventLoopDelay' | 'close'> = createServices(deps),
): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    // Probes carry no body; anything larger is not a probe.
    bodyLimit: 1024,
  });
  app.addHook('onClose', () => services.close());
  app.addSchema(ErrorEnvelope);
  registerErrorHandling(app);
  await app.register(probeRoutes, { readiness: services.readiness, eventLoopDelay: services.eventLoopDelay });
  await app.register(metricsRoutes, { metrics: deps.metrics, token: deps.config.metricsToken });
  return app;
}
