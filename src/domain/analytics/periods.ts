// UTC calendar arithmetic for analytics: days as `YYYY-MM-DD` text, ISO weeks, months, date inputs.
import { type ValidationIssue, validationError } from '../../errors.js';

export const DAY_MS = 86_400_000;
export const GROUP_BY = ['day', 'week', 'month'] as const;
export type GroupBy = (typeof GROUP_BY)[number];

/** Longest range a request may ask for (docs/API.md, Analytics). */
export const MAX_RANGE_DAYS = 1096;
export const DEFAULT_RANGE_DAYS = 30;

/** The UTC day of an instant, `YYYY-MM-DD`. */
export function toDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** 00:00:00.000 UTC of a day, as epoch milliseconds. */
export function dayStartMs(day: string): number {
  return Date.parse(`${day}T00:00:00.000Z`);
}

export function addDays(day: string, days: number): string {
  return toDay(dayStartMs(day) + days * DAY_MS);
}

/** Every day from first to last, inclusive (empty when first is after last). */
export function listDays(first: string, last: string): string[] {
  const days: string[] = [];
  for (let ms = dayStartMs(first), end = dayStartMs(last); ms <= end; ms += DAY_MS) days.push(toDay(ms));
  return days;
}

/** ISO 8601 week label `YYYY-Www`: weeks start on Monday and belong to the year of their Thursday. */
export function isoWeekLabel(day: string): string {
  const date = new Date(dayStartMs(day));
  const weekday = (date.getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  const thursday = new Date(date.getTime() + (3 - weekday) * DAY_MS);
  const year = thursday.getUTCFullYear();
  const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * DAY_MS)) + 1;
  return `${year}-W${String(week).padStart(2, '0')}`;
}

/** The label of the bucket a day falls in. */
export function periodLabel(day: string, groupBy: GroupBy): string {
  if (groupBy === 'day') return day;
  if (groupBy === 'month') return day.slice(0, 7);
  return isoWeekLabel(day);
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?$/i;

export type ParsedDate = { kind: 'day'; day: string } | { kind: 'instant'; ms: number };

/**
 * `YYYY-MM-DD` (a UTC day) or an ISO 8601 date-time (UTC when it names no offset); null when it is
 * neither or names an impossible date or time.
 */
export function parseDateInput(value: string): ParsedDate | null {
  const dateOnly = DATE_ONLY.exec(value);
  if (dateOnly) {
    const [, y, m, d] = dateOnly.map(Number) as [number, number, number, number];
    return isCalendarDate(y, m, d) ? { kind: 'day', day: value } : null;
  }
  const match = DATE_TIME.exec(value);
  if (!match) return null;
  const [y, mo, d, h, mi, s] = match.slice(1, 7).map((part) => Number(part ?? 0)) as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (!isCalendarDate(y, mo, d) || h > 23 || mi > 59 || s > 59) return null;
  const millis = Number((match[7] ?? '').padEnd(3, '0').slice(0, 3));
  const zone = match[8]?.toUpperCase() ?? 'Z';
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const zh = Number(zone.slice(1, 3));
    const zm = Number(zone.slice(4, 6));
    if (zh > 23 || zm > 59) return null;
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (zh * 60 + zm);
  }
  return { kind: 'instant', ms: Date.UTC(y, mo - 1, d, h, mi, s, millis) - offsetMinutes * 60_000 };
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  if (year < 1970 || month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Instants a range may touch: from the Unix epoch to the end of 9999-12-30 UTC, so that the exclusive
 * end (the next day's start, 9999-12-31) is still a four-digit-year date every backend stores.
 */
export const EARLIEST_MS = 0;
export const LATEST_MS = Date.UTC(9999, 11, 31) - 1;
const BOUNDS_MESSAGE = 'must lie between 1970-01-01T00:00:00.000Z and 9999-12-30T23:59:59.999Z';

/** An inclusive range of instants, millisecond precision. */
export interface TimeRange {
  readonly startMs: number;
  readonly endMs: number;
}

/**
 * The range a request asks for: a day starts at 00:00:00.000 and ends at 23:59:59.999; a missing end is
 * now, a missing start is 30 days before the end. Throws VALIDATION_ERROR for bad or inverted input.
 */
export function parseAnalyticsRange(
  input: { startDate?: string | undefined; endDate?: string | undefined },
  nowMs: number,
): TimeRange {
  const issues: ValidationIssue[] = [];
  const read = (name: 'startDate' | 'endDate', edge: 'start' | 'end'): number | undefined => {
    const raw = input[name];
    if (raw === undefined) return undefined;
    const parsed = parseDateInput(raw);
    if (parsed === null) {
      issues.push({ path: `query.${name}`, message: 'must be YYYY-MM-DD or an ISO 8601 timestamp' });
      return undefined;
    }
    const ms =
      parsed.kind === 'instant'
        ? parsed.ms
        : edge === 'start'
          ? dayStartMs(parsed.day)
          : dayStartMs(parsed.day) + DAY_MS - 1;
    if (ms < EARLIEST_MS || ms > LATEST_MS) {
      issues.push({ path: `query.${name}`, message: BOUNDS_MESSAGE });
      return undefined;
    }
    return ms;
  };
  const start = read('startDate', 'start');
  const end = read('endDate', 'end');
  if (issues.length > 0) throw validationError(issues);
  const endMs = end ?? nowMs;
  const startMs = start ?? Math.max(EARLIEST_MS, endMs - DEFAULT_RANGE_DAYS * DAY_MS);
  if (startMs > endMs) {
    throw validationError([{ path: 'query.startDate', message: 'must not be after endDate' }]);
  }
  if (endMs - startMs > MAX_RANGE_DAYS * DAY_MS) {
    throw validationError([
      { path: 'query.endDate', message: `the range must not exceed ${MAX_RANGE_DAYS} days` },
    ]);
  }
  return { startMs, endMs };
}
