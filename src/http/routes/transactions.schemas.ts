import { Type } from '@fastify/type-provider-typebox';
import { TransactionDetail, TransactionResource } from '../../domain/transactions/transaction-resource.js';
import { Signature } from '../../lib/json-schema.js';
import { Pagination } from '../../lib/pagination.js';
import { TRANSACTION_STATUSES } from '../../storage/schema/transactions.js';
import { VaultStatusListQuery } from '../schemas/common.js';

export { TransactionDetail };

export const TransactionListQuery = VaultStatusListQuery('transactions', TRANSACTION_STATUSES);

export const TransactionParams = Type.Object({
  signature: Signature(),
});

export const TransactionDetailQuery = Type.Object(
  {
    index: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 65_535,
        description:
          'event index of the transfer, when one Solana transaction holds several (default: the first)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const TransactionList = Type.Object(
  {
    transactions: Type.Array(TransactionResource),
    pagination: Pagination,
  },
  { title: 'TransactionList' },
);
