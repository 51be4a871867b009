// Protected routes: `config: { auth: 'required' }` demands wallet headers; 'optional' checks them when present.
import type { FastifyInstance, FastifyRequest } from 'fastify';
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

export const walletAuthPlugin = fp<{ walletAuth: WalletAuth }>(
  async (app: FastifyInstance, { walletAuth }) => {
    app.decorateRequest('wallet', null);
    app.addHook('preValidation', async (request) => {
      const mode = request.routeOptions.config?.auth;
      if (mode === undefined) return;
      if (mode === 'optional' && !hasWalletHeaders(request)) return;
      request.wallet = await walletAuth.authenticate(readWalletHeaders(request));
    });
  },
  { name: 'wallet-auth' },
);
