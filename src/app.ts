// buildApp(deps): the HTTP application, fully registered, never listening.
import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { registerAjvFormats, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createVaultkeeperClient } from '@vaultkeeper/client';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import type { AppDeps } from './app-deps.js';
import { ApiKey } from './domain/api-keys/api-key-resource.js';
import { AuditEntry } from './domain/audit/audit-entry.js';
import { registerErrorHandling } from './http/error-handler.js';
import { finishOpenApiDocument } from './http/openapi-document.js';
import { auditTrailPlugin } from './http/plugins/audit-trail.js';
import { clientKeyPlugin } from './http/plugins/client-key.js';
import { hostHeaderPlugin } from './http/plugins/host-header.js';
import { rateLimitPlugin } from './http/plugins/rate-limit.js';
import { routeScopePlugin } from './http/plugins/route-scope.js';
import { createClientErrorHandler, securityPlugin, sendFrameworkError } from './http/plugins/security.js';
import { walletAuthPlugin } from './http/plugins/wallet-auth.js';
import { routeConfigOf } from './http/route-config.js';
import { actionsRoutes } from './http/routes/actions.routes.js';
import { agentTransferRoutes } from './http/routes/agent-transfers.routes.js';
import { alertRoutes } from './http/routes/alerts.routes.js';
import { analyticsRoutes } from './http/routes/analytics.routes.js';
import { apiKeyRoutes } from './http/routes/api-keys.routes.js';
import { approvalRoutes } from './http/routes/approvals.routes.js';
import { auditRoutes } from './http/routes/audit.routes.js';
import { authRoutes } from './http/routes/auth.routes.js';
import { budgetRoutes } from './http/routes/budget.routes.js';
import { demoRoutes } from './http/routes/demo.routes.js';
import { exportRoutes } from './http/routes/exports.routes.js';
import { healthRoutes } from './http/routes/health.routes.js';
import { liveFeedRoutes } from './http/routes/live-feed.routes.js';
import { mcpRoutes } from './http/routes/mcp.routes.js';
import { metricsRoutes } from './http/routes/metrics.routes.js';
import { overrideRoutes } from './http/routes/overrides.routes.js';
import { TransactionPreview } from './http/routes/overrides.schemas.js';
import { pagesRoutes } from './http/routes/pages.routes.js';
import { policyPreviewRoutes } from './http/routes/policy-preview.routes.js';
import { probeRoutes } from './http/routes/probes.routes.js';
import { transactionRoutes } from './http/routes/transactions.routes.js';
import { vaultWriteRoutes } from './http/routes/vault-writes.routes.js';
import { vaultRoutes } from './http/routes/vaults.routes.js';
import { webhookRoutes } from './http/routes/webhooks.routes.js';
import { ErrorEnvelope } from './http/schemas/common.js';
import { buildWebhookDocumentation } from './http/schemas/webhook-payloads.js';
import { cachedSerializers } from './http/serializer-compiler.js';
import { validatorCompiler } from './http/validator.js';
import { deferredChildLogger } from './lib/logger.js';
import { trustProxyOption } from './lib/trust-proxy.js';
import { createInProcessCalls, type InProcessCalls } from './mcp/in-process-fetch.js';
import { createMcpServer } from './mcp/mcp-server.js';
import { createServices, type Services } from './services.js';

export const BODY_LIMIT_BYTES = 64 * 1024;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;
const DOCS_PREFIX = '/docs';

registerAjvFormats();

export const TRUST_EVERY_HOP_WARNING =
  'TRUST_PROXY=true trusts every X-Forwarded-For entry: the client address is the leftmost one, which ' +
  'the client itself writes, so per-IP rate limits and stream caps can be dodged unless the proxy ' +
  'replaces the header; set a hop count (1 behind one proxy) or the proxies’ addresses instead';

/**
 * The app serves the services it is given (built once per process by createServices) and closes them
 * when it closes.
 */
export async function buildApp(
  deps: AppDeps,
  services: Services = createServices(deps),
): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    ...serverTimeouts(deps.config.requestBodyTimeoutMs),
    trustProxy: trustProxyOption(deps.config.trustProxy),
    requestIdHeader: false,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: (logger, bindings, options) =>
      deferredChildLogger(logger as Logger, bindings, options) as FastifyBaseLogger,
    routerOptions: { maxParamLength: 200, ignoreTrailingSlash: true },
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    frameworkErrors: sendFrameworkError,
    schemaController: { compilersFactory: { buildSerializer: cachedSerializers } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.addHook('onClose', () => services.close());
  if (deps.config.trustProxy === true) deps.logger.warn(TRUST_EVERY_HOP_WARNING);
  app.setValidatorCompiler(validatorCompiler);
  app.addSchema(ErrorEnvelope);
  app.addSchema(ApiKey);
  app.addSchema(AuditEntry);
  app.addSchema(TransactionPreview);
  registerJsonBodies(app);
  registerErrorHandling(app);
  registerRequestAccounting(app, deps);
  await app.register(clientKeyPlugin, { ipv6Prefix: deps.config.clientIpv6Prefix });
  await app.register(securityPlugin, { docsPrefix: DOCS_PREFIX });
  await app.register(hostHeaderPlugin);
  const inProcess = createInProcessCalls();
  await app.register(rateLimitPlugin, {
    deps,
    exemptPrefixes: [DOCS_PREFIX],
    isExempt: inProcess.isInProcess,
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Vaultkeeper API',
        version: deps.config.version,
        description:
          'Spending vaults on Solana: vaults, transactions, overrides, Blinks (Solana Actions), webhooks and analytics.',
      },
      servers: [{ url: deps.config.publicBaseUrl }],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'vk_…',
            description:
              'An API key (POST /api/api-keys creates one with a wallet signature): acts as the wallet that created it',
          },
          walletAddress: { type: 'apiKey', in: 'header', name: 'X-Wallet-Address' },
          walletSignature: { type: 'apiKey', in: 'header', name: 'X-Signature' },
          walletMessage: { type: 'apiKey', in: 'header', name: 'X-Message' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (documents) =>
      finishOpenApiDocument((documents as { openapiObject: Record<string, unknown> }).openapiObject, {
        webhooks: buildWebhookDocumentation(),
      }),
  });
  await app.register(swaggerUi, { routePrefix: DOCS_PREFIX, staticCSP: false });

  await app.register(routeScopePlugin, { resolver: services.keyVaults });
  await app.register(auditTrailPlugin, { audit: services.audit, resolver: services.keyVaults });
  await app.register(walletAuthPlugin, { walletAuth: services.walletAuth, apiKeys: services.apiKeys });
  await registerRoutes(app, deps, services);
  await registerMcp(app, deps, inProcess);

  app.get('/api/openapi.json', { schema: { hide: true }, config: { rateLimit: false } }, async () =>
    app.swagger(),
  );
  return app;
}

/** Every route plugin, each given the services it uses. */
async function registerRoutes(app: FastifyInstance, deps: AppDeps, services: Services): Promise<void> {
  await app.register(healthRoutes, { health: services.health });
  await app.register(metricsRoutes, { metrics: deps.metrics, token: deps.config.metricsToken });
  await app.register(probeRoutes, { readiness: services.readiness, eventLoopDelay: services.eventLoopDelay });
  await app.register(actionsRoutes, { actions: services.actions });
  await app.register(liveFeedRoutes, {
    feed: services.liveFeed,
    maxStreams: deps.config.sseMaxStreams,
    metrics: deps.metrics,
  });
  await app.register(vaultRoutes, { vaults: services.vaults });
  await app.register(budgetRoutes, { budget: services.budget });
  await app.register(agentTransferRoutes, { agentTransfers: services.agentTransfers });
  await app.register(policyPreviewRoutes, { policyPreview: services.policyPreview });
  await app.register(approvalRoutes, { approvals: services.approvals });
  await app.register(vaultWriteRoutes, { vaultWrites: services.vaultWrites });
  await app.register(alertRoutes, { alerts: services.alerts });
  await app.register(authRoutes);
  await app.register(transactionRoutes, { transactions: services.transactions });
  await app.register(overrideRoutes, { overrides: services.overrides, actions: services.actions });
  await app.register(analyticsRoutes, { analytics: services.analytics });
  await app.register(exportRoutes, { exports: services.exports });
  await app.register(webhookRoutes, { webhooks: services.webhooks, deliveries: services.deliveries });
  await app.register(apiKeyRoutes, { apiKeys: services.apiKeys });
  await app.register(auditRoutes, { audit: services.audit });
  if (services.demoWallet !== null && services.demoGuard !== null) {
    await app.register(demoRoutes, { wallet: services.demoWallet, guard: services.demoGuard });
  }
  await app.register(pagesRoutes, {
    cluster: deps.config.cluster,
    demoRpcUrl: services.demoWallet?.rpcUrl ?? null,
    lookups: {
      vault: (address) => services.vaults.getVault(address),
      override: (vault, nonce, transfer) => services.overrides.getOverride(vault, nonce, transfer),
    },
  });
}

/** POST /mcp: each request's MCP server calls this app in process through the client package. */
async function registerMcp(app: FastifyInstance, deps: AppDeps, inProcess: InProcessCalls): Promise<void> {
  await app.register(mcpRoutes, {
    createServer: (request) =>
      createMcpServer(
        createVaultkeeperClient({
          baseUrl: deps.config.publicBaseUrl,
          fetch: inProcess.fetchFor(app, request.ip),
          maxRetries: 0,
        }),
        deps.config.version,
      ),
  });
}

/**
 * A request (headers and body) must arrive within requestTimeoutMs, else 408 and the socket closes;
 * Node checks at a tenth of that (at most every second), so the answer comes at most 10 % late. Idle
 * keep-alive sockets live 72 s (past the 60 s idle timeout of common load balancers); any socket silent
 * for 2 minutes is closed (event streams send a comment every 15 s).
 */
function serverTimeouts(requestTimeoutMs: number) {
  return {
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: 72_000,
    connectionTimeout: 120_000,
    http: {
      headersTimeout: requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, Math.max(10, Math.floor(requestTimeoutMs / 10))),
    },
    clientErrorHandler: createClientErrorHandler(requestTimeoutMs),
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The body bytes as received (JSON bodies only), for request-bound signatures. */
    rawBody: Buffer | undefined;
  }
}

/**
 * JSON only: a body of any other type is 415 before it is read. JSON is read as bytes, kept on the
 * request for signature checks, then parsed exactly as Fastify's own parser does (poisoning refused).
 */
function registerJsonBodies(app: FastifyInstance): void {
  app.decorateRequest('rawBody', undefined);
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    request.rawBody = body as Buffer;
    parseJson(request, body as unknown as string, done);
  });
}

/** Probes and monitoring polls: their 503s say "not ready", not that the API failed a caller. */
const OPERATIONAL_ROUTES = new Set(['/livez', '/readyz', '/metrics', '/api/health']);

/** Request id header, latency histogram and the rolling window health reports (callers' requests only). */
function registerRequestAccounting(app: FastifyInstance, deps: AppDeps): void {
  // The histogram's child per method, route and status, looked up once (labels() hashes its arguments).
  const durations = new Map<string, ReturnType<typeof deps.metrics.httpRequestDuration.labels>>();
  const durationOf = (method: string, route: string, status: number) => {
    const key = `${method} ${status} ${route}`;
    let child = durations.get(key);
    if (child === undefined) {
      child = deps.metrics.httpRequestDuration.labels(method, route, String(status));
      durations.set(key, child);
    }
    return child;
  };
  // Callback hooks, not async ones: every request runs these.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const elapsedMs = reply.elapsedTime;
    const route = routeConfigOf(request)?.url ?? 'unmatched';
    const status = reply.statusCode;
    if (!OPERATIONAL_ROUTES.has(route)) deps.requestStats.record(elapsedMs, status >= 500);
    durationOf(request.method, route, status).observe(elapsedMs / 1000);
    request.log.debug({ method: request.method, route, status, ms: elapsedMs }, 'request');
    done();
  });
}
