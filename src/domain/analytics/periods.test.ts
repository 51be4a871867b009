import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { oracleIsoWeek } from '../../../test/support/analytics-oracle.js';
import { isoWeekLabel, parseAnalyticsRange, parseDateInput, periodLabel, toDay } from './periods.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-22T01:27:42.123Z');
const dayArb = fc.integer({ min: 0, max: 60_000 }).map((n) => toDay(n * DAY)); // 1970 .. 2134

describe('isoWeekLabel', () => {
  it('labels the ISO weeks around year ends, including 53-week years', () => {
    const cases: [string, string][] = [
      ['2026-12-28', '2026-W53'],
      ['2027-01-03', '2026-W53'],
      ['2027-01-04', '2027-W01'],
      ['2025-12-29', '2026-W01'],
      ['2021-01-03', '2020-W53'],
      ['2024-12-30', '2025-W01'],
      ['2028-01-01', '2027-W52'],
    ];
    for (const [day, week] of cases) assert.equal(isoWeekLabel(day), week, day);
  });

  it('agrees with a brute-force ISO week for any day', () => {
    fc.assert(
      fc.property(dayArb, (day) => isoWeekLabel(day) === oracleIsoWeek(Date.parse(`${day}T00:00:00Z`))),
    );
  });

  it('labels months and days as YYYY-MM and YYYY-MM-DD', () => {
    assert.equal(periodLabel('2027-01-31', 'month'), '2027-01');
    assert.equal(periodLabel('2027-01-31', 'day'), '2027-01-31');
  });
});

describe('parseDateInput', () => {
  it('reads a day, and timestamps with Z, an offset, or no zone (UTC)', () => {
    assert.deepEqual(parseDateInput('2024-02-29'), { kind: 'day', day: '2024-02-29' });
    assert.deepEqual(parseDateInput('2026-11-22T01:27:42.123Z'), { kind: 'instant', ms: NOW });
    assert.deepEqual(parseDateInput('2026-11-22T03:27:42.123+02:00'), { kind: 'instant', ms: NOW });
    assert.deepEqual(parseDateInput('2026-11-22T01:27:42.123456'), { kind: 'instant', ms: NOW });
    assert.deepEqual(parseDateInput('2026-11-22T01:27Z'), { kind: 'instant', ms: NOW - 42_123 });
  });

  it('refuses impossible dates and times and other text', () => {
    for (const bad of [
      '2026-02-29',
      '2026-13-01',
      '2026-00-10',
      '2026-11-31',
      '2026-11-22T24:00Z',
      '2026-11-22T10:60Z',
      '2026-11-22T10:00+25:00',
      '22/11/2026',
      '2026-11-22 10:00',
      '1969-12-31',
      'today',
      '',
    ]) {
      assert.equal(parseDateInput(bad), null, bad);
    }
  });

  it('reads back any instant it printed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799_999 }), (ms) => {
        const parsed = parseDateInput(new Date(ms).toISOString());
        return parsed?.kind === 'instant' && parsed.ms === ms;
      }),
    );
  });
});

describe('parseAnalyticsRange', () => {
  const codeOf = (fn: () => unknown) => {
    try {
      fn();
      return null;
    } catch (error) {
      return (error as { code: string }).code;
    }
  };

  it('spans whole days for day inputs and defaults to the 30 days ending now', () => {
    assert.deepEqual(parseAnalyticsRange({ startDate: '2026-12-28', endDate: '2027-01-04' }, NOW), {
      startMs: Date.parse('2026-12-28T00:00:00.000Z'),
      endMs: Date.parse('2027-01-04T23:59:59.999Z'),
    });
    assert.deepEqual(parseAnalyticsRange({}, NOW), { startMs: NOW - 30 * DAY, endMs: NOW });
    assert.deepEqual(parseAnalyticsRange({ endDate: '2026-01-31' }, NOW), {
      startMs: Date.parse('2026-01-31T23:59:59.999Z') - 30 * DAY,
      endMs: Date.parse('2026-01-31T23:59:59.999Z'),
    });
    assert.deepEqual(parseAnalyticsRange({ startDate: '2026-11-01' }, NOW), {
      startMs: Date.parse('2026-11-01T00:00:00.000Z'),
      endMs: NOW,
    });
  });

  it('accepts 1096 days and refuses longer, inverted or malformed ranges', () => {
    assert.equal(
      codeOf(() => parseAnalyticsRange({ startDate: '2024-01-01', endDate: '2026-12-31' }, NOW)),
      null,
    );
    for (const input of [
      { startDate: '2024-01-01', endDate: '2027-01-01' },
      { startDate: '2024-01-01T00:00:00.000Z', endDate: '2027-01-01T00:00:00.001Z' },
      { startDate: '2026-12-02', endDate: '2026-12-01' },
      { startDate: '2026-12-01T00:00:00.001Z', endDate: '2026-12-01T00:00:00.000Z' },
      { startDate: 'soon' },
    ]) {
      assert.equal(
        codeOf(() => parseAnalyticsRange(input, NOW)),
        'VALIDATION_ERROR',
        JSON.stringify(input),
      );
    }
  });

  it('bounds instants to 1970-01-01 … 9999-12-30 so the exclusive end stays a four-digit year', () => {
    const ok = { startDate: '9999-12-01', endDate: '9999-12-30T23:59:59.999Z' };
    assert.equal(
      codeOf(() => parseAnalyticsRange(ok, NOW)),
      null,
    );
    assert.deepEqual(parseAnalyticsRange({ endDate: '1970-01-05' }, NOW), {
      startMs: 0,
      endMs: Date.parse('1970-01-05T23:59:59.999Z'),
    });
    for (const input of [
      { endDate: '9999-12-31' },
      { startDate: '9999-12-31', endDate: '9999-12-31' },
      { endDate: '9999-12-30T23:59:59.999-00:01' },
      { startDate: '1970-01-01T00:00:00+00:01' },
    ]) {
      assert.equal(
        codeOf(() => parseAnalyticsRange(input, NOW)),
        'VALIDATION_ERROR',
        JSON.stringify(input),
      );
    }
  });
});
