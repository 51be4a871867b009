// Analytics figures computed independently of src/, straight from the rows a test created.
import { sql } from 'drizzle-orm';
import type { Storage } from '../../src/storage/database.js';

export interface OracleTransaction {
  vaultId: string;
  destination: string;
  amount: bigint;
  feeCollected: bigint | null;
  status: 'executed' | 'blocked' | 'pending';
  timestamp: Date;
}

const DAY = 86_400_000;

/** ISO week by brute force: week 1 starts on the Monday on or before 4 January. */
export function oracleIsoWeek(ms: number): string {
  const week1Monday = (year: number) => {
    const jan4 = Date.UTC(year, 0, 4);
    const weekday = new Date(jan4).getUTCDay() || 7; // Monday 1 … Sunday 7
    return jan4 - (weekday - 1) * DAY;
  };
  let year = new Date(ms).getUTCFullYear() + 1;
  while (week1Monday(year) > ms) year -= 1;
  const week = Math.floor((ms - week1Monday(year)) / (7 * DAY)) + 1;
  return `${year}-W${week < 10 ? '0' : ''}${week}`;
}

function label(ms: number, groupBy: 'day' | 'week' | 'month'): string {
  const iso = new Date(ms).toISOString();
  if (groupBy === 'day') return iso.slice(0, 10);
  if (groupBy === 'month') return iso.slice(0, 7);
  return oracleIsoWeek(ms);
}

export function expectedAnalytics(
  rows: readonly OracleTransaction[],
  query: {
    vaultId: string | null;
    vaultAddress: string | null;
    startMs: number;
    endMs: number;
    groupBy: 'day' | 'week' | 'month';
  },
) {
  const inRange = rows.filter(
    (r) =>
      (query.vaultId === null || r.vaultId === query.vaultId) &&
      r.timestamp.getTime() >= query.startMs &&
      r.timestamp.getTime() <= query.endMs,
  );
  const executed = inRange.filter((r) => r.status === 'executed');
  const blocked = inRange.filter((r) => r.status === 'blocked');
  const totalSpent = executed.reduce((sum, r) => sum + r.amount, 0n);
  const totalFees = executed.reduce((sum, r) => sum + (r.feeCollected ?? 0n), 0n);

  const byDestination = new Map<string, { address: string; amount: bigint; count: number }>();
  for (const r of executed) {
    const entry = byDestination.get(r.destination) ?? { address: r.destination, amount: 0n, count: 0 };
    entry.amount += r.amount;
    entry.count += 1;
    byDestination.set(r.destination, entry);
  }
  const top = [...byDestination.values()]
    .sort((a, b) =>
      a.amount !== b.amount
        ? a.amount > b.amount
          ? -1
          : 1
        : a.count !== b.count
          ? b.count - a.count
          : a.address < b.address
            ? -1
            : 1,
    )
    .slice(0, 10);

  // Walk every UTC day from the start's day to the end's day; buckets appear in first-seen order.
  const buckets: { period: string; amount: bigint; count: number }[] = [];
  const firstDay = Math.floor(query.startMs / DAY) * DAY;
  for (let day = firstDay; day <= query.endMs; day += DAY) {
    const name = label(day, query.groupBy);
    if (buckets.at(-1)?.period !== name) buckets.push({ period: name, amount: 0n, count: 0 });
  }
  for (const r of executed) {
    const bucket = buckets.find((b) => b.period === label(r.timestamp.getTime(), query.groupBy))!;
    bucket.amount += r.amount;
    bucket.count += 1;
  }
  const attempts = executed.length + blocked.length;
  return {
    vault: query.vaultAddress,
    period: { start: new Date(query.startMs).toISOString(), end: new Date(query.endMs).toISOString() },
    summary: {
      totalSpent: totalSpent.toString(),
      transactionCount: attempts,
      blockedCount: blocked.length,
      averageAmount: executed.length === 0 ? '0' : (totalSpent / BigInt(executed.length)).toString(),
      successRate: attempts === 0 ? 0 : executed.length / attempts,
      totalFees: totalFees.toString(),
    },
    topDestinations: top.map((d) => ({ address: d.address, amount: d.amount.toString(), count: d.count })),
    spendingByPeriod: buckets.map((b) => ({ period: b.period, amount: b.amount.toString(), count: b.count })),
  };
}

/** A small seeded generator (mulberry32), so a failing case reproduces. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

// Daily metrics rows: what the rollup and the rebuild should store, and what they did store.

type Figures = {
  executed_count: number;
  executed_volume: string;
  blocked_count: number;
  blocked_volume: string;
  fees: string;
  overrides_requested: number;
  overrides_approved: number;
  overrides_rejected: number;
  overrides_executed: number;
};
const FIGURES = [
  'executed_count',
  'executed_volume',
  'blocked_count',
  'blocked_volume',
  'fees',
  'overrides_requested',
  'overrides_approved',
  'overrides_rejected',
  'overrides_executed',
] as const;

/** Expected rows keyed `vaultKey|day`, summed by the test from what it created. */
export class ExpectedDays {
  readonly rows = new Map<string, Record<(typeof FIGURES)[number], bigint>>();
  add(vaultId: string, at: Date, figure: (typeof FIGURES)[number], value = 1n): void {
    for (const key of [vaultId, '*']) {
      const id = `${key}|${at.toISOString().slice(0, 10)}`;
      const row = this.rows.get(id) ?? Object.fromEntries(FIGURES.map((f) => [f, 0n]));
      row[figure] += value;
      this.rows.set(id, row as Record<(typeof FIGURES)[number], bigint>);
    }
  }
  toObject(): Record<string, Record<string, string>> {
    return Object.fromEntries(
      [...this.rows].map(([k, row]) => [k, Object.fromEntries(FIGURES.map((f) => [f, String(row[f])]))]),
    );
  }
}

export async function readStoredDays(storage: Storage): Promise<Record<string, Record<string, string>>> {
  const rows = await storage.rows<Figures & { vault_key: string; day: string }>(
    sql`select vault_key, day::text as day, ${sql.raw(FIGURES.map((f) => `${f}::text as ${f}`).join(', '))}
        from daily_metrics`,
  );
  return Object.fromEntries(
    rows.map((r) => [`${r.vault_key}|${r.day}`, Object.fromEntries(FIGURES.map((f) => [f, String(r[f])]))]),
  );
}

export async function readStoredDestinations(
  storage: Storage,
  table: 'daily' | 'blocks',
): Promise<Record<string, string>> {
  const rows = await storage.rows<{ k: string; v: string }>(
    table === 'daily'
      ? sql`select vault_key || '|' || day || '|' || destination as k, executed_count || '/' || executed_volume as v
            from daily_destination_metrics`
      : sql`select vault_key || '|L' || level || '|' || start_day || '|' || destination as k,
              executed_count || '/' || executed_volume as v from destination_block_metrics`,
  );
  return Object.fromEntries(rows.map((r) => [r.k, r.v]));
}

/**
 * Per destination `count/volume`, per vault and global: by day, or by every aligned block of 2^L days
 * (L = 1..10, counted from 1970-01-01) that holds the transfer.
 */
export function expectedDestinations(
  executed: { vaultId: string; destination: string; amount: bigint; at: Date }[],
  grain: 'day' | 'blocks',
): Record<string, string> {
  const sums = new Map<string, [number, bigint]>();
  const add = (id: string, amount: bigint) => {
    const [count, volume] = sums.get(id) ?? [0, 0n];
    sums.set(id, [count + 1, volume + amount]);
  };
  for (const t of executed) {
    for (const key of [t.vaultId, '*']) {
      if (grain === 'day') {
        add(`${key}|${t.at.toISOString().slice(0, 10)}|${t.destination}`, t.amount);
        continue;
      }
      const epochDay = Math.floor(t.at.getTime() / DAY);
      for (let level = 1; level <= 10; level++) {
        const start = (epochDay - (epochDay % 2 ** level)) * DAY;
        add(`${key}|L${level}|${new Date(start).toISOString().slice(0, 10)}|${t.destination}`, t.amount);
      }
    }
  }
  return Object.fromEntries([...sums].map(([k, [c, v]]) => [k, `${c}/${v}`]));
}
