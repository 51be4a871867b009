// The live feed of ingested events: one poller per process reads new chain_events rows and fans
// them out to subscribers, so it works whichever process ingested them (and on PGlite).
import type { FeedEvent } from '@vaultkeeper/client';
import { sql } from 'drizzle-orm';
import type { Storage } from '../../storage/database.js';
import { toAlertFeedName, toFeedEventName } from './feed-event-names.js';

// The event as the stream sends it is a wire format the client package defines.
export type { FeedEvent };

type Listener = (event: FeedEvent) => void;

interface EventRow {
  id: number | string;
  /** True for an alert (alert_events), false for a program event (chain_events). */
  alert: boolean;
  name: string;
  vault_address: string | null;
  signature: string | null;
  event_index: number;
  slot: number | string | null;
  block_time: Date | string | null;
  instruction: string | null;
  data: unknown;
}

const PAGE = 500;

/** Program events and alerts share one id sequence: the feed reads both as one ordered log. */
const FEED_ROWS = sql`(
  select id, false as alert, name, vault_address, signature, event_index, slot, block_time, instruction, data
  from chain_events
  union all
  select id, true, name, vault_address, signature, 0, slot, at, null, data from alert_events) as f`;

const toFeedEvent = (row: EventRow): FeedEvent => ({
  id: Number(row.id),
  name: row.alert ? toAlertFeedName(row.name) : toFeedEventName(row.name),
  programEvent: row.alert ? null : row.name,
  vault: row.vault_address,
  signature: row.signature,
  eventIndex: row.event_index,
  slot: row.slot === null ? null : Number(row.slot),
  blockTime: row.block_time === null ? null : new Date(row.block_time).toISOString(),
  instruction: row.instruction,
  data: row.data,
});

export interface LiveFeedDeps {
  readonly storage: Storage;
  readonly pollIntervalMs?: number;
}

/**
 * Advisory lock key every transaction that stores chain_events takes, shared, before it draws their ids
 * (below 2^31: pg_locks shows it as classid 0, objid key). Shared holders never wait for each other.
 */
export const FEED_WRITE_LOCK_KEY = 7_267_020;

/** Takes the feed's write lock for the rest of the transaction: call before inserting chain_events. */
export const takeFeedWriteLock = () => sql`select pg_advisory_xact_lock_shared(${FEED_WRITE_LOCK_KEY})`;

/** The transactions (virtual ids, comma-separated; null: none) holding the write lock, in this database. */
interface WritersRow {
  writers: string | null;
}

/** The highest id one read saw, and the transactions that held the write lock just after it. */
interface Barrier {
  upTo: number;
  writers: string[];
}

/** Barriers kept while a long transaction holds delivery back (merging two only delays the older one). */
const MAX_BARRIERS = 32;

/** Reads one poll makes at most. */
const MAX_READS_PER_POLL = 8;

/** The first boundary while it settles (from the first read), and the subscribers waiting for it. */
interface Start {
  boundary: number;
  writers: string[] | null;
  waiters: { resolve: (boundary: number) => void; reject: (error: unknown) => void }[];
}

// pg_locks is read as the statement runs, so after the statement's snapshot (the rows it returns).
const WRITERS = sql`(select string_agg(virtualtransaction, ',') from pg_locks
  where locktype = 'advisory' and classid = 0 and objid = ${FEED_WRITE_LOCK_KEY} and objsubid = 1
    and database = (select oid from pg_database where datname = current_database())) as writers`;

const writersOf = (row: WritersRow): string[] => (row.writers === null ? [] : row.writers.split(','));

/*
 * Why the poller never skips an event, though chain_events.id comes from a sequence and two
 * transactions can commit their ids out of order (the ingestor beside a `vaultkeeper backfill`):
 *
 * Every transaction that stores events takes the write lock (shared) before it draws their ids and
 * holds it until it ends (docs/API.md, Live feed). A read returns rows, then lists the lock's
 * holders W as the statement runs (so after its snapshot). Say it saw row k. A transaction T that
 * will still commit an id j < k drew j before k was drawn, so before the read's snapshot, and held
 * the lock from before then: at the listing T either held it (T in W) or had already ended. So once
 * a later listing shows none of W, every T has ended, and any read after that listing sees every id
 * up to k that will ever exist: k is "settled" for that read. Each read delivers, in id order, only
 * rows up to what the previous read's listing settled; `lastId` (every id up to it delivered, older
 * than the run, or never to come) never passes an id still in flight. The first read's max(id) is
 * settled the same way before any subscriber gets it as its boundary (the backlog is read after).
 * With no holder listed (always so on PGlite: one connection, and a query waits for a transaction
 * to end) the next read, made at once, delivers; otherwise delivery waits for a poll after those
 * transactions end. Nothing is lost, only delayed while a transaction storing events stays open.
 */
type PageRow = (EventRow | { id: null }) & WritersRow;

/** The newest id, then the write lock's holders. */
async function readNewest(storage: Storage): Promise<WritersRow & { id: number | string | null }> {
  const [row] = await storage.rows<WritersRow & { id: number | string | null }>(
    sql`select greatest((select max(id) from chain_events), (select max(id) from alert_events)) as id, ${WRITERS}`,
  );
  if (row === undefined) throw new Error('no row');
  return row;
}

/** A page of events after `afterId`, then the write lock's holders (a row with a null id: no event). */
async function readPage(storage: Storage, afterId: number): Promise<PageRow[]> {
  return storage.rows<PageRow>(sql`
    select e.*, ${WRITERS}
    from (select 1) as one left join lateral (
      select * from ${FEED_ROWS} where id > ${afterId} order by id limit ${PAGE}) as e on true
    order by e.id`);
}

/** The highest id settled for a read after `holding` was listed; drops the barriers it settles. */
function settle(barriers: Barrier[], holding: readonly string[]): number | null {
  const settled = barriers.findLastIndex((b) => !b.writers.some((w) => holding.includes(w)));
  if (settled < 0) return null;
  return barriers.splice(0, settled + 1).at(-1)!.upTo;
}

function addBarrier(barriers: Barrier[], barrier: Barrier): void {
  const last = barriers.at(-1);
  if (last !== undefined && last.upTo >= barrier.upTo) return;
  if (barriers.length >= MAX_BARRIERS) barriers.pop();
  barriers.push(barrier);
}

/**
 * One run of the poller, from its first subscriber until the last one leaves. A poll still in flight
 * when the run ends finishes on its own state and reaches no later subscriber.
 */
function createRun(storage: Storage) {
  const listeners = new Set<Listener>();
  /** Every id up to it is delivered, or was stored before the run began, or will never appear. */
  let lastId: number | null = null;
  /** Barriers not yet settled, oldest first (upTo increases along the list). */
  const barriers: Barrier[] = [];
  /** The first boundary until it settles (then null). */
  let start: Start | null = { boundary: 0, writers: null, waiters: [] };
  /** The write lock's holders as the previous read listed them (after its rows, before the next read's). */
  let holders: string[] | null = null;
  /** Every id up to it is settled: a read from now on sees each of them that will ever be stored. */
  let settledUpTo = 0;
  let polling = false;

  /** The first read fixes the boundary; its waiters get it once it is settled. True when started. */
  async function begin(waiting: Start): Promise<boolean> {
    const row = await readNewest(storage);
    const holding = writersOf(row);
    if (lastId === null) {
      lastId = Number(row.id ?? 0);
      waiting.boundary = lastId;
      waiting.writers = holding;
    }
    if (waiting.writers?.some((w) => holding.includes(w))) return false;
    holders = holding;
    start = null;
    for (const waiter of waiting.waiters) waiter.resolve(waiting.boundary);
    return true;
  }

  /**
   * Reads one page after `lastId` and delivers the rows the previous read's holders settle (read before
   * this read's rows); true when another read now could deliver more (a whole page went out, or no
   * transaction held the lock just after this read, which settles its rows for the next one).
   */
  async function deliverPage(after: number): Promise<boolean> {
    if (holders !== null) settledUpTo = Math.max(settledUpTo, settle(barriers, holders) ?? 0);
    const rows = await readPage(storage, after);
    const found = rows.filter((row): row is EventRow & WritersRow => row.id !== null);
    const holding = rows[0] === undefined ? [] : writersOf(rows[0]);
    let delivered = 0;
    for (const row of found) {
      if (Number(row.id) > settledUpTo) break;
      const event = toFeedEvent(row);
      // lastId and the fan-out move together, so a subscriber joining between two events is exact.
      lastId = event.id;
      delivered += 1;
      for (const listener of listeners) listener(event);
    }
    const seen = found.at(-1);
    if (seen !== undefined) addBarrier(barriers, { upTo: Number(seen.id), writers: holding });
    holders = holding;
    return delivered === PAGE || (holding.length === 0 && delivered < found.length);
  }

  return {
    listeners,
    async poll(): Promise<void> {
      if (polling) return;
      polling = true;
      try {
        if (start !== null && !(await begin(start))) return;
        // A few reads at most per tick, so a steady stream of inserts cannot keep the loop spinning.
        for (let round = 0; round < MAX_READS_PER_POLL && lastId !== null; round += 1) {
          if (!(await deliverPage(lastId))) break;
        }
      } catch (error) {
        // The database is away: the next tick tries again from the same id. Subscribers waiting for a
        // first boundary are told now (their request fails, as a failed query would fail it).
        if (start !== null && lastId === null) {
          const { waiters } = start;
          start = { boundary: 0, writers: null, waiters: [] };
          for (const waiter of waiters) waiter.reject(error);
        }
      } finally {
        polling = false;
      }
    },
    /** Adds `listener`; resolves with its boundary (see LiveFeed.subscribe). */
    join(listener: Listener): Promise<number> {
      listeners.add(listener);
      if (start === null) return Promise.resolve(lastId ?? 0);
      const waiting = start;
      return new Promise((resolve, reject) => waiting.waiters.push({ resolve, reject }));
    },
    end(): void {
      listeners.clear();
      for (const waiter of start?.waiters ?? []) waiter.resolve(lastId ?? 0);
      start = null;
    },
  };
}

export function createLiveFeed(deps: LiveFeedDeps) {
  const interval = deps.pollIntervalMs ?? 250;
  let run: ReturnType<typeof createRun> | null = null;
  let timer: NodeJS.Timeout | null = null;

  function stop(): void {
    if (timer !== null) clearInterval(timer);
    timer = null;
    run?.end();
    run = null;
  }

  return {
    /** Events in (`afterId`, `upTo`] (for Last-Event-ID resumption), oldest first, at most `limit`. */
    async listSince(
      afterId: number,
      vault: string | null,
      upTo = Number.MAX_SAFE_INTEGER,
      limit = 1_000,
    ): Promise<FeedEvent[]> {
      const rows = await deps.storage.rows<EventRow>(sql`
        select * from ${FEED_ROWS}
        where id > ${afterId} and id <= ${upTo} and (${vault}::text is null or vault_address = ${vault})
        order by id limit ${limit}`);
      return rows.map(toFeedEvent);
    },
    /**
     * Calls `listener` with every event delivered from now on, in id order, and resolves `boundary`
     * with L: every event the listener gets has an id above L, and every event with an id up to L is
     * already committed (or never will be), so a backlog read of (after, L] then misses nothing.
     * Concurrent first subscribers share one first read. `unsubscribe` ends it.
     */
    subscribe(listener: Listener): { boundary: Promise<number>; unsubscribe: () => void } {
      if (run === null) {
        const current = createRun(deps.storage);
        run = current;
        timer = setInterval(() => void current.poll(), interval);
        timer.unref();
      }
      const mine = run;
      const boundary = mine.join(listener);
      void mine.poll();
      const unsubscribe = () => {
        mine.listeners.delete(listener);
        if (mine.listeners.size === 0 && run === mine) stop();
      };
      return { boundary, unsubscribe };
    },
    /** Listeners subscribed now. */
    listenerCount: (): number => run?.listeners.size ?? 0,
    /** Stops polling (app shutdown). */
    close: stop,
  };
}

export type LiveFeed = ReturnType<typeof createLiveFeed>;
