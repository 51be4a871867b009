// The Yellowstone (Dragon's Mouth) wire, as the gRPC source speaks it: the subscribe request, the ping
// request, and an update read into the fields every source hands the one transaction decoder.
import { getBase58Decoder } from '@solana/kit';
// Types only: the client (and its native binary) loads when a gRPC source is configured, not before.
import type { SubscribeRequest, SubscribeUpdate } from '@triton-one/yellowstone-grpc';
import type { TransactionView } from './fetch-transaction.js';

/** The name of the transactions filter; updates name the filters they matched. */
export const TRANSACTIONS_FILTER = 'vault';

const base58 = getBase58Decoder();
/** geyser.proto's CommitmentLevel.CONFIRMED. */
const COMMITMENT_CONFIRMED = 1;

const EMPTY_REQUEST: SubscribeRequest = {
  accounts: {},
  slots: {},
  transactions: {},
  transactionsStatus: {},
  blocks: {},
  blocksMeta: {},
  entry: {},
  accountsDataSlice: [],
};

/**
 * The program's transactions (failed ones too: a blocked transfer is a failed transaction; no votes),
 * block metas for block times and slot statuses, at confirmed; from a slot when replaying.
 */
export function buildSubscribeRequest(programId: string, fromSlot: number | null): SubscribeRequest {
  return {
    ...EMPTY_REQUEST,
    transactions: {
      [TRANSACTIONS_FILTER]: {
        accountInclude: [programId],
        accountExclude: [],
        accountRequired: [],
        vote: false,
        failed: true,
      },
    },
    blocksMeta: { blocks: {} },
    slots: { slots: {} },
    commitment: COMMITMENT_CONFIRMED,
    ...(fromSlot === null ? {} : { fromSlot: String(fromSlot) }),
  };
}

/** A request carrying only a ping: the server answers with a pong and keeps the filters it has. */
export function buildPingRequest(id: number): SubscribeRequest {
  return { ...EMPTY_REQUEST, ping: { id } };
}

export type SlotStatusName = 'confirmed' | 'finalized' | 'dead';

/** What one update says, in the terms the source acts on. */
export type GeyserEvent =
  | { kind: 'transaction'; view: Omit<TransactionView, 'blockTime'> }
  | { kind: 'blockMeta'; slot: number; blockTime: number | null }
  | { kind: 'slot'; slot: number; status: SlotStatusName | null }
  | { kind: 'ping' }
  | { kind: 'other' };

/** geyser.proto's SlotStatus values this source acts on. */
const SLOT_STATUSES: Partial<Record<number, SlotStatusName>> = { 1: 'confirmed', 2: 'finalized', 6: 'dead' };

export function readGeyserUpdate(update: SubscribeUpdate): GeyserEvent {
  const tx = update.transaction;
  if (tx?.transaction !== undefined) {
    const info = tx.transaction;
    const meta = info.meta;
    return {
      kind: 'transaction',
      view: {
        signature: base58.decode(info.signature),
        slot: Number(tx.slot),
        // The error arrives serialized; only whether there is one matters to ingestion.
        err: meta?.err === undefined ? null : meta.err.err,
        logMessages: meta === undefined || meta.logMessagesNone ? [] : meta.logMessages,
      },
    };
  }
  if (update.blockMeta !== undefined) {
    const time = update.blockMeta.blockTime?.timestamp;
    return {
      kind: 'blockMeta',
      slot: Number(update.blockMeta.slot),
      blockTime: time === undefined ? null : Number(time),
    };
  }
  if (update.slot !== undefined) {
    return {
      kind: 'slot',
      slot: Number(update.slot.slot),
      status: SLOT_STATUSES[update.slot.status] ?? null,
    };
  }
  if (update.ping !== undefined) return { kind: 'ping' };
  return { kind: 'other' };
}
