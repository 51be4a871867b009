import { Type } from '@fastify/type-provider-typebox';
import { Budget, TransferCheck } from '../../domain/budget/budget-resource.js';
import { Address } from '../../lib/json-schema.js';

export { Budget, TransferCheck };

export const TransferCheckQuery = Type.Object(
  {
    destination: Address('the account the agent would pay'),
    amount: Type.String({
      minLength: 1,
      maxLength: 40,
      description: 'lamports the agent would send: a decimal integer from 1 to 2^64-1',
    }),
    agent: Type.Optional(
      Address("the key the agent would sign with; any other than the vault's agent signer is refused"),
    ),
  },
  { additionalProperties: false },
);
