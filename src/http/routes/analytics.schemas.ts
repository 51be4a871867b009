import { Type } from '@fastify/type-provider-typebox';
import { GROUP_BY } from '../../domain/analytics/periods.js';
import { Address, Lamports, Timestamp } from '../schemas/common.js';
import { NullableString, StringEnum } from '../schemas/json-types.js';

const DateInput = (description: string) =>
  Type.String({
    minLength: 10,
    maxLength: 40,
    description: `${description}: YYYY-MM-DD (a UTC day) or an ISO 8601 timestamp`,
  });

export const AnalyticsQuery = Type.Object(
  {
    vault: Type.Optional(Address('only this vault (its address); omitted: every vault')),
    startDate: Type.Optional(DateInput('start of the range (a day starts at 00:00:00.000 UTC)')),
    endDate: Type.Optional(DateInput('end of the range (a day ends at 23:59:59.999 UTC); default now')),
    groupBy: Type.Optional(StringEnum(GROUP_BY, { description: 'bucket of spendingByPeriod (default day)' })),
  },
  { additionalProperties: false },
);

export const AnalyticsResponse = Type.Object({
  vault: NullableString({ description: 'the vault address, null for every vault' }),
  period: Type.Object({ start: Timestamp(), end: Timestamp() }),
  summary: Type.Object({
    totalSpent: Lamports('sum of executed amounts'),
    transactionCount: Type.Integer({ description: 'executed + blocked' }),
    blockedCount: Type.Integer(),
    averageAmount: Lamports('floor(totalSpent / executed count), "0" when none'),
    successRate: Type.Number({ minimum: 0, maximum: 1, description: 'executed / (executed + blocked)' }),
    totalFees: Lamports('sum of fees collected on executed transfers'),
  }),
  topDestinations: Type.Array(
    Type.Object({ address: Address(), amount: Lamports(), count: Type.Integer() }),
    { description: 'up to 10, executed only: amount desc, then count desc, then address asc' },
  ),
  spendingByPeriod: Type.Array(
    Type.Object({
      period: Type.String({ description: 'YYYY-MM-DD, ISO week YYYY-Www, or YYYY-MM (UTC)' }),
      amount: Lamports('executed amount in the bucket'),
      count: Type.Integer({ description: 'executed transfers in the bucket' }),
    }),
    { description: 'every bucket from start to end, zero buckets included' },
  ),
});

export const RealtimeQuery = Type.Object(
  { vault: Address('the vault address') },
  { additionalProperties: false },
);

export const RealtimeResponse = Type.Object({
  vault: Address(),
  timestamp: Timestamp(),
  balance: Lamports('lamports held at the deposit address'),
  spentToday: Lamports('spent in the current 24 h window ("0" once it has elapsed)'),
  dailyLimit: Lamports(),
  utilizationPct: Type.Number({ description: 'spentToday / dailyLimit × 100, 2 decimals' }),
  transactionsToday: Type.Integer({ description: 'executed transfers in the current window' }),
  lastTransaction: NullableString({ format: 'date-time', description: 'newest transaction time' }),
  lastReset: NullableString({ format: 'date-time', description: 'start of the current window' }),
});
