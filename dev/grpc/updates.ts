// The fake validator's ledger as Yellowstone updates, encoded with the client package's own codecs.
import { getBase58Encoder } from '@solana/kit';
import { SubscribeUpdate } from '@triton-one/yellowstone-grpc';
import type { TransactionRecord } from '../validator/state.js';

const base58 = getBase58Encoder();
const bytes = (text: string) => new Uint8Array(base58.encode(text));

/** geyser.proto's SlotStatus values the fake sends. */
export const SLOT_STATUS = { confirmed: 1, finalized: 2, dead: 6 } as const;

// fromPartial fills every field the update leaves out with its default.
const fromPartial = SubscribeUpdate.fromPartial as (update: Record<string, unknown>) => SubscribeUpdate;

export function encodeUpdate(update: Record<string, unknown>): Buffer {
  return Buffer.from(SubscribeUpdate.encode(fromPartial(update)).finish());
}

/** A transaction update, as a provider sends it for a transaction that mentions the program. */
export function transactionUpdate(record: TransactionRecord, filter: string): Buffer {
  return encodeUpdate({
    filters: [filter],
    createdAt: new Date(),
    transaction: {
      slot: String(record.slot),
      transaction: {
        signature: bytes(record.signature),
        isVote: false,
        index: String(record.seq),
        transaction: {
          signatures: record.signatures.map(bytes),
          message: {
            header: record.header,
            accountKeys: record.accountKeys.map(bytes),
            recentBlockhash: bytes(record.recentBlockhash),
            instructions: record.instructions.map((ix) => ({
              programIdIndex: ix.programIdIndex,
              accounts: Uint8Array.from(ix.accounts),
              data: ix.data,
            })),
            versioned: record.version === 0,
            addressTableLookups: [],
          },
        },
        meta: {
          // A real node sends the error bincode-serialized; the fake sends its JSON (only presence matters).
          ...(record.err === null ? {} : { err: { err: Buffer.from(JSON.stringify(record.err)) } }),
          fee: String(record.fee),
          preBalances: record.preBalances.map(String),
          postBalances: record.postBalances.map(String),
          innerInstructions: [],
          innerInstructionsNone: false,
          logMessages: record.logs,
          logMessagesNone: false,
          preTokenBalances: [],
          postTokenBalances: [],
          rewards: [],
          loadedWritableAddresses: [],
          loadedReadonlyAddresses: [],
          returnDataNone: true,
          computeUnitsConsumed: String(record.computeUnitsConsumed),
        },
      },
    },
  });
}

export function blockMetaUpdate(slot: number, blockTime: number, filter: string): Buffer {
  return encodeUpdate({
    filters: [filter],
    createdAt: new Date(),
    blockMeta: {
      slot: String(slot),
      blockhash: '',
      blockTime: { timestamp: String(blockTime) },
      blockHeight: { blockHeight: String(slot - 10_000) },
      parentSlot: String(slot - 1),
      parentBlockhash: '',
      executedTransactionCount: '0',
      entriesCount: '0',
    },
  });
}

export function slotUpdate(slot: number, status: number, filter: string): Buffer {
  return encodeUpdate({
    filters: [filter],
    createdAt: new Date(),
    slot: { slot: String(slot), parent: String(slot - 1), status },
  });
}
