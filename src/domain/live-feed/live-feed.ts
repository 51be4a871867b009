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

export function createLiveFeed(deps: LiveFeedDeps) {
  const listeners = new Set<Listener>();
  const interval = deps.pollIntervalMs ?? 250;
  let lastId: number | null = null;
  let timer: NodeJS.Timeout | null = null;
  let polling = false;

  async function newestId(): Promise<number> {
    const [row] = await deps.storage.rows<{ id: number | string | null }>(
      sql`select max(id) as id from chain_events`,
    );
    return Number(row?.id ?? 0);
  }

  async function poll(): Promise<void> {
    if (polling) return;
    polling = true;
    try {
      if (lastId === null) lastId = await newestId();
      for (;;) {
        const rows = await deps.storage.rows<EventRow>(sql`
          select id, name, vault_address, signature, event_index, slot, block_time, instruction, data
          from chain_events where id > ${lastId} order by id limit ${PAGE}`);
        for (const row of rows) {
          const event = toFeedEvent(row);
          lastId = event.id;
          for (const listener of listeners) listener(event);
        }
        if (rows.length < PAGE) break;
      }
    } catch {
      // The database is away: the next tick tries again from the same id.
    } finally {
      polling = false;
    }
  }

  return {
    /** Id of the newest stored event (0 when none). */
    newestId,
    /** Events after `afterId` (for Last-Event-ID resumption), oldest first, at most `limit`. */
    async listSince(afterId: number, vault: string | null, limit = 1_000): Promise<FeedEvent[]> {
      const rows = await deps.storage.rows<EventRow>(sql`
        select id, name, vault_address, signature, event_index, slot, block_time, instruction, data
        from chain_events
        where id > ${afterId} and (${vault}::text is null or vault_address = ${vault})
        order by id limit ${limit}`);
      return rows.map(toFeedEvent);
    },
    /** Calls `listener` with every event ingested from now on; returns the unsubscribe function. */
    subscribe(listener: Listener): () => void {
      listeners.add(listener);
      if (timer === null) {
        void poll();
        timer = setInterval(() => void poll(), interval);
        timer.unref();
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && timer !== null) {
          clearInterval(timer);
          timer = null;
          lastId = null;
        }
      };
    },
    /** Stops polling (app shutdown). */
    close(): void {
      listeners.clear();
      if (timer !== null) clearInterval(timer);
      timer = null;
    },
  };
}

export type LiveFeed = ReturnType<typeof createLiveFeed>;
