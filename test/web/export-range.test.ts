import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultExportRange, readExportRange } from '../../web/export-range.js';

test('the default range is this month so far, in UTC days', () => {
  assert.deepEqual(defaultExportRange(new Date('2026-11-29T23:30:00-05:00')), {
    from: '2026-11-01',
    to: '2026-11-30',
  });
});

test('a range is two days, the first not after the last', () => {
  assert.deepEqual(readExportRange('2026-11-01', '2026-11-01'), { from: '2026-11-01', to: '2026-11-01' });
  assert.equal(readExportRange('2026-11-02', '2026-11-01'), 'From must not be after To');
  assert.equal(readExportRange('', '2026-11-01'), 'From: a day as YYYY-MM-DD');
  assert.equal(readExportRange('2026-11-01', '2026-13-45'), 'To: a day as YYYY-MM-DD');
});
