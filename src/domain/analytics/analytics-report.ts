// The analytics response body, built from per-day figures (pure).
import type { DayFigures, DestinationFigures } from './analytics-queries.js';
import type { AnalyticsReport } from './analytics-resource.js';
import { type GroupBy, listDays, periodLabel, type TimeRange, toDay } from './periods.js';

export function buildAnalyticsReport(input: {
  vaultAddress: string | null;
  range: TimeRange;
  groupBy: GroupBy;
  days: ReadonlyMap<string, DayFigures>;
  topDestinations: readonly DestinationFigures[];
}): AnalyticsReport {
  let executedCount = 0;
  let blockedCount = 0;
  let totalSpent = 0n;
  let totalFees = 0n;
  const buckets = new Map<string, { amount: bigint; count: number }>();
  // Every bucket from the first to the last day, zero ones included, in calendar order.
  for (const day of listDays(toDay(input.range.startMs), toDay(input.range.endMs))) {
    const label = periodLabel(day, input.groupBy);
    let bucket = buckets.get(label);
    if (bucket === undefined) {
      bucket = { amount: 0n, count: 0 };
      buckets.set(label, bucket);
    }
    const figures = input.days.get(day);
    if (figures === undefined) continue;
    bucket.amount += figures.executedVolume;
    bucket.count += figures.executedCount;
    executedCount += figures.executedCount;
    blockedCount += figures.blockedCount;
    totalSpent += figures.executedVolume;
    totalFees += figures.fees;
  }
  const attempts = executedCount + blockedCount;
  return {
    vault: input.vaultAddress,
    period: {
      start: new Date(input.range.startMs).toISOString(),
      end: new Date(input.range.endMs).toISOString(),
    },
    summary: {
      totalSpent: totalSpent.toString(),
      transactionCount: attempts,
      blockedCount,
      averageAmount: executedCount === 0 ? '0' : (totalSpent / BigInt(executedCount)).toString(),
      successRate: attempts === 0 ? 0 : executedCount / attempts,
      totalFees: totalFees.toString(),
    },
    topDestinations: input.topDestinations.map((d) => ({
      address: d.address,
      amount: d.amount.toString(),
      count: d.count,
    })),
    spendingByPeriod: [...buckets].map(([period, b]) => ({
      period,
      amount: b.amount.toString(),
      count: b.count,
    })),
  };
}
