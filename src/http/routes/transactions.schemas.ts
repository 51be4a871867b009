import { Type } from '@fastify/type-provider-typebox';
import { TRANSACTION_STATUSES } from '../../storage/schema/transactions.js';
import { Address, Lamports, Pagination, PaginationQuery, Signature, Timestamp } from '../schemas/common.js';
import { NullableString, StringEnum } from '../schemas/json-types.js';

export const TransactionListQuery = Type.Object(
  {
    vault: Type.Optional(Address('only transactions of this vault (its address)')),
    status: Type.Optional(StringEnum(TRANSACTION_STATUSES)),
    page: Type.Optional(PaginationQuery.page),
    limit: Type.Optional(PaginationQuery.limit),
  },
  { additionalProperties: false },
);

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

const transactionFields = {
  id: Type.String({ format: 'uuid' }),
  signature: NullableString({ description: 'null for blocked and pending items in lists' }),
  vault: Address('the vault address'),
  destination: Address(),
  amount: Lamports(),
  status: StringEnum(TRANSACTION_STATUSES),
  blockReason: NullableString({
    description: 'not_whitelisted, exceeded_daily_limit or insufficient_funds; null unless blocked',
  }),
  timestamp: Timestamp('block time'),
  feeCollected: Type.Optional(Lamports('executed transactions only')),
  blinkUrl: Type.Optional(
    Type.String({ format: 'uri', description: 'blocked transactions with an override only: its Blink' }),
  ),
};

export const TransactionListItem = Type.Object(transactionFields);

export const TransactionList = Type.Object({
  transactions: Type.Array(TransactionListItem),
  pagination: Pagination,
});

export const TransactionDetail = Type.Object({
  ...transactionFields,
  signature: Type.String({ description: 'base58 transaction signature' }),
  explorerUrl: Type.String({ format: 'uri', description: 'the Solana Explorer page' }),
});
