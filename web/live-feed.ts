// The service's Server-Sent Events feed: EventSource reconnects by itself and resumes with Last-Event-ID.

import type { FeedEvent as WireFeedEvent } from '@vaultkeeper/client';

/** An event of the feed (the client package's wire format), its fields read as a record. */
export type FeedEvent = Omit<WireFeedEvent, 'data'> & { data: Record<string, unknown> };

export type FeedStatus = 'connecting' | 'live' | 'reconnecting';

export interface LiveFeedHandlers {
  onEvent(event: FeedEvent): void;
  onStatus(status: FeedStatus): void;
}

export function openLiveFeed(vault: string, handlers: LiveFeedHandlers): () => void {
  handlers.onStatus('connecting');
  const source = new EventSource(`/api/events/stream?vault=${encodeURIComponent(vault)}`);
  source.onopen = () => handlers.onStatus('live');
  source.onerror = () =>
    handlers.onStatus(source.readyState === EventSource.CLOSED ? 'reconnecting' : 'connecting');
  source.onmessage = (message: MessageEvent<string>) => {
    try {
      handlers.onEvent(JSON.parse(message.data) as FeedEvent);
    } catch {
      // A frame this page cannot read is skipped; the next refresh shows the truth anyway.
    }
  };
  return () => source.close();
}

/** Runs `task` at most once per `intervalMs`, coalescing calls that arrive in between. */
export function throttle(task: () => Promise<void>, intervalMs: number): () => void {
  let running = false;
  let pending = false;
  let lastRun = 0;
  const run = async () => {
    const wait = lastRun + intervalMs - Date.now();
    if (wait > 0) {
      setTimeout(() => void run(), wait);
      return;
    }
    running = true;
    pending = false;
    lastRun = Date.now();
    try {
      await task();
    } finally {
      running = false;
      if (pending) void run();
    }
  };
  return () => {
    if (running || pending) {
      pending = true;
      return;
    }
    pending = true;
    void run();
  };
}
