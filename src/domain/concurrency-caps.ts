// Concurrency caps that answer 429: a slot per request of capped work (event streams, the RPC work of
// anonymous approve calls, held approval waits), refused with RATE_LIMIT_EXCEEDED (or, for a cap
// that says so, SERVICE_UNAVAILABLE when the whole process is full), the cap it hit and when to retry.
import { AppError } from '../errors.js';
import {
  createConcurrencySlots,
  refusalLimit,
  type SlotHolder,
  type SlotLimits,
  type SlotRefusal,
} from '../lib/concurrency-slots.js';

export interface ConcurrencyCapOptions {
  /** What a refused caller is told to wait (Retry-After, seconds). */
  readonly retryAfterSeconds: number;
  /** What the slots hold, for the messages: `event streams open`. */
  readonly what: string;
  /** Hears of each refusal (a metric). */
  readonly onRefused?: (refusal: SlotRefusal) => void;
  /** The process being full is 503 SERVICE_UNAVAILABLE (no client's doing) instead of 429. */
  readonly fullIsUnavailable?: boolean;
}

/** The message of each refusal. */
function describeRefusals(what: string, limits: SlotLimits): Record<SlotRefusal, string> {
  const retry = 'retry after the time in Retry-After';
  return {
    client: `At most ${limits.perClient} ${what} at once per client address; ${retry}`,
    network: `At most ${limits.perNetwork} ${what} at once from one network (an IPv4 /24, an IPv6 /48); ${retry}`,
    reserve: `The last ${limits.reserve} slots for ${what} are kept for networks holding fewer than ${limits.perClient}; ${retry}`,
    total: `The service has as many ${what} at once as it allows; ${retry}`,
  };
}

export function createConcurrencyCap(limits: SlotLimits, options: ConcurrencyCapOptions) {
  const slots = createConcurrencySlots(limits);
  const messages = describeRefusals(options.what, limits);
  return {
    limits,
    /** Slots held now, all clients together. */
    open: slots.open,
    /** Takes a slot: its release function (safe to call twice); 429 RATE_LIMIT_EXCEEDED when a cap is full. */
    acquire(holder: SlotHolder): () => void {
      const slot = slots.acquire(holder);
      if (typeof slot === 'function') return slot;
      options.onRefused?.(slot);
      const unavailable = slot === 'total' && options.fullIsUnavailable === true;
      throw new AppError(unavailable ? 'SERVICE_UNAVAILABLE' : 'RATE_LIMIT_EXCEEDED', messages[slot], {
        limit: refusalLimit(limits, slot),
        retryAfter: options.retryAfterSeconds,
      });
    },
    /** Runs `work` holding a slot. */
    async run<T>(holder: SlotHolder, work: () => Promise<T>): Promise<T> {
      const release = this.acquire(holder);
      try {
        return await work();
      } finally {
        release();
      }
    },
  };
}

export type ConcurrencyCap = ReturnType<typeof createConcurrencyCap>;
