import { Type } from '@fastify/type-provider-typebox';
import { Address } from '../../lib/json-schema.js';

export const AuthVerifyResponse = Type.Object(
  {
    wallet: Address('the address the headers authenticate'),
    message: Type.String(),
  },
  { title: 'AuthVerification' },
);
