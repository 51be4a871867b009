import { type Address, getBase58Encoder, isAddress } from '@solana/kit';
import { decodeTransactionBytes } from '../../../src/chain/solana-transactions.js';
import { verifyEd25519 } from '../../../src/lib/ed25519.js';
import { executeTransaction } from './executor.js';
import { renderAccount, renderSignatureInfo, renderTransaction } from './render.js';
import type { LedgerState, TransactionRecord } from './state.js';

/** JSON-RPC methods of a Solana node, answered from the fake ledger. */

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

type Config = Record<string, unknown>;
const GENESIS_HASH = 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG'; // devnet
const base58Bytes = getBase58Encoder();

function param<T>(params: unknown[], index: number, check: (v: unknown) => v is T, what: string): T {
  const value = params[index];
  if (!check(value)) throw new RpcError(-32602, `Invalid params: ${what}`);
  return value;
}
const isString = (v: unknown): v is string => typeof v === 'string';
const isAddr = (v: unknown): v is Address => typeof v === 'string' && isAddress(v);
const config = (params: unknown[], index: number): Config => {
  const value = params[index];
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Config) : {};
};

function decodeWire(encoded: string, encoding: unknown): Uint8Array {
  return encoding === 'base64'
    ? new Uint8Array(Buffer.from(encoded, 'base64'))
    : new Uint8Array(base58Bytes.encode(encoded));
}

function simulationError(err: unknown, logs: string[], unitsConsumed: number, message: string): RpcError {
  return new RpcError(-32002, `Transaction simulation failed: ${message}`, {
    err,
    logs,
    accounts: null,
    unitsConsumed,
    returnData: null,
  });
}

export function createRpcMethods(
  state: LedgerState,
  treasury: Address,
  airdrop: (address: Address, lamports: bigint) => Promise<{ signature: string }>,
) {
  const context = () => ({ slot: state.slot, apiVersion: '2.1.21' });

  async function runWire(params: unknown[], mode: 'send' | 'simulate') {
    const encoded = param(params, 0, isString, 'transaction');
    const cfg = config(params, 1);
    let tx: ReturnType<typeof decodeTransactionBytes>;
    try {
      tx = decodeTransactionBytes(decodeWire(encoded, cfg.encoding));
    } catch (error) {
      throw new RpcError(
        -32602,
        `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${String(error)}`,
      );
    }
    if (tx.version === 1) throw new RpcError(-32602, 'unsupported transaction version');
    const sigVerify = mode === 'send' || cfg.sigVerify === true;
    if (sigVerify) {
      for (const [i, { address }] of tx.signatures.entries()) {
        const sig = tx.signatureBytes[i];
        if (sig == null || !(await verifyEd25519(address, tx.messageBytes, sig))) {
          throw new RpcError(-32003, 'Transaction signature verification failure');
        }
      }
    }
    const replace = mode === 'simulate' && cfg.replaceRecentBlockhash === true;
    if (!replace && !state.isKnownBlockhash(tx.blockhash)) {
      throw simulationError('BlockhashNotFound', [], 0, 'Blockhash not found');
    }
    const signatures = tx.signatures.map(
      (s) => s.signature ?? '1111111111111111111111111111111111111111111111111111111111111111',
    );
    if (mode === 'send' && state.bySignature.has(signatures[0] ?? '')) {
      throw simulationError('AlreadyProcessed', [], 0, 'This transaction has already been processed');
    }
    const input = {
      feePayer: tx.feePayer,
      instructions: tx.instructions,
      signatures,
      message: {
        accountKeys: tx.accountKeys,
        header: {
          numRequiredSignatures: tx.header.numSignerAccounts,
          numReadonlySignedAccounts: tx.header.numReadonlySignerAccounts,
          numReadonlyUnsignedAccounts: tx.header.numReadonlyNonSignerAccounts,
        },
      },
      recentBlockhash: tx.blockhash,
      version: tx.version,
      wire: decodeWire(encoded, cfg.encoding),
    };
    const skipPreflight = cfg.skipPreflight === true;
    if (mode === 'simulate' || !skipPreflight) {
      const dry = await executeTransaction(state, treasury, input, { dryRun: true });
      if (mode === 'simulate') {
        return {
          context: context(),
          value: {
            err: dry.err,
            logs: dry.record.logs,
            accounts: null,
            unitsConsumed: dry.unitsConsumed,
            returnData: null,
          },
        };
      }
      if (dry.err !== null) {
        const failed = dry.record.logs.findLast((line) => line.includes(' failed: ')) ?? '';
        const index = (dry.err as { InstructionError: [number] }).InstructionError[0];
        const text = `Error processing Instruction ${index}: ${failed.replace(/^Program \S+ failed: /, '')}`;
        throw simulationError(dry.err, dry.record.logs, dry.unitsConsumed, text);
      }
    }
    return (await executeTransaction(state, treasury, input)).record.signature;
  }

  const methods: Record<string, (params: unknown[]) => unknown> = {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': '2.1.21', 'feature-set': 1_416_569_292 }),
    getGenesisHash: () => GENESIS_HASH,
    getSlot: () => state.slot,
    getBlockHeight: () => state.blockHeight,
    getLatestBlockhash: () => ({ context: context(), value: state.latestBlockhash() }),
    isBlockhashValid: (params) => ({
      context: context(),
      value: state.isKnownBlockhash(param(params, 0, isString, 'blockhash')),
    }),
    getMinimumBalanceForRentExemption: (params) => (BigInt(Number(params[0] ?? 0)) + 128n) * 6960n,
    getBalance: (params) => ({
      context: context(),
      value: state.balance(param(params, 0, isAddr, 'address')),
    }),
    getAccountInfo: (params) => ({
      context: context(),
      value: renderAccount(state.accountInfo(param(params, 0, isAddr, 'address')), encodingOf(params, 1)),
    }),
    getMultipleAccounts: (params) => {
      const list = param(params, 0, (v): v is Address[] => Array.isArray(v) && v.every(isAddr), 'addresses');
      return {
        context: context(),
        value: list.map((a) => renderAccount(state.accountInfo(a), encodingOf(params, 1))),
      };
    },
    getSignaturesForAddress: (params) => {
      const address = param(params, 0, isAddr, 'address');
      const cfg = config(params, 1);
      const limit = cfg.limit === undefined ? 1000 : Number(cfg.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
        throw new RpcError(-32602, 'Invalid limit; max 1000');
      return state
        .signaturesFor(address, {
          before: typeof cfg.before === 'string' ? cfg.before : undefined,
          until: typeof cfg.until === 'string' ? cfg.until : undefined,
          limit,
        })
        .map(renderSignatureInfo);
    },
    getTransaction: (params) => {
      const record = state.bySignature.get(param(params, 0, isString, 'signature'));
      if (record === undefined) return null;
      const cfg = config(params, 1);
      const max = cfg.maxSupportedTransactionVersion;
      if (record.version === 0 && max === undefined) {
        throw new RpcError(
          -32015,
          'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
        );
      }
      return renderTransaction(
        record,
        typeof cfg.encoding === 'string' ? cfg.encoding : 'json',
        max !== undefined,
      );
    },
    getSignatureStatuses: (params) => {
      const list = param(
        params,
        0,
        (v): v is string[] => Array.isArray(v) && v.every(isString),
        'signatures',
      );
      const status = (r: TransactionRecord | undefined) =>
        r === undefined
          ? null
          : {
              slot: r.slot,
              confirmations: null,
              err: r.err,
              status: r.err === null ? { Ok: null } : { Err: r.err },
              confirmationStatus: 'finalized',
            };
      return { context: context(), value: list.map((s) => status(state.bySignature.get(s))) };
    },
    requestAirdrop: async (params) => {
      const address = param(params, 0, isAddr, 'address');
      return (await airdrop(address, BigInt(Number(params[1] ?? 0)))).signature;
    },
    sendTransaction: (params) => runWire(params, 'send'),
    simulateTransaction: (params) => runWire(params, 'simulate'),
  };

  return async function call(method: string, params: unknown): Promise<unknown> {
    const handler = methods[method];
    if (handler === undefined) throw new RpcError(-32601, 'Method not found');
    return handler(Array.isArray(params) ? params : []);
  };
}

function encodingOf(params: unknown[], index: number): string {
  const encoding = config(params, index).encoding;
  return typeof encoding === 'string' ? encoding : 'binary';
}
