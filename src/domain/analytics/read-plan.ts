// Which parts of an analytics range come from the rolled-up tables and which from live transactions.
import { type DayBlock, splitIntoBlocks } from './day-blocks.js';
import { addDays, DAY_MS, dayStartMs, type TimeRange, toDay } from './periods.js';

/** A half-open interval of instants [startMs, endMs). */
export interface LiveInterval {
  readonly startMs: number;
  readonly endMs: number;
}

export interface ReadPlan {
  /** Whole past days read from daily_metrics: [from, to] minus `dirtyDays`; null when none. */
  readonly stored: { readonly from: string; readonly to: string } | null;
  /** Days inside `stored` still marked dirty: read live. */
  readonly dirtyDays: readonly string[];
  /** Instants read from the transactions table (partial edge days, today, the future, dirty days). */
  readonly live: readonly LiveInterval[];
  /** Stored clean days as aligned blocks: destinations from the block rows (level 0: the day rows). */
  readonly destinationBlocks: readonly DayBlock[];
}

/**
 * Days wholly inside the range and before today can be read from the rollup; the caller then
 * passes which of them are dirty (`candidateDays`) to `buildReadPlan`.
 */
export function getStoredCandidateDays(range: TimeRange, today: string): { from: string; to: string } | null {
  const firstDay = toDay(range.startMs);
  const lastDay = toDay(range.endMs);
  const from = range.startMs === dayStartMs(firstDay) ? firstDay : addDays(firstDay, 1);
  const lastWhole = range.endMs === dayStartMs(lastDay) + DAY_MS - 1 ? lastDay : addDays(lastDay, -1);
  const yesterday = addDays(today, -1);
  // biome-ignore lint/complexity/useMathMinMax: days are YYYY-MM-DD text, compared as strings
  const to = lastWhole < yesterday ? lastWhole : yesterday;
  return from <= to ? { from, to } : null;
}

export function buildReadPlan(range: TimeRange, today: string, dirty: Iterable<string>): ReadPlan {
  const stored = getStoredCandidateDays(range, today);
  const endExclusive = range.endMs + 1;
  if (stored === null) {
    return {
      stored: null,
      dirtyDays: [],
      live: [{ startMs: range.startMs, endMs: endExclusive }],
      destinationBlocks: [],
    };
  }
  const dirtyDays = [...new Set(dirty)].filter((d) => d >= stored.from && d <= stored.to).sort();
  const live: LiveInterval[] = [];
  const push = (startMs: number, endMs: number) => {
    if (startMs >= endMs) return;
    const last = live.at(-1);
    if (last !== undefined && last.endMs === startMs)
      live[live.length - 1] = { startMs: last.startMs, endMs };
    else live.push({ startMs, endMs });
  };
  push(range.startMs, dayStartMs(stored.from));
  for (const day of dirtyDays) push(dayStartMs(day), dayStartMs(day) + DAY_MS);
  push(dayStartMs(stored.to) + DAY_MS, endExclusive);

  // Dirty days cut the stored days into clean stretches; each stretch is a few aligned blocks.
  const destinationBlocks: DayBlock[] = [];
  let stretchStart = stored.from;
  for (const day of [...dirtyDays, addDays(stored.to, 1)]) {
    if (stretchStart < day) destinationBlocks.push(...splitIntoBlocks(stretchStart, addDays(day, -1)));
    stretchStart = addDays(day, 1);
  }
  return { stored, dirtyDays, live, destinationBlocks };
}
