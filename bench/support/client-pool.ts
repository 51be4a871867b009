// Client addresses for benchmarks that run the service as users do: rate limits on, TRUST_PROXY=1 (one
// proxy hop), each request naming its client in X-Forwarded-For. A pool is sized so that no address
// spends more than its budget (docs/API.md, Rate limits) however fast the phase goes, up to the ceiling the
// bench states; a 429 is then a finding, never the bench's own doing.
import { RATE_LIMIT_WINDOW_MS, RATE_LIMITS } from '../../src/http/plugins/rate-limit.js';

export type Budget = Exclude<keyof typeof RATE_LIMITS, 'overall'>;

/** The most requests one pool serves: a count, or a rate ceiling through a number of seconds. */
export type PoolLoad = { requests: number } | { rate: number; seconds: number };

/** Addresses handed out so far in this run: each pool starts past them, so no two phases share a budget. */
let allocated = 0;

export interface ClientPool {
  /** Addresses in the pool. */
  readonly size: number;
  /** The next request's client address (round robin). */
  next(): string;
}

/**
 * A fresh pool of IPv4 addresses for one phase. Round robin brings an address back every `size`
 * requests, so a window holds at most ceil(requests in a window / size) of its requests: `size` is the
 * most requests one window can see (a rate ceiling times the window or the phase, whichever is shorter)
 * divided by the budget every request spends (its category's, itself within the overall one).
 */
export function clientPool(budget: Budget, load: PoolLoad): ClientPool {
  const perWindow =
    'requests' in load ? load.requests : load.rate * Math.min(load.seconds, RATE_LIMIT_WINDOW_MS / 1000);
  const spendable = Math.min(RATE_LIMITS[budget], RATE_LIMITS.overall);
  const size = Math.max(1, Math.ceil(perWindow / spendable));
  const first = allocated;
  allocated += size;
  let turn = 0;
  return {
    size,
    next() {
      const i = first + (turn++ % size);
      return `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    },
  };
}

/** Header sets: the client's address, beside any others. */
export function fromClient(pool: ClientPool, headers: Record<string, string> = {}): Record<string, string> {
  return { ...headers, 'x-forwarded-for': pool.next() };
}
