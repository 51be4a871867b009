// Aligned blocks of 2^level UTC days, the grain at which destination figures are summed (pure).
import { DAY_MS, dayStartMs, toDay } from './periods.js';

/** Largest block: 2^10 = 1024 days, enough for the longest range (1 096 days) to need few blocks. */
export const MAX_BLOCK_LEVEL = 10;

export interface DayBlock {
  /** 0 = a single day (read from the day rows), k = 2^k days. */
  readonly level: number;
  /** First day of the block, `YYYY-MM-DD`. */
  readonly start: string;
}

const dayNumber = (day: string) => Math.round(dayStartMs(day) / DAY_MS);
const fromDayNumber = (n: number) => toDay(n * DAY_MS);

/** First day of the level-`level` block holding `day`. */
export function getBlockStart(day: string, level: number): string {
  const size = 2 ** level;
  return fromDayNumber(Math.floor(dayNumber(day) / size) * size);
}

/** Last day of a block. */
export function getBlockEnd(block: DayBlock): string {
  return fromDayNumber(dayNumber(block.start) + 2 ** block.level - 1);
}

/** The fewest aligned blocks that cover the days from first to last exactly, in order. */
export function splitIntoBlocks(first: string, last: string): DayBlock[] {
  const blocks: DayBlock[] = [];
  let n = dayNumber(first);
  const end = dayNumber(last);
  while (n <= end) {
    let level = 0;
    while (level < MAX_BLOCK_LEVEL && n % 2 ** (level + 1) === 0 && n + 2 ** (level + 1) - 1 <= end)
      level += 1;
    blocks.push({ level, start: fromDayNumber(n) });
    n += 2 ** level;
  }
  return blocks;
}
