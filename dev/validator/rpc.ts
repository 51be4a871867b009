import { type Address, getBase58Encoder, isAddress } from '@solana/kit';
import { executeTransaction } from './executor.js';
import { type ClusterFinality, createClusterFinality } from './finality.js';
import { renderAccount, renderSignatureInfo, renderTransaction } from './render.js';
import type { LedgerState, TransactionRecord } from './state.js';
import { decodeWireTransaction, verifySignature, type WireTransaction } from './wire.js';

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
/** Devnet's: the suite's validator plays devnet (Actions' chain id and all). */
export const DEVNET_GENESIS_HASH = 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG';
/** A ledger of its own, as solana-test-validator has: what `npm run demo` runs on. */
export const LOCAL_GENESIS_HASH = '9j5JdgUUYRW64HHNdgVvuGiGcKcGFi9q6UxXo1xLuZht';
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

/** The runtime's words for transaction-level errors, as preflight failures print them. */
const TRANSACTION_ERROR_TEXT: Record<string, string> = {
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  BlockhashNotFound: 'Blockhash not found',
};

export function createRpcMethods(
  state: LedgerState,
  treasury: Address,
  airdrop: (address: Address, lamports: bigint) => Promise<{ signature: string }>,
  fees: PrioritizationFees = createPrioritizationFees(),
  genesisHash: () => string = () => DEVNET_GENESIS_HASH,
  finality: ClusterFinality = createClusterFinality(state),
) {
  const context = () => ({ slot: state.slot, apiVersion: '2.1.21' });

  async function runWire(params: unknown[], mode: 'send' | 'simulate') {
    const encoded = param(params, 0, isString, 'transaction');
    const cfg = config(params, 1);
    let tx: WireTransaction;
    try {
      tx = decodeWireTransaction(decodeWire(encoded, cfg.encoding));
    } catch (error) {
      throw new RpcError(
        -32602,
        `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${String(error)}`,
      );
    }
    if (tx.version === 1) throw new RpcError(-32602, 'unsupported transaction version');
    if (mode === 'simulate' && cfg.sigVerify === true && cfg.replaceRecentBlockhash === true) {
      throw new RpcError(-32602, 'sigVerify may not be used with replaceRecentBlockhash');
    }
    const sigVerify = mode === 'send' || cfg.sigVerify === true;
    if (sigVerify) {
      for (const [i, { address }] of tx.signatures.entries()) {
        const sig = tx.signatureBytes[i];
        if (sig == null || !(await verifySignature(address, tx.messageBytes, sig))) {
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
    if (mode === 'simulate') return simulate(input, cfg, replace);
    if (!skipPreflight) {
      const dry = await executeTransaction(state, treasury, input, { dryRun: true });
      if (dry.err !== null)
        throw simulationError(dry.err, dry.record.logs, dry.unitsConsumed, preflightText(dry));
    }
    return (await executeTransaction(state, treasury, input)).record.signature;
  }

  /** simulateTransaction: the run on a copy of the ledger, with post-state accounts when asked. */
  async function simulate(input: Parameters<typeof executeTransaction>[2], cfg: Config, replaced: boolean) {
    const wanted = cfg.accounts as { addresses?: unknown; encoding?: unknown } | undefined;
    const asked: unknown[] | null = Array.isArray(wanted?.addresses) ? wanted.addresses : null;
    const addresses = asked === null ? null : asked.filter(isAddr);
    if (asked !== null && addresses?.length !== asked.length) {
      throw new RpcError(-32602, 'Invalid params: accounts.addresses');
    }
    const dry = await executeTransaction(state, treasury, input, { dryRun: true, watch: addresses ?? [] });
    const encoding = typeof wanted?.encoding === 'string' ? wanted.encoding : 'base64';
    return {
      context: context(),
      value: {
        err: dry.err,
        logs: dry.record.logs,
        accounts:
          addresses === null
            ? null
            : addresses.map((a) => renderAccount(dry.postState.get(a) ?? state.accountInfo(a), encoding)),
        unitsConsumed: dry.unitsConsumed,
        returnData: null,
        ...(replaced ? { replacementBlockhash: state.latestBlockhash() } : {}),
      },
    };
  }

  const methods: Record<string, (params: unknown[]) => unknown> = {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': '2.1.21', 'feature-set': 1_416_569_292 }),
    getGenesisHash: () => genesisHash(),
    // A node's default commitment is `finalized` (kit leaves it out when asked for it).
    getSlot: (params) => {
      const commitment = config(params, 0).commitment;
      return commitment === undefined || commitment === 'finalized' ? finality.finalizedSlot() : state.slot;
    },
    getBlockTime: (params) => {
      const slot = Number(params[0]);
      const time = state.blockTime(slot);
      if (time === null) throw new RpcError(-32004, `Block not available for slot ${slot}`);
      return time;
    },
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
      // Asked explicitly: kit leaves `finalized` out, and then the ledger answers as it holds it.
      if (cfg.commitment === 'finalized' && record.slot > finality.finalizedSlot()) return null;
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
      if (list.length > MAX_SIGNATURE_STATUSES) {
        throw new RpcError(-32602, `Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`);
      }
      const searchHistory = config(params, 1).searchTransactionHistory === true;
      return {
        context: context(),
        value: list.map((s) =>
          renderSignatureStatus(
            state.bySignature.get(s),
            state.slot,
            finality.finalizedSlot(),
            searchHistory,
          ),
        ),
      };
    },
    requestAirdrop: async (params) => {
      const address = param(params, 0, isAddr, 'address');
      return (await airdrop(address, BigInt(Number(params[1] ?? 0)))).signature;
    },
    sendTransaction: (params) => runWire(params, 'send'),
    simulateTransaction: (params) => runWire(params, 'simulate'),
    getRecentPrioritizationFees: (params) => {
      const list = params[0] === undefined ? [] : params[0];
      if (!Array.isArray(list) || !list.every(isAddr) || list.length > 128) {
        throw new RpcError(-32602, 'Invalid params: accounts');
      }
      return fees.answer(list, state.slot);
    },
  };

  return async function call(method: string, params: unknown): Promise<unknown> {
    const handler = methods[method];
    if (handler === undefined) throw new RpcError(-32601, 'Method not found');
    return handler(Array.isArray(params) ? params : []);
  };
}

/** getSignatureStatuses answers at most this many signatures per call. */
const MAX_SIGNATURE_STATUSES = 256;
/** Slots whose statuses a node keeps in its status cache, the only place looked at without searchTransactionHistory. */
export const STATUS_CACHE_SLOTS = 300;

/**
 * A status as the node answers it: null when unknown, or when it left the status cache and the ledger's
 * history was not searched; `confirmations` counts blocks since, null once finalized (rooted).
 */
function renderSignatureStatus(
  record: TransactionRecord | undefined,
  slot: number,
  finalizedSlot: number,
  searchHistory: boolean,
) {
  if (record === undefined) return null;
  const depth = slot - record.slot;
  if (!searchHistory && depth >= STATUS_CACHE_SLOTS) return null;
  const finalized = record.slot <= finalizedSlot;
  return {
    slot: record.slot,
    confirmations: finalized ? null : depth,
    err: record.err,
    status: record.err === null ? { Ok: null } : { Err: record.err },
    confirmationStatus: finalized ? 'finalized' : 'confirmed',
  };
}

function encodingOf(params: unknown[], index: number): string {
  const encoding = config(params, index).encoding;
  return typeof encoding === 'string' ? encoding : 'binary';
}

function preflightText(dry: { err: unknown; record: { logs: string[] } }): string {
  if (typeof dry.err === 'string') return TRANSACTION_ERROR_TEXT[dry.err] ?? dry.err;
  const failed = dry.record.logs.findLast((line) => line.includes(' failed: ')) ?? '';
  const index = (dry.err as { InstructionError: [number] }).InstructionError[0];
  return `Error processing Instruction ${index}: ${failed.replace(/^Program \S+ failed: /, '')}`;
}

/** Recent prioritization fees as a test scripts them: a global series and per-account series. */
export type PrioritizationFees = ReturnType<typeof createPrioritizationFees>;

export function createPrioritizationFees() {
  let global: bigint[] = [];
  const perAccount = new Map<Address, bigint[]>();
  return {
    /** The fees paid in the most recent slots, oldest first; with accounts, those of transactions locking them. */
    set(values: readonly (number | bigint | string)[], accounts?: readonly Address[]): void {
      const series = values.map((v) => BigInt(v));
      if (accounts === undefined) global = series;
      else for (const account of accounts) perAccount.set(account, series);
    },
    reset(): void {
      global = [];
      perAccount.clear();
    },
    /** Per slot, the highest fee among the accounts asked about (the global series without accounts). */
    answer(accounts: readonly Address[], slot: number) {
      const series = accounts.length === 0 ? [global] : accounts.map((a) => perAccount.get(a) ?? []);
      const length = Math.max(1, ...series.map((s) => s.length));
      return Array.from({ length }, (_, i) => ({
        slot: slot - length + 1 + i,
        prioritizationFee: series.reduce((max, s) => {
          const value = s[i - (length - s.length)] ?? 0n;
          return value > max ? value : max;
        }, 0n),
      }));
    },
  };
}
