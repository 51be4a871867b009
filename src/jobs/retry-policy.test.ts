import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type AttemptResult,
  applyRetryAfter,
  decideAfterAttempt,
  FAILING_REASON,
  GONE_REASON,
  MAX_FAILING_MS,
  nextSubscriptionHealth,
  parseRetryAfterMs,
  retryDelayMs,
} from './retry-policy.js';

const schedule = [5, 300, 1800];
const at = new Date('2026-11-22T00:00:00.000Z');
const failed = (statusCode: number | null, retryAfter: string | null = null): AttemptResult => ({
  ok: false,
  statusCode,
  error: statusCode === null ? 'ECONNREFUSED' : null,
  retryAfter,
});
const success: AttemptResult = { ok: true, statusCode: 200, error: null, retryAfter: null };

describe('retryDelayMs', () => {
  it('uses the schedule entry of the failed attempt', () => {
    assert.equal(
      retryDelayMs(schedule, 1, () => 0.5),
      5_000,
    );
    assert.equal(
      retryDelayMs(schedule, 2, () => 0.5),
      300_000,
    );
    assert.equal(
      retryDelayMs(schedule, 3, () => 0.5),
      1_800_000,
    );
  });

  it('varies by at most 20 % either way', () => {
    assert.equal(
      retryDelayMs(schedule, 1, () => 0),
      4_000,
    );
    assert.equal(
      retryDelayMs(schedule, 1, () => 0.999_999),
      6_000,
    );
  });

  it('returns null once every scheduled retry is spent', () => {
    assert.equal(
      retryDelayMs(schedule, 4, () => 0.5),
      null,
    );
    assert.equal(
      retryDelayMs([], 1, () => 0.5),
      null,
    );
  });
});

describe('Retry-After', () => {
  it('reads delta seconds and HTTP dates', () => {
    assert.equal(parseRetryAfterMs('120', at), 120_000);
    assert.equal(parseRetryAfterMs('Sun, 22 Nov 2026 00:01:00 GMT', at), 60_000);
    assert.equal(parseRetryAfterMs('Sat, 21 Nov 2026 00:00:00 GMT', at), 0);
  });

  it('ignores absent or unreadable values', () => {
    assert.equal(parseRetryAfterMs(null, at), null);
    assert.equal(parseRetryAfterMs('soon', at), null);
    assert.equal(parseRetryAfterMs('-5', at), null);
    assert.equal(parseRetryAfterMs('1.5', at), null);
  });

  it('is clamped within [delay, 2 × delay]', () => {
    assert.equal(applyRetryAfter(10_000, null), 10_000);
    assert.equal(applyRetryAfter(10_000, 1_000), 10_000);
    assert.equal(applyRetryAfter(10_000, 15_000), 15_000);
    assert.equal(applyRetryAfter(10_000, 3_600_000), 20_000);
  });
});

describe('decideAfterAttempt', () => {
  const decide = (attempt: number, result: AttemptResult) =>
    decideAfterAttempt({ attempt, result, scheduleSeconds: schedule, finishedAt: at, random: () => 0.5 });

  it('marks a 2xx delivered', () => {
    assert.deepEqual(decide(1, success), { status: 'succeeded' });
  });

  it('schedules the next attempt after a failure', () => {
    assert.deepEqual(decide(1, failed(500)), {
      status: 'pending',
      nextAttemptAt: new Date(at.getTime() + 5_000),
    });
    assert.deepEqual(decide(2, failed(null)), {
      status: 'pending',
      nextAttemptAt: new Date(at.getTime() + 300_000),
    });
  });

  it('honours Retry-After within the clamp', () => {
    assert.deepEqual(decide(1, failed(429, '8')), {
      status: 'pending',
      nextAttemptAt: new Date(at.getTime() + 8_000),
    });
    assert.deepEqual(decide(1, failed(503, '86400')), {
      status: 'pending',
      nextAttemptAt: new Date(at.getTime() + 10_000),
    });
  });

  it('waits out a chat platform’s 429 in full, and never less than the schedule', () => {
    const limited = (platformWaitMs: number) => ({ ...failed(429, '1'), platformWaitMs });
    assert.deepEqual(decide(1, limited(60_000)), {
      status: 'pending',
      nextAttemptAt: new Date(at.getTime() + 60_000),
    });
    assert.deepEqual(decide(1, limited(1_500)), {
      status: 'pending',
      nextAttemptAt: new Date(at.getTime() + 5_000),
    });
    assert.deepEqual(decide(4, limited(1_500)), { status: 'failed', reason: 'exhausted' });
  });

  it('fails the delivery when the schedule is exhausted', () => {
    assert.deepEqual(decide(4, failed(500)), { status: 'failed', reason: 'exhausted' });
  });

  it('fails at once on 410 Gone', () => {
    assert.deepEqual(decide(1, failed(410)), { status: 'failed', reason: 'gone' });
  });

  it('treats a redirect as a failure (redirects are not followed)', () => {
    assert.equal(decide(1, failed(302)).status, 'pending');
  });
});

describe('nextSubscriptionHealth', () => {
  const minutesAfter = (m: number) => new Date(at.getTime() + m * 60_000);

  it('starts a failure run at the first failed attempt and keeps its start', () => {
    const first = nextSubscriptionHealth(
      null,
      [{ startedAt: minutesAfter(1), result: failed(500) }],
      minutesAfter(2),
    );
    assert.deepEqual(first, { failingSince: minutesAfter(1), disable: null });
    const later = nextSubscriptionHealth(
      minutesAfter(1),
      [{ startedAt: minutesAfter(9), result: failed(500) }],
      minutesAfter(10),
    );
    assert.deepEqual(later, { failingSince: minutesAfter(1), disable: null });
  });

  it('ends the run on a success, in attempt order', () => {
    const health = nextSubscriptionHealth(
      minutesAfter(1),
      [
        { startedAt: minutesAfter(5), result: failed(500) },
        { startedAt: minutesAfter(3), result: success },
      ],
      minutesAfter(6),
    );
    assert.deepEqual(health, { failingSince: minutesAfter(5), disable: null });
  });

  it('disables after five days of continuous failure, not before', () => {
    const since = at;
    const almost = new Date(at.getTime() + MAX_FAILING_MS - 1);
    const over = new Date(at.getTime() + MAX_FAILING_MS);
    assert.equal(
      nextSubscriptionHealth(since, [{ startedAt: almost, result: failed(500) }], almost).disable,
      null,
    );
    assert.equal(
      nextSubscriptionHealth(since, [{ startedAt: over, result: failed(500) }], over).disable,
      FAILING_REASON,
    );
  });

  it('disables on 410 Gone', () => {
    const health = nextSubscriptionHealth(null, [{ startedAt: at, result: failed(410) }], at);
    assert.equal(health.disable, GONE_REASON);
  });
});
