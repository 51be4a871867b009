// Attempt outcomes are written in batches: a short delay (or a full batch) flushes them in one
// statement, and a failed write keeps them for the next flush while their leases hold.
import type { Logger } from 'pino';
import type { Clock } from '../lib/clock.js';
import type { Storage } from '../storage/database.js';
import { type AttemptRecord, recordAttempts } from './delivery.js';

const FLUSH_BATCH = 64;
const FLUSH_DELAY_MS = 5;
const FLUSH_RETRY_MS = 1_000;

export interface AttemptRecorder {
  record(entry: AttemptRecord): void;
  flush(): Promise<void>;
  /** After the last flush: late outcomes are dropped (their leases expire) rather than written after close. */
  stop(): void;
}

interface RecorderState {
  readonly storage: Storage;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly asyncCommit: boolean;
  readonly pending: AttemptRecord[];
  chain: Promise<void>;
  timer: NodeJS.Timeout | undefined;
  stopped: boolean;
}

export function createAttemptRecorder(options: {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  asyncCommit: boolean;
}): AttemptRecorder {
  const state: RecorderState = {
    ...options,
    pending: [],
    chain: Promise.resolve(),
    timer: undefined,
    stopped: false,
  };
  return {
    record: (entry) => record(state, entry),
    flush: () => flush(state),
    stop() {
      state.stopped = true;
      clearTimeout(state.timer);
    },
  };
}

function record(state: RecorderState, entry: AttemptRecord): void {
  if (state.stopped) return;
  state.pending.push(entry);
  if (state.pending.length >= FLUSH_BATCH) void flush(state);
  else state.timer ??= setTimeout(() => void flush(state), FLUSH_DELAY_MS);
}

function flush(state: RecorderState): Promise<void> {
  clearTimeout(state.timer);
  state.timer = undefined;
  state.chain = state.chain.then(() => writePending(state));
  return state.chain;
}

async function writePending(state: RecorderState): Promise<void> {
  const batch = state.pending.splice(0, state.pending.length);
  if (batch.length === 0) return;
  try {
    await recordAttempts(state.storage.db, batch, state.clock.now(), { asyncCommit: state.asyncCommit });
  } catch (error) {
    // Kept for the next flush; meanwhile the leases keep these deliveries from being re-sent.
    state.logger.error(
      { err: (error as Error).message, count: batch.length },
      'recording delivery attempts failed',
    );
    state.pending.unshift(...batch);
    state.timer ??= setTimeout(() => void flush(state), FLUSH_RETRY_MS);
  }
}
