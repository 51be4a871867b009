import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TransactionReadService } from '../../domain/transactions/transaction-reads.js';
import { described, errorResponses } from '../schemas/common.js';
import { strictValidatorCompiler } from '../validator.js';
import {
  TransactionDetail,
  TransactionDetailQuery,
  TransactionList,
  TransactionListQuery,
  TransactionParams,
} from './transactions.schemas.js';

/** Transaction reads are cached 30 seconds (docs/API.md, Caching); clients may keep them as long. */
export const TRANSACTION_CACHE_CONTROL = 'public, max-age=30';
const JSON_BODY = 'application/json; charset=utf-8';

export const transactionRoutes: FastifyPluginAsyncTypebox<{ transactions: TransactionReadService }> = async (
  app,
  { transactions },
) => {
  app.setValidatorCompiler(strictValidatorCompiler);

  app.get(
    '/api/transactions',
    {
      schema: {
        operationId: 'listTransactions',
        tags: ['transactions'],
        summary: 'List transactions, newest first, optionally of one vault and one status',
        querystring: TransactionListQuery,
        response: {
          200: described(TransactionList, 'A page of transactions, newest first'),
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      // The stored body, serialized by this route's response schema when it was cached.
      const body = await transactions.listTransactionsBody(
        request.query,
        (list) => reply.serialize(list) as string,
      );
      return reply
        .header('cache-control', TRANSACTION_CACHE_CONTROL)
        .type(JSON_BODY)
        .send(body as never);
    },
  );

  app.get(
    '/api/transactions/:key',
    {
      schema: {
        operationId: 'getTransaction',
        tags: ['transactions'],
        summary:
          "One transfer by a list item's id or by transaction signature (?index=N picks another transfer of a signature)",
        description:
          'Any list item opens here by its `id`, whatever its status. Lists show `signature` only for executed ' +
          'transfers (null for blocked and pending ones); the detail shows the signature of the Solana ' +
          'transaction the transfer came from: the executing one, or for a blocked transfer the one whose ' +
          'transfer the program blocked; null while pending (nothing sent yet). A signature opens executed and ' +
          'blocked transfers as before.',
        params: TransactionParams,
        querystring: TransactionDetailQuery,
        response: {
          200: described(TransactionDetail, 'The transfer, with its signature and explorer link'),
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const transaction = await transactions.getTransaction(request.params.key, request.query.index);
      return reply.header('cache-control', TRANSACTION_CACHE_CONTROL).send(transaction);
    },
  );
};
