// The in-process counter store of the rate limits: fixed windows per client address, bounded in size.
// Also the shapes every counter store shares (rate-limit-redis-counters.ts is the other).

/** Client addresses the in-process counters remember at most; the stalest is forgotten first. */
const LOCAL_STORE_CLIENTS = 100_000;

/** Budget slots of one client's counters: its category's (0..2) and the overall one (3). */
export const BUDGETS = ['read', 'write', 'analytics', 'overall'] as const;
export const OVERALL = 3;

/**
 * What one request spent: [category count, category ms left, overall count, overall ms left]. The
 * in-process counters fill one shared array (requests are counted synchronously, one at a time).
 */
export type Spent = ArrayLike<number>;

/**
 * Both budgets of a request in one lookup: one map entry per client address holding every budget's
 * fixed window (start, count), or one Redis script call for the two counters.
 */
export interface CounterStore {
  /** Synchronous when the counters are in this process; a promise when they are shared (Redis). */
  spend(category: number, ip: string, timeWindow: number): Spent | Promise<Spent>;
}

/**
 * In-process fixed windows: per client, [start, count] for each of the four budgets.
 *
 * A client is forgotten two windows after its overall window began (a category window starts within
 * an overall one, so by then every window of it has ended), or, when maxClients are remembered, the
 * stalest first. Which client is stalest comes from a queue of overall-window starts, read from its
 * head: the Map is only ever looked up by key. (Walking a V8 Map from its front passes every entry
 * deleted there since the table was last rebuilt: with a steady stream of new addresses and the store
 * full, that walk made one request cost up to 180 µs.)
 */
export function createLocalCounters(maxClients = LOCAL_STORE_CLIENTS) {
  const clients = new Map<string, Float64Array>();
  /** Overall-window starts in time order: [address, start] pairs from `head` on. */
  let starts: (string | number)[] = [];
  let head = 0;
  const out = new Float64Array(4);
  /** Forgets the client of the queue's head entry if that entry is its current overall window. */
  const popStalest = (): void => {
    const ip = starts[head] as string;
    const start = starts[head + 1] as number;
    head += 2;
    if (clients.get(ip)?.[OVERALL * 2] === start) clients.delete(ip);
    if (head > 1_024 && head * 2 > starts.length) {
      starts = starts.slice(head);
      head = 0;
    }
  };
  const forgetEnded = (now: number, timeWindow: number) => {
    while (head < starts.length && (starts[head + 1] as number) + 2 * timeWindow <= now) popStalest();
  };
  const spendSlot = (windows: Float64Array, slot: number, now: number, timeWindow: number, at: number) => {
    const start = windows[slot * 2]!;
    if (windows[slot * 2 + 1] === 0 || start + timeWindow <= now) {
      windows[slot * 2] = now;
      windows[slot * 2 + 1] = 1;
      out[at] = 1;
      out[at + 1] = timeWindow;
      return;
    }
    const count = windows[slot * 2 + 1]! + 1;
    windows[slot * 2 + 1] = count;
    out[at] = count;
    out[at + 1] = timeWindow - (now - start);
  };
  return {
    /** Clients whose windows are remembered (at most maxClients). */
    size: () => clients.size,
    spend(category: number, ip: string, timeWindow: number): Spent {
      // Date.now, not a monotonic clock: tests move the window with mocked timers.
      const now = Date.now();
      forgetEnded(now, timeWindow);
      let windows = clients.get(ip);
      if (windows === undefined) {
        while (clients.size >= maxClients && head < starts.length) popStalest();
        windows = new Float64Array(BUDGETS.length * 2);
        clients.set(ip, windows);
      }
      const overallStart = windows[OVERALL * 2];
      spendSlot(windows, category, now, timeWindow, 0);
      spendSlot(windows, OVERALL, now, timeWindow, 2);
      // A new overall window (or a new client): queued under its start.
      if (windows[OVERALL * 2] !== overallStart || windows[OVERALL * 2 + 1] === 1) starts.push(ip, now);
      return out;
    },
  } satisfies CounterStore & { size(): number };
}
