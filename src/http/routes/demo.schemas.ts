import { Type } from '@fastify/type-provider-typebox';
import { Address } from '../../lib/json-schema.js';

/** GET /api/demo/wallet (DEMO_MODE only): what the approval page's demo wallet signs and sends with. */
export const DemoWalletResponse = Type.Object({
  address: Address("the demo owner's address"),
  secretKey: Type.Array(Type.Integer({ minimum: 0, maximum: 255 }), {
    minItems: 64,
    maxItems: 64,
    description: "the demo owner's key, solana-keygen's 64 bytes (seed, then public key)",
  }),
  rpcUrl: Type.String({ description: "the demo's RPC, where the page sends the signed transaction" }),
  cluster: Type.String(),
});
