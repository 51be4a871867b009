// Protected routes: `config: { auth: 'required' }` demands wallet headers or an API key; 'optional'
// checks wallet headers when present. `apiKeys: false` accepts a wallet signature only, and
// `requestBound: true` only one that names its request. A key must also hold the route's `scope`
// (route-scope.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { ApiKeyService } from '../../domain/api-keys/api-key-service.js';
import type { WalletAuth, WalletAuthHeaders } from '../../domain/auth/wallet-auth.js';
import { AppError, validationError } from '../../errors.js';
import { assertRequestScope } from './route-scope.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: 'required' | 'optional';
    /** False: a wallet signature only (creating keys, Blink POSTs). */
    apiKeys?: boolean;
    /** The wallet's message must name this request, whatever AUTH_REQUIRE_REQUEST_BINDING says. */
    requestBound?: boolean;
  }
  interface FastifyRequest {
    /** The authenticated wallet address (an API key's creating wallet), or null. */
    wallet: string | null;
  }
}

const WALLET_SECURITY = { walletAddress: [], walletSignature: [], walletMessage: [] };
const KEY_SECURITY = { apiKey: [] };
const BEARER = /^Bearer[ \t]+(\S*)[ \t]*$/i;

export function readWalletHeaders(request: FastifyRequest): WalletAuthHeaders {
  const header = (name: string) => {
    const value = request.headers[name];
    return typeof value === 'string' ? value : undefined;
  };
  return {
    address: header('x-wallet-address'),
    signature: header('x-signature'),
    message: header('x-message'),
  };
}

export function hasWalletHeaders(request: FastifyRequest): boolean {
  const { address, signature, message } = readWalletHeaders(request);
  return address !== undefined || signature !== undefined || message !== undefined;
}

/** The token of `Authorization: Bearer <token>`; undefined without one (other schemes are not ours). */
function readBearer(request: FastifyRequest): string | undefined {
  const value = request.headers.authorization;
  return typeof value === 'string' ? BEARER.exec(value)?.[1] : undefined;
}

/** OpenAPI: protected routes list their security (a key, or the three wallet headers) and their 401. */
function documentAuth(route: RouteOptions): void {
  const mode = route.config?.auth;
  if (mode === undefined) return;
  const schema = (route.schema ?? {}) as Record<string, unknown>;
  const accepted = route.config?.apiKeys === false ? [WALLET_SECURITY] : [KEY_SECURITY, WALLET_SECURITY];
  schema.security ??= mode === 'required' ? accepted : [{}, ...accepted];
  const response = schema.response as Record<string, unknown> | undefined;
  if (response !== undefined) response[401] ??= { $ref: 'ErrorEnvelope#' };
  route.schema = schema;
}

/** Appends a hook to a route's own list of that kind (route options allow one function or an array). */
function appendRouteHook(route: RouteOptions, kind: 'onRequest' | 'preValidation', hook: unknown): void {
  const options = route as unknown as Record<string, unknown>;
  const existing = options[kind];
  options[kind] = [...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]), hook];
}

const bothGiven = () =>
  validationError(
    [{ path: 'headers', message: 'send an API key or wallet signature headers, not both' }],
    'Send either Authorization: Bearer <API key> or the wallet signature headers, not both',
  );

const WALLET_HEADERS = ['X-Wallet-Address', 'X-Signature', 'X-Message'] as const;

/**
 * 401 missing_headers naming every way in the route accepts: an API key or a wallet signature, or (where
 * keys are refused) the wallet signature alone; and which wallet headers are missing when some were sent.
 */
function credentialsMissing(headers: WalletAuthHeaders, route: { keys: boolean; optional: boolean }) {
  const values = [headers.address, headers.signature, headers.message];
  const missing = WALLET_HEADERS.filter((_, i) => !values[i]);
  const partly = missing.length < WALLET_HEADERS.length ? `; ${missing.join(' and ')} missing` : '';
  const wallet = `a wallet signature (X-Wallet-Address, X-Signature and X-Message${partly})`;
  const key = 'an API key (Authorization: Bearer vk_…)';
  const noKeys = 'API keys are not accepted on this route';
  const keys = route.keys ? '' : `; ${noKeys}`;
  const message = route.optional
    ? `Wallet signature headers are optional here, but when sent they must make ${wallet}${keys}`
    : `Authentication required: send ${route.keys ? `${key} or ` : ''}${wallet}${keys}`;
  return new AppError('UNAUTHORIZED', message, { reason: 'missing_headers' });
}

const walletRequired = () =>
  new AppError(
    'UNAUTHORIZED',
    'This route needs a wallet signature (X-Wallet-Address, X-Signature, X-Message): API keys are not accepted here',
    { reason: 'wallet_required' },
  );

export interface CredentialOptions {
  walletAuth: WalletAuth;
  apiKeys: Pick<ApiKeyService, 'authenticateApiKey'>;
}

/** The wallet a protected request acts as, from its API key or its wallet signature. */
async function authenticate(request: FastifyRequest, { walletAuth, apiKeys }: CredentialOptions) {
  const config = request.routeOptions.config;
  const keysAccepted = config.apiKeys !== false;
  const bearer = readBearer(request);
  // A route that takes no keys leaves other bearer tokens alone (a Blink client may send its own).
  const keyGiven = bearer !== undefined && (keysAccepted || bearer.startsWith('vk_'));
  const walletGiven = hasWalletHeaders(request);
  if (keyGiven && walletGiven) throw bothGiven();
  if (keyGiven) {
    if (!keysAccepted) throw walletRequired();
    const grant = await apiKeys.authenticateApiKey(bearer);
    request.wallet = grant.owner;
    request.apiKey = grant;
    assertRequestScope(request, config.scope);
    return;
  }
  if (config.auth === 'optional' && !walletGiven) return;
  const headers = readWalletHeaders(request);
  if (!headers.address || !headers.signature || !headers.message) {
    throw credentialsMissing(headers, { keys: keysAccepted, optional: config.auth === 'optional' });
  }
  request.wallet = await walletAuth.authenticate(
    headers,
    { method: request.method, target: request.url, body: request.rawBody },
    { requireBinding: config.requestBound === true },
  );
}

export const walletAuthPlugin = fp<CredentialOptions>(
  async (app: FastifyInstance, options) => {
    app.decorateRequest('wallet', null);
    // Only protected routes get the hooks: public reads pay nothing for authentication.
    app.addHook('onRoute', (route) => {
      documentAuth(route);
      if (route.config?.auth === undefined) return;
      // Answers to signed requests are personal: no shared cache may keep them (401s included).
      appendRouteHook(route, 'onRequest', (_: FastifyRequest, reply: FastifyReply, done: () => void) => {
        reply.header('cache-control', 'no-store');
        done();
      });
      appendRouteHook(route, 'preValidation', (request: FastifyRequest) => authenticate(request, options));
    });
  },
  { name: 'wallet-auth' },
);
