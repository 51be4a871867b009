// The log subscription's side of a session: live signatures into the queue, a backfill after every
// (re)connect, and the feed's state for health (role status, the per-endpoint gauge, the heartbeat row).
import { writeHeartbeat } from '../domain/ingestion/cursor.js';
import { behindSince, type Session, wakeLoop, wantBackfill } from './ingestor-session.js';
import type { runLogSubscription } from './subscription.js';

/** Live signatures held while a backfill runs; beyond this the backfill reads them instead. */
const MAX_QUEUED = 100_000;

export function setFeed(s: Session, endpoint: string | null): void {
  const { metrics, roleStatus } = s.deps;
  const status = roleStatus.ingestor;
  status.feedConnected = endpoint !== null;
  status.feedSource = endpoint === null ? null : s.source;
  if (status.feedEndpoint !== null) metrics.ingestionFeedEndpoint.labels(status.feedEndpoint).set(0);
  if (endpoint !== null) metrics.ingestionFeedEndpoint.labels(endpoint).set(1);
  status.feedEndpoint = endpoint;
}

/**
 * The feed's state for health: `connecting` for a grace period after it went down (or the session
 * started), then `disconnected`. While down, the ingestor is behind since the feed was lost; before a
 * first connection nobody knows by how much (null).
 */
function feedState(s: Session): {
  status: 'connected' | 'connecting' | 'disconnected';
  behindSince: Date | null;
} {
  if (s.connected) return { status: 'connected', behindSince: behindSince(s) };
  const downFor = Date.now() - (s.feedDownSince ?? s.startedAt);
  const status = downFor > s.feedGraceMs ? 'disconnected' : 'connecting';
  return { status, behindSince: s.feedDownSince === null ? null : new Date(s.feedDownSince) };
}

export function beat(s: Session, stopped?: 'disconnected'): Promise<unknown> {
  const state = stopped === undefined ? feedState(s) : { status: stopped, behindSince: new Date() };
  const source = state.status === 'disconnected' ? null : s.source;
  return writeHeartbeat(s.deps.storage.db, { ...state, source, instance: s.instance }).catch(
    (error: unknown) => s.deps.logger.warn({ err: (error as Error).message }, 'heartbeat failed'),
  );
}

export function subscriptionHandlers(s: Session): Parameters<typeof runLogSubscription>[1] {
  const { logger, metrics, rpcEndpoints } = s.deps;
  return {
    onConnected(endpoint, websocket) {
      s.source = 'websocket';
      s.connected = true;
      s.feedDownSince = null;
      setFeed(s, endpoint);
      logger.info({ endpoint, websocket }, `log subscription up on ${websocket}`);
      wantBackfill(s); // whatever landed while we were away
      void beat(s);
    },
    onSignature(signature) {
      if (s.queue.size >= MAX_QUEUED) {
        // The queue only saves the backfill some work: past this size, let the backfill take over.
        logger.warn({ queued: s.queue.size }, 'live queue full; the backfill will read these');
        s.queue.clear();
        s.backfillWanted = true;
      }
      if (!s.queue.has(signature)) s.queue.set(signature, Date.now());
      wakeLoop(s);
    },
    onDisconnected(error, retryInMs, endpoint, websocket) {
      const wasUp = s.connected;
      s.connected = false;
      if (wasUp) s.feedDownSince = Date.now();
      setFeed(s, null);
      metrics.ingestionReconnects.inc();
      logger.warn(
        { err: rpcEndpoints.redact(String((error as Error)?.message)), endpoint, websocket, retryInMs },
        `log subscription to ${websocket} ${wasUp ? 'lost' : 'failed'}; reconnecting in ${retryInMs} ms`,
      );
      void beat(s);
    },
  };
}
