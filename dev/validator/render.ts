import {
  type Address,
  getBase58Decoder,
  getBase58Encoder,
  getCompiledTransactionMessageEncoder,
  getShortU16Encoder,
} from '@solana/kit';
import type { TransactionRecord } from './state.js';

/** JSON shapes of the Solana RPC documentation, and JSON text where u64 values stay exact numbers. */

const base58 = getBase58Decoder();
const base58Bytes = getBase58Encoder();

/** JSON.stringify that writes bigints as bare numbers, as the real node does for u64 fields. */
export function stringifyJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? `\u0000big:${v}` : v)).replace(
    /"\\u0000big:(-?\d+)"/g,
    '$1',
  );
}

/** Wire bytes of a recorded transaction: as sent, or compiled from the record (legacy or v0). */
export function getWireBytes(record: TransactionRecord): Uint8Array {
  if (record.wire !== null) return record.wire;
  const { header } = record;
  const messageBytes = getCompiledTransactionMessageEncoder().encode({
    version: record.version,
    header: {
      numSignerAccounts: header.numRequiredSignatures,
      numReadonlySignerAccounts: header.numReadonlySignedAccounts,
      numReadonlyNonSignerAccounts: header.numReadonlyUnsignedAccounts,
    },
    staticAccounts: record.accountKeys,
    lifetimeToken: record.recentBlockhash,
    instructions: record.instructions.map((ix) => ({
      programAddressIndex: ix.programIdIndex,
      accountIndices: ix.accounts,
      data: ix.data,
    })),
    ...(record.version === 0 ? { addressTableLookups: [] } : {}),
  } as Parameters<ReturnType<typeof getCompiledTransactionMessageEncoder>['encode']>[0]);
  const parts = [
    getShortU16Encoder().encode(record.signatures.length),
    ...record.signatures.map((s) => base58Bytes.encode(s)),
    messageBytes,
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  record.wire = out;
  return out;
}

function innerInstructionsJson(record: TransactionRecord) {
  const groups = new Map<number, unknown[]>();
  for (const inner of record.innerInstructions) {
    const programIdIndex = record.accountKeys.indexOf(inner.programAddress);
    const accounts = inner.accounts.map((a: Address) => record.accountKeys.indexOf(a));
    if (programIdIndex < 0 || accounts.includes(-1)) continue;
    const list = groups.get(inner.index) ?? [];
    list.push({ programIdIndex, accounts, data: base58.decode(inner.data), stackHeight: 2 });
    groups.set(inner.index, list);
  }
  return [...groups.entries()].map(([index, instructions]) => ({ index, instructions }));
}

/** The getTransaction result for `encoding` (json / base64 / base58); version only when the caller sent maxSupportedTransactionVersion. */
export function renderTransaction(record: TransactionRecord, encoding: string, includeVersion: boolean) {
  const meta = {
    err: record.err,
    status: record.err === null ? { Ok: null } : { Err: record.err },
    fee: record.fee,
    preBalances: record.preBalances,
    postBalances: record.postBalances,
    innerInstructions: innerInstructionsJson(record),
    logMessages: record.logs,
    preTokenBalances: [],
    postTokenBalances: [],
    rewards: [],
    loadedAddresses: { writable: [], readonly: [] },
    computeUnitsConsumed: record.computeUnitsConsumed,
  };
  let transaction: unknown;
  if (encoding === 'base64' || encoding === 'base58') {
    const bytes = getWireBytes(record);
    transaction = [
      encoding === 'base64' ? Buffer.from(bytes).toString('base64') : base58.decode(bytes),
      encoding,
    ];
  } else {
    transaction = {
      signatures: record.signatures,
      message: {
        accountKeys: record.accountKeys,
        header: record.header,
        instructions: record.instructions.map((ix) => ({
          programIdIndex: ix.programIdIndex,
          accounts: ix.accounts,
          data: base58.decode(ix.data),
          stackHeight: null,
        })),
        recentBlockhash: record.recentBlockhash,
        ...(record.version === 0 ? { addressTableLookups: [] } : {}),
      },
    };
  }
  return {
    slot: record.slot,
    blockTime: record.blockTime,
    meta,
    transaction,
    ...(includeVersion ? { version: record.version } : {}),
  };
}

export function renderSignatureInfo(record: TransactionRecord) {
  return {
    signature: record.signature,
    slot: record.slot,
    err: record.err,
    memo: null,
    blockTime: record.blockTime,
    confirmationStatus: 'finalized',
  };
}

export function renderAccount(
  account: { lamports: bigint; owner: Address; data: Uint8Array; executable: boolean } | null,
  encoding: string,
) {
  if (account === null) return null;
  // Without an encoding the node answers in the legacy "binary" form: a bare base58 string.
  const data =
    encoding === 'binary'
      ? base58.decode(account.data)
      : encoding === 'base58'
        ? [base58.decode(account.data), 'base58']
        : [Buffer.from(account.data).toString('base64'), 'base64'];
  return {
    data,
    executable: account.executable,
    lamports: account.lamports,
    owner: account.owner,
    rentEpoch: 18_446_744_073_709_551_615n,
    space: account.data.length,
  };
}

/** A control answer as JSON: bigints become decimal strings (lossless), byte arrays base64. */
export function toJson(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(toJson);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, toJson(inner)]));
  }
  return value;
}
