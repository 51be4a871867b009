import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type DayBlock, getBlockEnd, getBlockStart, splitIntoBlocks } from './day-blocks.js';
import { DAY_MS, dayStartMs, listDays, toDay } from './periods.js';
import { buildReadPlan } from './read-plan.js';

const TODAY = '2027-01-05';
const BASE = dayStartMs('2026-10-01');
const daysOf = (blocks: readonly DayBlock[]) => blocks.flatMap((b) => listDays(b.start, getBlockEnd(b)));

describe('day blocks', () => {
  it('align blocks of 2^level days on the epoch', () => {
    assert.equal(getBlockStart('1970-01-01', 10), '1970-01-01');
    assert.equal(getBlockStart('1970-01-02', 1), '1970-01-01');
    assert.equal(
      getBlockStart('2026-12-31', 3),
      toDay(Math.floor(dayStartMs('2026-12-31') / DAY_MS / 8) * 8 * DAY_MS),
    );
    assert.equal(getBlockEnd({ level: 2, start: '1970-01-05' }), '1970-01-08');
  });

  it('cover any span exactly with at most two blocks per level', () => {
    const day = fc.integer({ min: 0, max: 25_000 });
    fc.assert(
      fc.property(day, fc.integer({ min: 0, max: 1_200 }), (first, length) => {
        const [from, to] = [toDay(first * DAY_MS), toDay((first + length) * DAY_MS)];
        const blocks = splitIntoBlocks(from, to);
        const aligned = blocks.every((b) => getBlockStart(b.start, b.level) === b.start);
        const perLevel = new Map<number, number>();
        for (const b of blocks) perLevel.set(b.level, (perLevel.get(b.level) ?? 0) + 1);
        return (
          aligned &&
          [...perLevel.values()].every((n) => n <= 2) &&
          JSON.stringify(daysOf(blocks)) === JSON.stringify(listDays(from, to))
        );
      }),
    );
  });
});

describe('buildReadPlan', () => {
  it('reads whole past days from the rollup and the partial edges, today and dirty days live', () => {
    const plan = buildReadPlan(
      { startMs: Date.parse('2026-11-20T13:00:00.000Z'), endMs: Date.parse('2027-01-05T09:00:00.000Z') },
      TODAY,
      ['2026-12-10', '2026-12-11', '2025-01-01'],
    );
    assert.deepEqual(plan.stored, { from: '2026-11-21', to: '2027-01-04' });
    assert.deepEqual(plan.dirtyDays, ['2026-12-10', '2026-12-11']);
    assert.deepEqual(plan.live, [
      { startMs: Date.parse('2026-11-20T13:00:00.000Z'), endMs: dayStartMs('2026-11-21') },
      { startMs: dayStartMs('2026-12-10'), endMs: dayStartMs('2026-12-12') },
      { startMs: dayStartMs('2027-01-05'), endMs: Date.parse('2027-01-05T09:00:00.001Z') },
    ]);
    assert.deepEqual(daysOf(plan.destinationBlocks), [
      ...listDays('2026-11-21', '2026-12-09'),
      ...listDays('2026-12-12', '2027-01-04'),
    ]);
  });

  it('reads a year of clean days as a few blocks', () => {
    const plan = buildReadPlan(
      { startMs: dayStartMs('2025-11-23'), endMs: dayStartMs('2026-11-23') - 1 },
      '2026-11-23',
      [],
    );
    assert.deepEqual(plan.live, []);
    assert.ok(plan.destinationBlocks.length <= 16, `${plan.destinationBlocks.length} blocks`);
  });

  it('reads a range within one day, or in the future, entirely live', () => {
    const range = {
      startMs: Date.parse('2026-12-01T01:00:00.000Z'),
      endMs: Date.parse('2026-12-01T02:00:00.000Z'),
    };
    assert.deepEqual(buildReadPlan(range, TODAY, []).live, [
      { startMs: range.startMs, endMs: range.endMs + 1 },
    ]);
    assert.equal(
      buildReadPlan({ startMs: dayStartMs('2027-02-01'), endMs: dayStartMs('2027-03-01') }, TODAY, []).stored,
      null,
    );
  });

  it('covers every instant of any range exactly once, and every clean stored day with one destination block', () => {
    const instant = fc.integer({ min: 0, max: 120 * DAY_MS });
    fc.assert(
      fc.property(
        instant,
        instant,
        fc.uniqueArray(fc.integer({ min: 0, max: 120 }), { maxLength: 12 }),
        (a, b, dirtyOffsets) => {
          const range = { startMs: BASE + Math.min(a, b), endMs: BASE + Math.max(a, b) };
          const plan = buildReadPlan(
            range,
            TODAY,
            dirtyOffsets.map((n) => toDay(BASE + n * DAY_MS)),
          );
          // Pieces: live intervals plus clean stored days, sorted, must tile [start, end + 1).
          const clean =
            plan.stored === null
              ? []
              : listDays(plan.stored.from, plan.stored.to).filter((d) => !plan.dirtyDays.includes(d));
          const pieces = [
            ...plan.live.map((i) => [i.startMs, i.endMs] as const),
            ...clean.map((d) => [dayStartMs(d), dayStartMs(d) + DAY_MS] as const),
          ].sort((x, y) => x[0] - y[0]);
          let cursor = range.startMs;
          for (const [from, to] of pieces) {
            if (from !== cursor || to <= from) return false;
            cursor = to;
          }
          if (cursor !== range.endMs + 1) return false;
          if (plan.stored !== null && plan.stored.to >= TODAY) return false;
          return JSON.stringify(daysOf(plan.destinationBlocks)) === JSON.stringify(clean);
        },
      ),
      { numRuns: 500 },
    );
  });
});
