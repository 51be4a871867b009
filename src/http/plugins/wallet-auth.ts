// Protected routes: `config: { auth: 'required' }` demands wallet headers; 'optional' checks them when present.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { WalletAuth, WalletAuthHeaders } from '../../domain/auth/wallet-auth.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: 'required' | 'optional';
  }
  interface FastifyRequest {
    /** The authenticated wallet address, or null. */
    wallet: string | null;
  }
}

const WALLET_SECURITY = { walletAddress: [], walletSignature: [], walletMessage: [] };

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

/** OpenAPI: protected routes list the three wallet headers as their security, and their 401. */
function documentAuth(route: RouteOptions): void {
  const mode = route.config?.auth;
  if (mode === undefined) return;
  const schema = (route.schema ?? {}) as Record<string, unknown>;
  schema.security ??= mode === 'required' ? [WALLET_SECURITY] : [{}, WALLET_SECURITY];
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

export const walletAuthPlugin = fp<{ walletAuth: WalletAuth }>(
  async (app: FastifyInstance, { walletAuth }) => {
    app.decorateRequest('wallet', null);
    // Only protected routes get the hooks: public reads pay nothing for authentication.
    app.addHook('onRoute', (route) => {
      documentAuth(route);
      const mode = route.config?.auth;
      if (mode === undefined) return;
      // Answers to signed requests are personal: no shared cache may keep them (401s included).
      appendRouteHook(route, 'onRequest', (_: FastifyRequest, reply: FastifyReply, done: () => void) => {
        reply.header('cache-control', 'no-store');
        done();
      });
      appendRouteHook(route, 'preValidation', async (request: FastifyRequest) => {
        if (mode === 'optional' && !hasWalletHeaders(request)) return;
        request.wallet = await walletAuth.authenticate(readWalletHeaders(request), {
          method: request.method,
          target: request.url,
          body: request.rawBody,
        });
      });
    });
  },
  { name: 'wallet-auth' },
);
