// The Yellowstone gRPC subscription kept up with capped reconnects: subscribe (from the replay slot when
// there is one), answer the server's pings and ping it every 30 s, and treat a silent stream as dropped.
// A refused `fromSlot` is reported once per refusal and the stream resubscribes live.
import type { ClientDuplexStream, SubscribeUpdate } from '@triton-one/yellowstone-grpc';
import type { Logger } from 'pino';
import { createBackoff, sleep } from '../lib/backoff.js';
import {
  buildPingRequest,
  buildSubscribeRequest,
  type GeyserEvent,
  readGeyserUpdate,
} from './grpc-geyser.js';

const PING_MS = 30_000;
/** Slots come every ~400 ms and servers ping every ~15 s: this much silence is a stalled stream. */
const STALL_MS = 45_000;
const CONNECT_TIMEOUT_MS = 5_000;
/** A stream up this long starts the reconnect backoff over. */
const STABLE_MS = 10_000;

export interface GrpcStreamHandlers {
  /** The first update arrived: the stream is up (resumed from `fromSlot`, or live when null). */
  onConnected(fromSlot: number | null): void;
  onEvent(event: GeyserEvent): void;
  /** The provider refused `fromSlot` (outside its window, or unsupported); a live subscription follows. */
  onReplayRefused(fromSlot: number, error: unknown): void;
  /** The stream failed or dropped; a reconnect follows after `retryInMs`. */
  onDisconnected(error: unknown, retryInMs: number, wasUp: boolean): void;
}

export interface GrpcStreamDeps {
  url: string;
  /** Sent as `x-token`; never logged. */
  token: string | null;
  programId: string;
  logger: Logger;
  /** Where a reconnect resumes: the highest slot whose updates are all committed (null: live only). */
  replayFrom(): number | null;
  pingMs?: number;
  stallMs?: number;
}

/** Keeps the subscription up until `signal` aborts. */
export async function runGrpcStream(
  deps: GrpcStreamDeps,
  handlers: GrpcStreamHandlers,
  signal: AbortSignal,
): Promise<void> {
  const loaded = await import('@triton-one/yellowstone-grpc');
  // The package's types describe its CommonJS build; the ESM build Node loads exports the class as default.
  const Client = loaded.default as unknown as (typeof loaded.default)['default'];
  const backoff = createBackoff({ baseMs: 250, capMs: 5_000 });
  let offerReplay = true;
  while (!signal.aborted) {
    const fromSlot = offerReplay ? deps.replayFrom() : null;
    offerReplay = true;
    let upAt = 0;
    try {
      const client = new Client(deps.url, deps.token ?? undefined, {
        grpcConnectTimeout: CONNECT_TIMEOUT_MS,
      });
      // Connecting and opening the stream get a deadline of their own: an unreachable host counts as down.
      const opened = AbortSignal.any([signal, AbortSignal.timeout(CONNECT_TIMEOUT_MS)]);
      await raceAbort(client.connect(), opened);
      const opening = client.subscribe(buildSubscribeRequest(deps.programId, fromSlot));
      // A stream that opens after the deadline or the abort is closed at once.
      opening.then(
        (stream) => opened.aborted && stream.destroy(),
        () => undefined,
      );
      const stream = await raceAbort(opening, opened);
      await consume(stream, deps, signal, (update) => {
        if (upAt === 0) {
          upAt = Date.now();
          handlers.onConnected(fromSlot);
        }
        handlers.onEvent(update);
      });
      if (signal.aborted) return;
      throw new Error('gRPC stream ended');
    } catch (error) {
      if (signal.aborted) return;
      if (upAt === 0 && fromSlot !== null && isReplayRefusal(error)) {
        offerReplay = false;
        handlers.onReplayRefused(fromSlot, error);
        continue;
      }
      if (upAt > 0 && Date.now() - upAt > STABLE_MS) backoff.reset();
      const delay = backoff.next();
      handlers.onDisconnected(error, delay, upAt > 0);
      await sleep(delay, signal);
    }
  }
}

/** Reads the stream until it ends, fails, stalls or the signal aborts; pings and answers pings meanwhile. */
async function consume(
  stream: ClientDuplexStream,
  deps: GrpcStreamDeps,
  signal: AbortSignal,
  onEvent: (event: GeyserEvent) => void,
): Promise<void> {
  let pingId = 0;
  const ping = () => {
    if (!stream.destroyed) stream.write(buildPingRequest(++pingId));
  };
  const stallMs = deps.stallMs ?? STALL_MS;
  let stall: NodeJS.Timeout | undefined;
  const armStall = () => {
    clearTimeout(stall);
    stall = setTimeout(() => stream.destroy(new Error(`gRPC stream silent for ${stallMs} ms`)), stallMs);
  };
  const pinger = setInterval(ping, deps.pingMs ?? PING_MS);
  const stop = () => stream.destroy();
  signal.addEventListener('abort', stop, { once: true });
  armStall();
  try {
    for await (const update of stream as AsyncIterable<SubscribeUpdate>) {
      armStall();
      const event = readGeyserUpdate(update);
      if (event.kind === 'ping') ping();
      onEvent(event);
    }
  } finally {
    clearTimeout(stall);
    clearInterval(pinger);
    signal.removeEventListener('abort', stop);
    if (!stream.destroyed) stream.destroy();
  }
}

/**
 * Whether a stream that failed before its first update refused the requested `fromSlot`: servers answer
 * InvalidArgument / OutOfRange / FailedPrecondition / Unimplemented, or name the slot in the message.
 */
export function isReplayRefusal(error: unknown): boolean {
  return /invalid.?argument|out.?of.?range|failed.?precondition|unimplemented|from.?slot|replay/i.test(
    describeGrpcError(error),
  );
}

/** The error's message with its causes' (the client wraps the server's status in `cause`). */
export function describeGrpcError(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e != null && depth < 5; depth++) {
    const message = (e as Error).message ?? String(e);
    if (!parts.includes(message)) parts.push(message);
    e = (e as { cause?: unknown }).cause;
  }
  return parts.join(': ');
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () =>
      reject(new Error(signal.reason instanceof Error ? signal.reason.message : 'aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
