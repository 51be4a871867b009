import { randomBytes } from 'node:crypto';
import { type Address, getBase58Decoder } from '@solana/kit';
import {
  CLOCK_SYSVAR_ADDRESS,
  type ClockSysvar,
  encodeClockSysvar,
  SYSVAR_OWNER_ADDRESS,
} from './clock-sysvar.js';
import {
  encodePendingOverride,
  encodeVaultConfig,
  type PendingOverride,
  type VaultConfig,
} from './program-accounts.js';
import type { ProgramEvent } from './program-events.js';
import { SYSTEM_PROGRAM_ADDRESS } from './program-idl.js';

/** The fake validator's ledger: balances, the vault program's accounts, transactions and their indexes. */

export type TxAccount = { address: Address; isSigner: boolean; isWritable: boolean };
export type TxInstruction = { programAddress: Address; accounts: readonly TxAccount[]; data: Uint8Array };
/** Error in the RPC's JSON shape, e.g. `{ InstructionError: [0, { Custom: 12000 }] }`. */
export type TransactionError = Record<string, unknown> | string;
export type InnerInstruction = {
  index: number;
  programAddress: Address;
  accounts: Address[];
  data: Uint8Array;
};

export type TransactionRecord = {
  seq: number;
  signature: string;
  signatures: string[];
  slot: number;
  blockTime: number;
  err: TransactionError | null;
  logs: string[];
  fee: number;
  computeUnitsConsumed: number;
  accountKeys: Address[];
  header: {
    numRequiredSignatures: number;
    numReadonlySignedAccounts: number;
    numReadonlyUnsignedAccounts: number;
  };
  instructions: { programIdIndex: number; accounts: number[]; data: Uint8Array }[];
  innerInstructions: InnerInstruction[];
  preBalances: bigint[];
  postBalances: bigint[];
  recentBlockhash: string;
  version: 'legacy' | 0;
  /** Wire bytes as sent (sendTransaction); scenario transactions are encoded on demand. */
  wire: Uint8Array | null;
  /** Events the vault program emitted, in log order (for ledger()). */
  events: ProgramEvent[];
  mentionsProgram: boolean;
};

export type VaultEntry = { kind: 'vault'; config: VaultConfig; depositAddress: Address };
export type OverrideEntry = { kind: 'override'; value: PendingOverride; approved: boolean };
/** Bytes a test placed as they are (e.g. a vault of the program's earlier layout): never executed on. */
export type RawEntry = { kind: 'raw'; data: Uint8Array };
export type ProgramAccount = VaultEntry | OverrideEntry | RawEntry;

export const VAULT_RENT = 6_521_520n; // rent-exempt minimum for 809 bytes
export const OVERRIDE_RENT = 1_802_640n; // rent-exempt minimum for 131 bytes
const CLOCK_RENT = 1_169_280n; // what the Clock sysvar account holds on every cluster
const SLOTS_PER_EPOCH = 432_000;
/** Recent transactions a fork can still drop with their writes undone. */
const UNDO_KEPT = 1_000;

const base58 = getBase58Decoder();

export function randomBase58(bytes: number): string {
  return base58.decode(randomBytes(bytes));
}

export class LedgerState {
  readonly programId: Address;
  readonly lamports = new Map<Address, bigint>();
  readonly programAccounts = new Map<Address, ProgramAccount>();
  /** Override nonces announced by TransactionBlocked but not created on-chain yet, per vault. */
  readonly transactions: TransactionRecord[] = [];
  readonly bySignature = new Map<string, TransactionRecord>();
  readonly byAddress = new Map<Address, TransactionRecord[]>();
  readonly blockhashes = new Map<string, number>();
  /** How to take back each recent successful transaction's writes, by signature. */
  readonly undos = new Map<string, () => void>();
  slot: number;
  blockHeight: number;
  private fixedTime: number | null = null;
  private autoAdvanceSeconds = 0;
  /** The block time of the current slot: what the Clock sysvar says. */
  private slotTime: number;
  /** Each slot's block time, for getBlockTime (the first transaction's time when it has one). */
  private readonly slotTimes = new Map<number, number>();
  private latest: string;
  private readonly listeners = new Set<(record: TransactionRecord) => void>();
  private readonly slotListeners = new Set<(slot: number) => void>();
  private readonly accountListeners = new Set<(addresses: readonly Address[]) => void>();

  constructor(programId: Address, startSlot = 300_000_000) {
    this.programId = programId;
    this.slot = startSlot;
    this.blockHeight = startSlot - 10_000;
    this.slotTime = this.now();
    this.latest = this.rotateBlockhash();
  }

  /** Block time for the next transaction: fixed by setTime, else the wall clock. */
  now(): number {
    return this.fixedTime ?? Math.floor(Date.now() / 1000);
  }

  /** A cluster's clock moves only with its slots: a new time is a new slot. */
  setTime(unixSeconds: number, autoAdvanceSeconds = this.autoAdvanceSeconds): void {
    this.fixedTime = unixSeconds;
    this.autoAdvanceSeconds = autoAdvanceSeconds;
    this.advanceSlot();
  }

  advanceTime(seconds: number): void {
    this.fixedTime = this.now() + seconds;
    this.advanceSlot();
  }

  nextBlockTime(): number {
    const time = this.now();
    if (this.fixedTime !== null) this.fixedTime += this.autoAdvanceSeconds;
    return time;
  }

  advanceSlot(): number {
    this.slot += 1;
    this.blockHeight += 1;
    this.slotTime = this.now();
    this.slotTimes.set(this.slot, this.slotTime);
    if (this.slot % 150 === 0) this.latest = this.rotateBlockhash();
    for (const listener of this.slotListeners) listener(this.slot);
    return this.slot;
  }

  private rotateBlockhash(): string {
    const hash = randomBase58(32);
    this.blockhashes.set(hash, this.blockHeight + 150);
    return hash;
  }

  /**
   * The Clock sysvar of the current slot. On the wall clock the validator makes a slot when a second has
   * passed since the last one (lazily, when the clock is read, or by a subscription's ticker).
   */
  clock(): ClockSysvar {
    if (this.fixedTime === null && this.now() > this.slotTime) this.advanceSlot();
    const epoch = Math.floor(this.slot / SLOTS_PER_EPOCH);
    const intoEpochSeconds = Math.floor(((this.slot % SLOTS_PER_EPOCH) * 2) / 5);
    return {
      slot: BigInt(this.slot),
      epochStartTimestamp: BigInt(this.slotTime - intoEpochSeconds),
      epoch: BigInt(epoch),
      leaderScheduleEpoch: BigInt(epoch + 1),
      unixTimestamp: BigInt(this.slotTime),
    };
  }

  latestBlockhash(): { blockhash: string; lastValidBlockHeight: number } {
    return { blockhash: this.latest, lastValidBlockHeight: this.blockHeight + 150 };
  }

  isKnownBlockhash(hash: string): boolean {
    return this.blockhashes.has(hash);
  }

  balance(address: Address): bigint {
    return this.lamports.get(address) ?? 0n;
  }

  credit(address: Address, amount: bigint): void {
    this.lamports.set(address, this.balance(address) + amount);
  }

  getVault(address: Address): VaultEntry | undefined {
    const entry = this.programAccounts.get(address);
    return entry?.kind === 'vault' ? entry : undefined;
  }

  getOverride(address: Address): OverrideEntry | undefined {
    const entry = this.programAccounts.get(address);
    return entry?.kind === 'override' ? entry : undefined;
  }

  /** Copies what a transaction may touch so that a failed one can be rolled back. */
  snapshot(addresses: readonly Address[]): () => void {
    const saved = addresses.map((address) => {
      const entry = this.programAccounts.get(address);
      const copy: ProgramAccount | undefined =
        entry?.kind === 'vault'
          ? { ...entry, config: { ...entry.config, whitelist: [...entry.config.whitelist] } }
          : entry?.kind === 'override'
            ? { ...entry, value: { ...entry.value } }
            : entry;
      return { address, lamports: this.lamports.get(address), entry: copy };
    });
    return () => {
      for (const { address, lamports, entry } of saved) {
        if (lamports === undefined) this.lamports.delete(address);
        else this.lamports.set(address, lamports);
        if (entry === undefined) this.programAccounts.delete(address);
        else this.programAccounts.set(address, entry);
      }
    };
  }

  /** The account as getAccountInfo shows it, or null when it does not exist. */
  accountInfo(
    address: Address,
  ): { lamports: bigint; owner: Address; data: Uint8Array; executable: boolean } | null {
    if (address === CLOCK_SYSVAR_ADDRESS) {
      const data = encodeClockSysvar(this.clock());
      return { lamports: CLOCK_RENT, owner: SYSVAR_OWNER_ADDRESS, data, executable: false };
    }
    const entry = this.programAccounts.get(address);
    const lamports = this.balance(address);
    if (entry !== undefined) {
      const data =
        entry.kind === 'vault'
          ? encodeVaultConfig(entry.config)
          : entry.kind === 'override'
            ? encodePendingOverride(entry.value)
            : entry.data;
      return { lamports, owner: this.programId, data, executable: false };
    }
    if (address === this.programId) {
      const loader = 'BPFLoaderUpgradeab1e11111111111111111111111' as Address;
      return { lamports: 1_141_440n, owner: loader, data: new Uint8Array(36), executable: true };
    }
    if (lamports === 0n) return null;
    return { lamports, owner: SYSTEM_PROGRAM_ADDRESS, data: new Uint8Array(), executable: false };
  }

  /** A past or current slot's block time; null for a slot not made yet. */
  blockTime(slot: number): number | null {
    if (slot > this.slot) return null;
    return this.slotTimes.get(slot) ?? this.slotTime;
  }

  /**
   * Records a landed transaction; `undo` restores the accounts it wrote as they were before it (kept for
   * the most recent UNDO_KEPT transactions: a fork drops a recent one, see finality.ts).
   */
  record(record: TransactionRecord, undo?: () => void): void {
    if (undo !== undefined) {
      this.undos.set(record.signature, undo);
      if (this.undos.size > UNDO_KEPT) this.undos.delete(this.undos.keys().next().value as string);
    }
    // The block's time is its first transaction's (a scenario may stamp it after the slot was made).
    if (this.transactions.at(-1)?.slot !== record.slot) this.slotTimes.set(record.slot, record.blockTime);
    this.transactions.push(record);
    this.bySignature.set(record.signature, record);
    for (const key of new Set(record.accountKeys)) {
      const list = this.byAddress.get(key);
      if (list === undefined) this.byAddress.set(key, [record]);
      else list.push(record);
    }
    for (const listener of this.listeners) listener(record);
    for (const listener of this.accountListeners) listener(record.accountKeys);
  }

  /** Accounts a test rewrote directly: they change in a new slot, and their subscribers hear of it. */
  touchAccounts(addresses: readonly Address[]): void {
    this.advanceSlot();
    for (const listener of this.accountListeners) listener(addresses);
  }

  /** Called with the accounts a transaction loaded, once it is recorded (whether or not they changed). */
  onAccounts(listener: (addresses: readonly Address[]) => void): () => void {
    this.accountListeners.add(listener);
    return () => this.accountListeners.delete(listener);
  }

  onTransaction(listener: (record: TransactionRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onSlot(listener: (slot: number) => void): () => void {
    this.slotListeners.add(listener);
    return () => this.slotListeners.delete(listener);
  }

  /** Signatures for an address, newest first, paged like the real node (before/until exclusive). */
  signaturesFor(
    address: Address,
    opts: { before?: string; until?: string; limit?: number },
  ): TransactionRecord[] {
    const list = this.byAddress.get(address) ?? [];
    let end = list.length; // exclusive, walking backwards from here
    if (opts.before !== undefined) {
      const before = this.bySignature.get(opts.before);
      if (before === undefined) return [];
      end = lowerBound(list, before.seq);
    }
    const until = opts.until === undefined ? undefined : this.bySignature.get(opts.until);
    const start = until === undefined ? 0 : lowerBound(list, until.seq + 1);
    const limit = Math.min(Math.max(opts.limit ?? 1000, 1), 1000);
    const out: TransactionRecord[] = [];
    for (let i = end - 1; i >= start && out.length < limit; i--) {
      const record = list[i];
      if (record !== undefined) out.push(record);
    }
    return out;
  }
}

/** First index whose seq is >= seq (lists are in seq order). */
function lowerBound(list: readonly TransactionRecord[], seq: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid]?.seq ?? 0) < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
