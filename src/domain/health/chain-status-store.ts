// The chain section of health, read from the database so an API-only process reports the ingestor
// that runs elsewhere: its heartbeat (status, how far behind), the newest applied slot and event.
import { sql } from 'drizzle-orm';
import type { Storage } from '../../storage/database.js';
import type { ChainHealth, ChainStatusSource } from './chain-status.js';

/** A heartbeat older than this means no ingestor is running (it beats every few seconds). */
const HEARTBEAT_STALE_SECONDS = 30;

interface StatusRow {
  status: string | null;
  source: string | null;
  beat_age: number | string | null;
  behind: number | string | null;
  last_slot: number | string | null;
  last_event_at: Date | string | null;
}

export function createDatabaseChainStatus(deps: {
  storage: Storage;
  cluster: string;
  staleAfterSeconds?: number;
}): ChainStatusSource {
  const staleAfter = deps.staleAfterSeconds ?? HEARTBEAT_STALE_SECONDS;
  const unknown: ChainHealth = {
    status: 'disconnected',
    source: null,
    cluster: deps.cluster,
    lastSlot: null,
    lastEventAt: null,
    lagSeconds: null,
  };
  return {
    async get() {
      let row: StatusRow | undefined;
      try {
        // Each part is one index probe: the heartbeat row, max(slot), the newest event by slot.
        [row] = await deps.storage.rows<StatusRow>(sql`
          select h.status, h.source,
                 extract(epoch from now() - h.beat_at)::float8 as beat_age,
                 extract(epoch from now() - h.behind_since)::float8 as behind,
                 (select max(slot) from chain_signatures) as last_slot,
                 (select block_time from chain_events order by slot desc limit 1) as last_event_at
          from (select 1) one
          left join chain_heartbeats h on h.name = 'ingestor'`);
      } catch {
        return unknown;
      }
      if (row === undefined) return unknown;
      const beatAge = row.beat_age === null ? null : Number(row.beat_age);
      const fresh = beatAge !== null && beatAge <= staleAfter;
      const status: ChainHealth['status'] =
        fresh && (row.status === 'connected' || row.status === 'connecting') ? row.status : 'disconnected';
      // Behind: since the oldest unapplied signature was seen, or the feed was lost; silent ingestor:
      // since its last beat; a feed that never connected: unknown (null).
      const lag =
        beatAge === null
          ? null
          : !fresh
            ? beatAge
            : row.behind !== null
              ? Math.max(0, Number(row.behind))
              : status === 'connected'
                ? 0
                : null;
      const source = status !== 'disconnected' && (row.source === 'grpc' || row.source === 'websocket');
      return {
        status,
        source: source ? (row.source as 'grpc' | 'websocket') : null,
        cluster: deps.cluster,
        lastSlot: row.last_slot === null ? null : Number(row.last_slot),
        lastEventAt: row.last_event_at === null ? null : new Date(row.last_event_at).toISOString(),
        lagSeconds: lag === null ? null : Math.round(lag * 10) / 10,
      };
    },
  };
}
