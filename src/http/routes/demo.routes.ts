// DEMO_MODE only (`npm run demo`): the demo owner's key for the approval page's in-page demo wallet.
// Registered only in demo mode, so anywhere else the route does not exist (404). Out of the OpenAPI
// document: no deployment serves it.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { DemoWallet } from '../../domain/demo/demo-wallet.js';
import { DemoWalletResponse } from './demo.schemas.js';

export const demoRoutes: FastifyPluginAsyncTypebox<{ wallet: DemoWallet }> = async (app, { wallet }) => {
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
    async (_request, reply) =>
      reply.header('cache-control', 'no-store').send({ ...wallet, secretKey: [...wallet.secretKey] }),
  );
};
