// {slot, blockTime, err, logs} → log parser → event decoder: the one shape every transaction is
// decoded from, whether getTransaction read it (notification, backfill) or a gRPC update carried it.
import type { Address, Signature } from '@solana/kit';
import type { ChainTransaction } from '../domain/ingestion/types.js';
import { sleep, withRetry } from '../lib/backoff.js';
import { parseProgramLogs } from './log-parser.js';
import { decodeProgramEvent } from './program-events.js';
import type { SolanaRpc } from './rpc.js';

/**
 * A program transaction as both sources carry it: getTransaction's result, or a gRPC transaction
 * update with its slot's block time. Everything ingestion reads of a transaction is here.
 */
export interface TransactionView {
  signature: string;
  slot: number;
  /** Seconds since the epoch; null when unknown. */
  blockTime: number | null;
  /** `meta.err`: null when the transaction succeeded (its shape differs between sources; only presence counts). */
  err: unknown;
  logMessages: readonly string[];
}

/** The one decoder: a transaction's logs → the vault program's events, whichever source read it. */
export function decodeProgramTransaction(view: TransactionView, programId: Address): ChainTransaction {
  const parsed = parseProgramLogs(view.logMessages, programId);
  return {
    signature: view.signature,
    slot: view.slot,
    blockTime: view.blockTime === null ? null : new Date(view.blockTime * 1000),
    failed: view.err != null,
    truncated: parsed.truncated,
    events: parsed.events.map((event) => ({
      index: event.index,
      instruction: event.instruction,
      ...decodeProgramEvent(event.bytes),
    })),
  };
}

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
  return decodeProgramTransaction(
    {
      signature,
      slot: Number(result.slot),
      blockTime: result.blockTime === null ? null : Number(result.blockTime),
      err: result.meta?.err ?? null,
      logMessages: result.meta?.logMessages ?? [],
    },
    programId,
  );
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
   * The next results in input order: waits until `min` consecutive ones are read (or the input
   * ends), then takes every consecutive one already read, up to `max`. Null when nothing is left.
   * A failed read is thrown once the results before it have been handed out.
   */
  nextBatch(max: number, min?: number): Promise<R[] | null>;
}

/** Reads ahead with bounded concurrency (and a bounded buffer), handing results back in input order. */
export function createOrderedReader<T, R>(
  items: Iterable<T>,
  read: (item: T) => Promise<R>,
  options: { concurrency: number; buffer: number },
): OrderedReader<R> {
  type Slot = { done: boolean; failed: boolean; value?: R; error?: unknown };
  const input = items[Symbol.iterator]();
  const slots: Slot[] = [];
  let inFlight = 0;
  let exhausted = false;
  let announce: () => void = () => {};
  let changed = new Promise<void>((resolve) => {
    announce = resolve;
  });
  const settle = (slot: Slot) => {
    slot.done = true;
    inFlight -= 1;
    const wake = announce;
    changed = new Promise<void>((resolve) => {
      announce = resolve;
    });
    wake();
    fill();
  };

  function fill(): void {
    while (!exhausted && inFlight < options.concurrency && slots.length < options.buffer) {
      const next = input.next();
      if (next.done) {
        exhausted = true;
        return;
      }
      inFlight += 1;
      const slot: Slot = { done: false, failed: false };
      slots.push(slot);
      read(next.value).then(
        (value) => {
          slot.value = value;
          settle(slot);
        },
        (error: unknown) => {
          slot.failed = true;
          slot.error = error;
          settle(slot);
        },
      );
    }
  }

  /** How many results at the head are read and usable (a failure ends the run). */
  const readyRun = () => {
    let n = 0;
    while (n < slots.length && slots[n]?.done && !slots[n]?.failed) n++;
    return n;
  };

  return {
    async nextBatch(max, min = 1) {
      fill();
      for (;;) {
        if (slots.length === 0) return null;
        const ready = readyRun();
        const headFailed = slots[0]?.failed === true;
        const blocked = ready < slots.length && slots[ready]?.done === true; // a failure right after the run
        if (
          headFailed ||
          ready >= Math.min(min, max, options.buffer) ||
          blocked ||
          (exhausted && ready === slots.length)
        )
          break;
        await changed;
      }
      const head = slots[0];
      if (head?.failed) {
        slots.shift();
        throw head.error;
      }
      const out = slots.splice(0, Math.min(readyRun(), max)).map((slot) => slot.value as R);
      fill();
      return out;
    },
  };
}
