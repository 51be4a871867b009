// The live feed of ingested events: one poller per process reads new chain_events rows and fans
// them out to subscribers, so it works whichever process ingested them (and on PGlite).
import { sql } from 'drizzle-orm';
import type { Storage } from '../../storage/database.js';

export interface FeedEvent {
  id: number;
  name: string;
  vault: string | null;
  signature: string;
  eventIndex: number;
  slot: number;
  blockTime: string | null;
  instruction: string | null;
  data: unknown;
}

type Listener = (event: FeedEvent) => void;

interface EventRow {
  id: number | string;
  name: string;
  vault_address: string | null;
  signature: string;
  event_index: number;
  slot: number | string;
  block_time: Date | string | null;
  instruction: string | null;
  data: unknown;
}

const PAGE = 500;

const toFeedEvent = (row: EventRow): FeedEvent => ({
  id: Number(row.id),
  name: row.name,
  vault: row.vault_address,
  signature: row.signature,
  eventIndex: row.event_index,
  slot: Number(row.slot),
  blockTime: row.block_time === null ? null : new Date(row.block_time).toISOString(),
  instruction: row.instruction,
  data: row.data,
});

export interface LiveFeedDeps {
  readonly storage: Storage;
  readonly pollIntervalMs?: number;
}

/** Snapshot bounds of one read (xid8 as decimal text): every xid below `xmin` has ended; `xmax` is the next. */
interface SnapshotRow {
  xmin: string;
  xmax: string;
}

/** The highest id one read saw, and that read's snapshot xmax. */
interface Barrier {
  upTo: number;
  xmax: bigint;
}

/** Barriers kept while a long transaction holds delivery back (merging two only delays the older one). */
const MAX_BARRIERS = 32;

/** The first boundary while it settles (from the first read), and the subscribers waiting for it. */
interface Start {
  boundary: number;
  xmax: bigint;
  waiters: { resolve: (boundary: number) => void; reject: (error: unknown) => void }[];
}

const SNAPSHOT = sql`pg_snapshot_xmin(pg_current_snapshot())::text as xmin,
  pg_snapshot_xmax(pg_current_snapshot())::text as xmax`;

/*
 * Why the poller never skips an event, though chain_events.id comes from a sequence and two
 * transactions can commit their ids out of order (the ingestor beside a `vaultkeeper backfill`):
 *
 * A transaction that writes chain_events has its xid before it draws ids (docs/BEHAVIOUR.md, Live
 * feed). Say a read with snapshot S sees row k. A transaction T that will still commit an id j < k
 * drew j before k was drawn, so before S was taken, and had its xid before that: T's xid is below
 * xmax(S). Once a later snapshot's xmin reaches xmax(S), every such T has ended, so every id up to k
 * is either visible or never will be: k is "settled". The poller delivers rows in id order only up to
 * the highest settled id; `lastId` (all ids up to it delivered or never to come) never passes an id
 * still in flight. A read whose own snapshot has no transaction running (xmin = xmax, always so on
 * PGlite: one connection, queries wait for its transaction) settles what it sees at once; otherwise
 * delivery waits for the next poll after those transactions end. Nothing is lost, only delayed while a
 * writing transaction anywhere on the server stays open.
 */
type PageRow = (EventRow | { id: null }) & SnapshotRow;

/** The newest id and the snapshot bounds, in one statement (so from one snapshot). */
async function readNewest(storage: Storage): Promise<SnapshotRow & { id: number | string | null }> {
  const [row] = await storage.rows<SnapshotRow & { id: number | string | null }>(
    sql`select (select max(id) from chain_events) as id, ${SNAPSHOT}`,
  );
  if (row === undefined) throw new Error('no snapshot row');
  return row;
}

/** A page of events after `afterId` and the snapshot bounds, in one statement (a row with a null id: none). */
async function readPage(storage: Storage, afterId: number): Promise<PageRow[]> {
  return storage.rows<PageRow>(sql`
    select e.*, ${SNAPSHOT}
    from (select 1) as one left join lateral (
      select id, name, vault_address, signature, event_index, slot, block_time, instruction, data
      from chain_events where id > ${afterId} order by id limit ${PAGE}) as e on true
    order by e.id`);
}

/**
 * One run of the poller, from its first subscriber until the last one leaves. A poll still in flight
 * when the run ends finishes on its own state and reaches no later subscriber.
 */
function createRun(storage: Storage) {
  const listeners = new Set<Listener>();
  /** Every id up to it is delivered, or was stored before the run began, or will never appear. */
  let lastId: number | null = null;
  /** Barriers not yet settled, oldest first (both fields increase along the list). */
  const barriers: Barrier[] = [];
  /** The first boundary until it settles (then null). */
  let start: Start | null = { boundary: 0, xmax: 0n, waiters: [] };
  let polling = false;

  /** The highest id settled by a snapshot with this xmin (the barriers it settles are dropped). */
  function settle(xmin: bigint): number | null {
    let safe: number | null = null;
    while (barriers.length > 0 && barriers[0]!.xmax <= xmin) safe = barriers.shift()!.upTo;
    return safe;
  }

  function addBarrier(barrier: Barrier): void {
    const last = barriers.at(-1);
    if (last !== undefined && last.upTo >= barrier.upTo) return;
    if (barriers.length >= MAX_BARRIERS) barriers.pop();
    barriers.push(barrier);
  }

  /** The first read fixes the boundary; its waiters get it once it is settled. True when started. */
  async function begin(waiting: Start): Promise<boolean> {
    const row = await readNewest(storage);
    if (lastId === null) {
      lastId = Number(row.id ?? 0);
      waiting.boundary = lastId;
      waiting.xmax = BigInt(row.xmax);
    }
    if (BigInt(row.xmin) < waiting.xmax) return false;
    start = null;
    for (const waiter of waiting.waiters) waiter.resolve(waiting.boundary);
    return true;
  }

  /** Reads one page after `lastId` and delivers its settled rows; true when a whole page went out. */
  async function deliverPage(after: number): Promise<boolean> {
    const rows = await readPage(storage, after);
    const found = rows.filter((row): row is EventRow & SnapshotRow => row.id !== null);
    const seen = found.at(-1);
    if (seen !== undefined) addBarrier({ upTo: Number(seen.id), xmax: BigInt(seen.xmax) });
    const safe = rows[0] === undefined ? null : settle(BigInt(rows[0].xmin));
    let delivered = 0;
    for (const row of found) {
      if (safe === null || Number(row.id) > safe) break;
      const event = toFeedEvent(row);
      // lastId and the fan-out move together, so a subscriber joining between two events is exact.
      lastId = event.id;
      delivered += 1;
      for (const listener of listeners) listener(event);
    }
    return delivered === PAGE;
  }

  return {
    listeners,
    async poll(): Promise<void> {
      if (polling) return;
      polling = true;
      try {
        if (start !== null && !(await begin(start))) return;
        while (lastId !== null && (await deliverPage(lastId)));
      } catch (error) {
        // The database is away: the next tick tries again from the same id. Subscribers waiting for a
        // first boundary are told now (their request fails, as a failed query would fail it).
        if (start !== null && lastId === null) {
          const { waiters } = start;
          start = { boundary: 0, xmax: 0n, waiters: [] };
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
        select id, name, vault_address, signature, event_index, slot, block_time, instruction, data
        from chain_events
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
    /** Stops polling (app shutdown). */
    close: stop,
  };
}

export type LiveFeed = ReturnType<typeof createLiveFeed>;
