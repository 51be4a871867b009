import { Format, Type } from '@fastify/type-provider-typebox';
import { TransactionDetail, TransactionResource } from '../../domain/transactions/transaction-resource.js';
import { isSolanaSignature } from '../../lib/json-schema.js';
import { Pagination } from '../../lib/pagination.js';
import { isUuid } from '../../lib/uuid.js';
import { TRANSACTION_STATUSES } from '../../storage/schema/transactions.js';
import { VaultStatusListQuery } from '../schemas/common.js';

export { TransactionDetail };

export const TransactionListQuery = VaultStatusListQuery('transactions', TRANSACTION_STATUSES);

Format.Set('transaction-key', (value) => isUuid(value) || isSolanaSignature(value));

/** A list item's `id` (any status) or a base58 transaction signature. */
export const TransactionParams = Type.Object({
  key: Type.String({
    format: 'transaction-key',
    minLength: 36,
    maxLength: 88,
    description:
      "a list item's `id` (opens any transfer, pending ones included) or a base58 transaction signature (executed and blocked transfers)",
  }),
});

export const TransactionDetailQuery = Type.Object(
  {
    index: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 65_535,
        description:
          'with a signature only: the event index of the transfer, when one Solana transaction holds several (default: the first)',
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
