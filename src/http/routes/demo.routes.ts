// DEMO_MODE only (`npm run demo`): the demo owner's key for the approval page's in-page demo wallet.
// Registered only in demo mode, so anywhere else the route does not exist (404). Out of the OpenAPI
// document: no deployment serves it.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { LOOPBACK_HOSTS } from '../../config.js';
import type { DemoGuard } from '../../domain/demo/demo-guard.js';
import type { DemoWallet } from '../../domain/demo/demo-wallet.js';
import { AppError } from '../../errors.js';
import { DemoWalletResponse } from './demo.schemas.js';

/** The Host header without its port: `[::1]:3000` → `[::1]`, `localhost:3000` → `localhost`. */
function hostName(header: string | undefined): string {
  const host = (header ?? '').toLowerCase();
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!;
}

/**
 * A page on another site can reach a demo on 127.0.0.1 under its own name (DNS rebinding); its
 * requests then carry that name as Host. Only this machine's names get the key.
 */
function assertLoopbackHost(header: string | undefined): void {
  if (LOOPBACK_HOSTS.includes(hostName(header))) return;
  throw new AppError('FORBIDDEN', 'the demo wallet answers only to localhost, 127.0.0.1 or [::1] as Host');
}

export const demoRoutes: FastifyPluginAsyncTypebox<{ wallet: DemoWallet; guard: DemoGuard }> = async (
  app,
  { wallet, guard },
) => {
  app.get(
    '/api/demo/wallet',
    {
      schema: {
        hide: true,
        tags: ['demo'],
        summary: "The demo owner's key for the approval page's demo wallet (DEMO_MODE only)",
        response: { 200: DemoWalletResponse },
      },
    },
    async (request, reply) => {
      assertLoopbackHost(request.headers.host);
      // Never once the demo's RPC stopped serving the local ledger it served at start.
      await guard.assertServing();
      return reply.header('cache-control', 'no-store').send({ ...wallet, secretKey: [...wallet.secretKey] });
    },
  );
};
