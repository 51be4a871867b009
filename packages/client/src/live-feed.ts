// The live feed as an async iterator: one stream, or (reconnect) a stream opened again after each drop,
// resuming right after the last event it read (Last-Event-ID), so nothing is lost or repeated.
import { readEventStream } from './event-stream.js';
import { type CallOptions, sleep, type Transport, VaultkeeperError } from './transport.js';
import type { FeedEvent } from './types.js';

export interface EventStreamOptions extends CallOptions {
  /** Only this vault's events. */
  vault?: string | undefined;
  /** Resume right after this event id (as after a reconnect). */
  lastEventId?: number | undefined;
  /** Open the stream again whenever it drops or ends (default false: the iterator ends with the stream). */
  reconnect?: boolean | undefined;
  /** Told each time the stream dropped and is opened again after `delayMs`. */
  onReconnect?:
    | ((info: { error: unknown; delayMs: number; lastEventId: number | undefined }) => void)
    | undefined;
}

const MAX_DELAY_MS = 30_000;

/** Answers that a retry cannot change (a bad vault address): thrown even with reconnect. */
const isFinal = (error: unknown) =>
  error instanceof VaultkeeperError &&
  error.status >= 400 &&
  error.status < 500 &&
  ![408, 429].includes(error.status);

export async function* followEvents(
  t: Transport,
  options: EventStreamOptions,
): AsyncGenerator<FeedEvent, void, undefined> {
  const { vault, signal } = options;
  let lastEventId = options.lastEventId;
  let failures = 0;
  for (;;) {
    let error: unknown = new Error('the stream ended');
    try {
      const frames = readEventStream<FeedEvent>(() =>
        t.open({
          method: 'GET',
          path: '/api/events/stream',
          query: { vault },
          headers: {
            accept: 'text/event-stream',
            ...(lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) }),
          },
          signal,
        }),
      );
      for await (const frame of frames) {
        failures = 0;
        // The first frame names where the stream starts, so a drop before any event loses nothing.
        if (frame.id !== undefined && /^[0-9]+$/.test(frame.id)) lastEventId = Number(frame.id);
        if (frame.data !== undefined) yield frame.data;
      }
      if (!options.reconnect) return;
    } catch (caught) {
      if (!options.reconnect || signal?.aborted || isFinal(caught)) throw caught;
      error = caught;
    }
    const delayMs = Math.min(MAX_DELAY_MS, 500 * 2 ** failures);
    failures += 1;
    options.onReconnect?.({ error, delayMs, lastEventId });
    await sleep(delayMs, signal);
  }
}
