// Protected routes: `config: { auth: 'required' }` demands wallet headers; 'optional' checks them when present.
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
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

export const walletAuthPlugin = fp<{ walletAuth: WalletAuth }>(
  async (app: FastifyInstance, { walletAuth }) => {
    app.decorateRequest('wallet', null);
    app.addHook('onRoute', documentAuth);
    // Answers to signed requests are personal: no shared cache may keep them (401s included).
    app.addHook('onRequest', async (request, reply) => {
      if (request.routeOptions.config?.auth !== undefined) reply.header('cache-control', 'no-store');
    });
    app.addHook('preValidation', async (request) => {
      const mode = request.routeOptions.config?.auth;
      if (mode === undefined) return;
      if (mode === 'optional' && !hasWalletHeaders(request)) return;
      request.wallet = await walletAuth.authenticate(readWalletHeaders(request));
    });
  },
  { name: 'wallet-auth' },
);
