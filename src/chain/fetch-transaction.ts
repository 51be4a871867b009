// getTransaction → {slot, blockTime, err, logs} → log parser → event decoder: the one shape every
// signature is decoded from, whether a notification or the backfill named it.
import type { Address, Signature } from '@solana/kit';
import type { SolanaRpc } from '../app-deps.js';
import type { ChainTransaction } from '../domain/ingestion/types.js';
import { sleep, withRetry } from './backoff.js';
import { decodeEvent } from './events.js';
import { parseProgramLogs } from './log-parser.js';

export async function fetchProgramTransaction(
  rpc: SolanaRpc,
  programId: Address,
  signature: string,
  signal?: AbortSignal,
): Promise<ChainTransaction | null> {
  const result = await rpc
    .getTransaction(signature as Signature, {
      commitment: 'confirmed',
      encoding: 'json',
      maxSupportedTransactionVersion: 0,
    })
    .send(signal === undefined ? undefined : { abortSignal: signal });
  if (result === null) return null;
  const parsed = parseProgramLogs(result.meta?.logMessages ?? [], programId);
  return {
    signature,
    slot: Number(result.slot),
    blockTime: result.blockTime === null ? null : new Date(Number(result.blockTime) * 1000),
    failed: result.meta?.err != null,
    truncated: parsed.truncated,
    events: parsed.events.map((event) => ({
      index: event.index,
      instruction: event.instruction,
      ...decodeEvent(event.bytes),
    })),
  };
}

/** Thrown when a listed signature stays unknown to the node after a few tries. */
export class TransactionNotFoundError extends Error {
  constructor(readonly signature: string) {
    super(`transaction ${signature} not found`);
    this.name = 'TransactionNotFoundError';
  }
}

/**
 * Reads a transaction, retrying RPC failures, and waiting a little when the node does not know it yet
 * (a notification can outrun the node's transaction index).
 */
export async function readTransaction(
  rpc: SolanaRpc,
  programId: Address,
  signature: string,
  signal?: AbortSignal,
): Promise<ChainTransaction> {
  for (let attempt = 0; ; attempt++) {
    const tx = await withRetry(() => fetchProgramTransaction(rpc, programId, signature, signal), {
      attempts: 4,
      signal,
    });
    if (tx !== null) return tx;
    if (attempt >= 5 || signal?.aborted) throw new TransactionNotFoundError(signature);
    await sleep(100 * 2 ** attempt, signal);
  }
}

export interface OrderedReader<R> {
  /**
   * Waits for the next result in input order, then takes every following one already read (up to
   * max), so a slow consumer gets bigger batches. Null when the input is exhausted.
   */
  nextBatch(max: number): Promise<R[] | null>;
}

/** Reads ahead with bounded concurrency (and a bounded buffer), handing results back in input order. */
export function createOrderedReader<T, R>(
  items: Iterable<T>,
  read: (item: T) => Promise<R>,
  options: { concurrency: number; buffer: number },
): OrderedReader<R> {
  type Slot = { promise: Promise<void>; done: boolean; failed: boolean; value?: R; error?: unknown };
  const input = items[Symbol.iterator]();
  const slots: Slot[] = [];
  let inFlight = 0;
  let exhausted = false;

  const fill = () => {
    while (!exhausted && inFlight < options.concurrency && slots.length < options.buffer) {
      const next = input.next();
      if (next.done) {
        exhausted = true;
        return;
      }
      inFlight += 1;
      const slot = { done: false, failed: false } as Slot;
      slot.promise = read(next.value).then(
        (value) => {
          slot.value = value;
        },
        (error: unknown) => {
          slot.failed = true;
          slot.error = error;
        },
      );
      slot.promise.then(() => {
        slot.done = true;
        inFlight -= 1;
        fill();
      });
      slots.push(slot);
    }
  };

  return {
    async nextBatch(max) {
      fill();
      const first = slots[0];
      if (first === undefined) return null;
      await first.promise;
      const out: R[] = [];
      while (out.length < max) {
        const slot = slots[0];
        if (slot === undefined || !(slot.done || slot === first)) break;
        slots.shift();
        if (slot.failed) throw slot.error;
        out.push(slot.value as R);
      }
      fill();
      return out;
    },
  };
}
