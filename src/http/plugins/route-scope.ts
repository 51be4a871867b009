export const API_KEY_SCOPES = ['read', 'webhooks', 'vaults:write', 'exports', 'audit'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

declare module 'fastify' {
  interface FastifyContextConfig {
    scope?: ApiKeyScope;
  }
}

// A route declares the scope an API key needs (`config: { scope: 'exports' }`) and, for keys limited to
// some vaults, where it names its vault (docs/AUTH.md, Scopes). A wallet signature holds every scope.
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { type ApiKeyGrant, assertKeyScope, assertKeyVault } from '../../domain/api-keys/api-key-scopes.js';
import type { KeyVaultResolver } from '../../domain/api-keys/key-vaults.js';

/** Where a route names the one vault it acts on: a vault (address or record id) or a subscription. */
export interface KeyVaultSource {
  readonly in: 'params' | 'query' | 'body';
  readonly name: string;
  readonly kind: 'vault' | 'webhook';
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** For keys limited to some vaults: where the request names its vault; absent: it acts owner-wide. */
    keyVault?: KeyVaultSource;
  }
  interface FastifyRequest {
    /** The API key the request was authenticated with, or null (a wallet signature, or none). */
    apiKey: ApiKeyGrant | null;
  }
}

/** A route that accepts API keys must say which scope it needs: a start-up error otherwise. */
export function assertRouteScopeDeclared(route: RouteOptions): void {
  const config = route.config;
  if (config?.auth === undefined || config.apiKeys === false || config.scope !== undefined) return;
  const methods = Array.isArray(route.method) ? route.method.join(',') : route.method;
  throw new Error(`${methods} ${route.url} accepts API keys but declares no config.scope`);
}

/** The route's scope check for a key (wallet signatures pass). */
export function assertRequestScope(request: FastifyRequest, scope: ApiKeyScope | undefined): void {
  if (request.apiKey === null || scope === undefined) return;
  assertKeyScope(request.apiKey, scope);
}

function readSource(request: FastifyRequest, source: KeyVaultSource): string | undefined {
  const holder = request[source.in] as Record<string, unknown> | undefined | null;
  const value = holder?.[source.name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * For a key limited to some vaults: the vault the request acts on must be one of them. A vault or
 * subscription that does not exist is left to the route (its own 404).
 */
async function assertRequestVault(request: FastifyRequest, resolver: KeyVaultResolver): Promise<void> {
  const key = request.apiKey;
  if (key === null || key.vaults === null) return;
  const config = request.routeOptions.config;
  const scope = config.scope ?? 'read';
  const source = config.keyVault;
  const named = source === undefined ? undefined : readSource(request, source);
  if (source === undefined || named === undefined) return assertKeyVault(key, scope, null);
  const vault =
    source.kind === 'vault' ? await resolver.vaultAddressOf(named) : await resolver.webhookVaultOf(named);
  if (vault === undefined) return;
  assertKeyVault(key, scope, vault);
}

/** Checks, after validation, that a limited key's request stays within its vaults. */
export const routeScopePlugin = fp<{ resolver: KeyVaultResolver }>(
  async (app: FastifyInstance, { resolver }) => {
    app.decorateRequest('apiKey', null);
    app.addHook('onRoute', (route) => {
      assertRouteScopeDeclared(route);
      if (route.config?.auth === undefined || route.config.apiKeys === false) return;
      // OpenAPI: a key outside its scope or vaults is refused with 403 INSUFFICIENT_SCOPE.
      const response = (route.schema as { response?: Record<string, unknown> } | undefined)?.response;
      if (response !== undefined) response[403] ??= { $ref: 'ErrorEnvelope#' };
      const options = route as unknown as Record<string, unknown>;
      const existing = options.preHandler;
      const hooks = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
      options.preHandler = [(request: FastifyRequest) => assertRequestVault(request, resolver), ...hooks];
    });
  },
  { name: 'route-scope' },
);
