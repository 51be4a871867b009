/**
 * Request latencies and 5xx counts over a sliding window, in fixed time slots so memory stays
 * bounded: each slot keeps at most `samplesPerSlot` latencies (a uniform reservoir).
 */
export interface RollingWindow {
  record(durationMs: number, isServerError: boolean): void;
  snapshot(): { p50: number; p95: number; p99: number; errorRate: number; count: number };
}

export function createRollingWindow(
  options: { windowMs?: number; slots?: number; samplesPerSlot?: number; now?: () => number } = {},
): RollingWindow {
  const windowMs = options.windowMs ?? 5 * 60_000;
  const slotCount = options.slots ?? 30;
  const slotMs = windowMs / slotCount;
  const cap = options.samplesPerSlot ?? 500;
  const now = options.now ?? Date.now;
  const slots = Array.from({ length: slotCount }, () => ({
    start: -1,
    seen: 0,
    errors: 0,
    samples: [] as number[],
  }));

  const slotFor = (time: number) => {
    const start = Math.floor(time / slotMs) * slotMs;
    const slot = slots[Math.floor(start / slotMs) % slotCount]!;
    if (slot.start !== start) {
      slot.start = start;
      slot.seen = 0;
      slot.errors = 0;
      slot.samples = [];
    }
    return slot;
  };

  return {
    record(durationMs, isServerError) {
      const slot = slotFor(now());
      slot.seen += 1;
      if (isServerError) slot.errors += 1;
      if (slot.samples.length < cap) slot.samples.push(durationMs);
      else {
        const index = Math.floor(Math.random() * slot.seen);
        if (index < cap) slot.samples[index] = durationMs;
      }
    },
    snapshot() {
      const oldest = now() - windowMs;
      const live = slots.filter((s) => s.start >= 0 && s.start + slotMs > oldest);
      const samples = live.flatMap((s) => s.samples).sort((a, b) => a - b);
      const count = live.reduce((n, s) => n + s.seen, 0);
      const errors = live.reduce((n, s) => n + s.errors, 0);
      const pick = (q: number) =>
        samples.length === 0
          ? 0
          : round(samples[Math.min(samples.length - 1, Math.ceil(q * samples.length) - 1)]!);
      return {
        p50: pick(0.5),
        p95: pick(0.95),
        p99: pick(0.99),
        errorRate: count === 0 ? 0 : errors / count,
        count,
      };
    },
  };
}

const round = (value: number) => Math.round(value * 100) / 100;
