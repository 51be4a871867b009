// The analytics resources: the spending report over a range and the live figures of one vault.
import { type Static, Type } from 'typebox';
import { Address, Lamports, NullableString, Timestamp } from '../../lib/json-schema.js';

export const AnalyticsReport = Type.Object(
  {
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
  },
  { title: 'Analytics' },
);
export type AnalyticsReport = Static<typeof AnalyticsReport>;

export const RealtimeReport = Type.Object(
  {
    vault: Address(),
    timestamp: Timestamp(),
    balance: Lamports('lamports held at the deposit address'),
    spentToday: Lamports('spent in the current 24 h window ("0" once it has elapsed)'),
    dailyLimit: Lamports(),
    utilizationPct: Type.Number({ description: 'spentToday / dailyLimit × 100, 2 decimals' }),
    transactionsToday: Type.Integer({ description: 'executed transfers in the current window' }),
    lastTransaction: NullableString({ format: 'date-time', description: 'newest transaction time' }),
    lastReset: NullableString({ format: 'date-time', description: 'start of the current window' }),
  },
  { title: 'RealtimeAnalytics' },
);
export type RealtimeReport = Static<typeof RealtimeReport>;
