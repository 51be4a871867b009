import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  describeBlockReason,
  explorerUrl,
  formatDateTime,
  formatDuration,
  formatTime,
  lamportsText,
  shortAddress,
  sol,
} from '../../web/format.js';

describe('owner page formatting', () => {
  test('SOL amounts are exact, grouped, and never pass through floating point', () => {
    assert.equal(sol('1500000000'), '1.5 SOL');
    assert.equal(sol('0'), '0 SOL');
    assert.equal(sol('1'), '0.000000001 SOL');
    assert.equal(sol('18446744073709551615'), '18,446,744,073.709551615 SOL');
    assert.equal(lamportsText('2000000000'), '2,000,000,000 lamports');
  });

  test('every time shown names its time zone', () => {
    // Node's default zone here is the machine's (UTC on CI); the page uses the reader's.
    const zone = new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' })
      .formatToParts(new Date('2026-11-22T10:05:00Z'))
      .find((p) => p.type === 'timeZoneName')!.value;
    assert.ok(formatDateTime('2026-11-22T10:05:00Z').endsWith(zone), formatDateTime('2026-11-22T10:05:00Z'));
    assert.ok(formatTime('2026-11-22T10:05:07Z').endsWith(zone), formatTime('2026-11-22T10:05:07Z'));
  });

  test('durations read as a person says them', () => {
    assert.equal(formatDuration(35_400), '35 s');
    assert.equal(formatDuration(42 * 60_000 + 10_000), '42 min');
    assert.equal(formatDuration(65 * 60_000), '1 h 5 min');
    assert.equal(formatDuration(2 * 3_600_000), '2 h');
    assert.equal(formatDuration(-5_000), '0 s');
  });

  test('block reasons, short addresses and explorer links', () => {
    assert.equal(describeBlockReason('exceeded_daily_limit'), 'Over the daily spending limit');
    assert.equal(describeBlockReason(null), 'Requested by the owner');
    assert.equal(shortAddress('7ahLfVoTVkWGczwHEDNC4yX8zV1bJy9tr1kaztMtsbT9'), '7ahL…sbT9');
    assert.equal(explorerUrl('abc', 'devnet'), 'https://explorer.solana.com/tx/abc?cluster=devnet');
    assert.equal(explorerUrl('abc', 'mainnet-beta'), 'https://explorer.solana.com/tx/abc');
    assert.equal(explorerUrl('abc', 'localnet'), null);
  });
});
