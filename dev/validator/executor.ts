import type { Address } from '@solana/kit';
import {
  decodeProgramEvent,
  encodeProgramEvent,
  type KnownProgramEvent,
  type ProgramEvent,
} from './program-events.js';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS, SYSTEM_PROGRAM_ADDRESS } from './program-idl.js';
import {
  type InnerInstruction,
  type LedgerState,
  randomBase58,
  type TransactionError,
  type TransactionRecord,
  type TxInstruction,
} from './state.js';
import {
  type InstructionContext,
  ProgramFailure,
  runVaultInstruction,
  type VaultForce,
} from './vault-program.js';

/** Runs a transaction the way the runtime does: instruction by instruction, all or nothing, with logs. */

export type MessageShape = {
  accountKeys: Address[];
  header: TransactionRecord['header'];
};

export type TransactionInput = {
  feePayer: Address;
  instructions: readonly TxInstruction[];
  /** base58 signatures in signer order; random ones are made for scenario transactions. */
  signatures?: string[];
  message?: MessageShape;
  recentBlockhash?: string;
  version?: 'legacy' | 0;
  wire?: Uint8Array | null;
  force?: VaultForce;
  /** Cut the logs after this many `Program data:` lines with `Log truncated`, as the runtime does past its log limit. */
  truncateAfterEvents?: number;
  /** Lines printed by the program of instruction i instead of running it (look-alikes, future events). */
  scriptedLogs?: ReadonlyMap<number, readonly string[]>;
  /** Land in the current slot instead of a new one. */
  sameSlot?: boolean;
};

export type TransactionOutcome = {
  record: TransactionRecord;
  err: TransactionError | null;
  unitsConsumed: number;
  /** Signature fee plus priority fee, as charged to the fee payer. */
  fee: bigint;
  /** Accounts as they stand after the run, before a dry run is rolled back (simulateTransaction `accounts`). */
  postState: ReadonlyMap<Address, ReturnType<LedgerState['accountInfo']>>;
};

const LAMPORTS_PER_SIGNATURE = 5000n;
/** Fixed compute units per instruction, so that a simulation predicts the real run exactly. */
export const INSTRUCTION_UNITS: Readonly<Record<string, number>> = {
  InitializeVault: 18_734,
  CreateOverride: 14_210,
  ApproveOverride: 8_893,
  ExecuteApprovedOverride: 17_405,
  ExecuteAgent: 11_982,
  ExecuteGuarded: 12_340,
  UpdateDailyLimit: 5_120,
  UpdateAgentSigner: 5_264,
  AddToWhitelist: 6_418,
  RemoveFromWhitelist: 6_702,
  PauseVault: 4_431,
  ResumeVault: 4_447,
};
const UNKNOWN_INSTRUCTION_UNITS = 2_841;
const BUILTIN_UNITS = 150;
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000;
const MAX_COMPUTE_UNITS = 1_400_000;

/** What the ComputeBudget instructions asked for: the unit limit (null: the default) and the µlamport price. */
export function readComputeBudget(instructions: readonly TxInstruction[]): { limit: number; price: bigint } {
  let limit: number | null = null;
  let price = 0n;
  for (const ix of instructions) {
    if (ix.programAddress !== COMPUTE_BUDGET_PROGRAM_ADDRESS) continue;
    const data = Buffer.from(ix.data);
    if (data[0] === 2 && data.length >= 5) limit = Math.min(data.readUInt32LE(1), MAX_COMPUTE_UNITS);
    if (data[0] === 3 && data.length >= 9) price = data.readBigUInt64LE(1);
  }
  const others = instructions.filter((ix) => ix.programAddress !== COMPUTE_BUDGET_PROGRAM_ADDRESS).length;
  return { limit: limit ?? Math.min(DEFAULT_UNITS_PER_INSTRUCTION * others, MAX_COMPUTE_UNITS), price };
}

/** The fee the runtime charges: 5 000 lamports per signature plus ceil(price × limit / 10^6). */
export function transactionFee(signatures: number, budget: { limit: number; price: bigint }): bigint {
  const priority = (budget.price * BigInt(budget.limit) + 999_999n) / 1_000_000n;
  return LAMPORTS_PER_SIGNATURE * BigInt(signatures) + priority;
}

class BudgetExceeded extends Error {}

/** Orders account keys as a compiled message does: writable signers, readonly signers, writable, readonly. */
export function compileMessageShape(feePayer: Address, instructions: readonly TxInstruction[]): MessageShape {
  const roles = new Map<Address, { signer: boolean; writable: boolean }>([
    [feePayer, { signer: true, writable: true }],
  ]);
  const touch = (address: Address, signer: boolean, writable: boolean) => {
    const role = roles.get(address) ?? { signer: false, writable: false };
    roles.set(address, { signer: role.signer || signer, writable: role.writable || writable });
  };
  for (const ix of instructions) {
    for (const meta of ix.accounts) touch(meta.address, meta.isSigner, meta.isWritable);
    touch(ix.programAddress, false, false);
  }
  const entries = [...roles.entries()];
  const group = (signer: boolean, writable: boolean) =>
    entries
      .filter(([a, r]) => a !== feePayer && r.signer === signer && r.writable === writable)
      .map(([a]) => a);
  const accountKeys = [
    feePayer,
    ...group(true, true),
    ...group(true, false),
    ...group(false, true),
    ...group(false, false),
  ];
  return {
    accountKeys,
    header: {
      numRequiredSignatures: 1 + group(true, true).length + group(true, false).length,
      numReadonlySignedAccounts: group(true, false).length,
      numReadonlyUnsignedAccounts: group(false, false).length,
    },
  };
}

/**
 * Executes and records a transaction. A failed one is rolled back (fee still charged) and recorded
 * with its error unless `dryRun`; `dryRun` rolls back everything and records nothing. A transaction
 * whose fee payer cannot pay (wire transactions only) fails before it runs and is never recorded.
 */
export async function executeTransaction(
  state: LedgerState,
  treasury: Address,
  input: TransactionInput,
  options: { dryRun?: boolean; watch?: readonly Address[] } = {},
): Promise<TransactionOutcome> {
  const shape = input.message ?? compileMessageShape(input.feePayer, input.instructions);
  const budget = readComputeBudget(input.instructions);
  const fee = transactionFee(shape.header.numRequiredSignatures, budget);
  const payerError = input.wire === undefined ? null : feePayerError(state, input.feePayer, fee);
  const watched = [...new Set([...shape.accountKeys, ...(options.watch ?? [])])];
  const restore = state.snapshot(watched);
  const preBalances = shape.accountKeys.map((key) => state.balance(key));
  const run = payerError === null ? await runInstructions(state, treasury, input, budget.limit) : null;
  const err = payerError ?? run?.err ?? null;
  const postState = new Map(watched.map((key) => [key, state.accountInfo(key)] as const));
  // The runtime takes the fee from the loaded fee payer first: its post-state shows it gone.
  const payerAfter = postState.get(input.feePayer);
  if (payerError === null && payerAfter)
    postState.set(input.feePayer, { ...payerAfter, lamports: payerAfter.lamports - fee });
  if (err !== null || options.dryRun) restore();
  if (payerError === null && !options.dryRun && state.balance(input.feePayer) >= fee)
    state.credit(input.feePayer, -fee);
  const signatures =
    input.signatures ?? Array.from({ length: shape.header.numRequiredSignatures }, () => randomBase58(64));
  const unitsConsumed = run?.unitsConsumed ?? 0;
  const record: TransactionRecord = {
    seq: (state.transactions.at(-1)?.seq ?? -1) + 1,
    signature: signatures[0] ?? randomBase58(64),
    signatures,
    slot: options.dryRun || input.sameSlot || payerError !== null ? state.slot : state.advanceSlot(),
    blockTime: run?.blockTime ?? state.now(),
    err,
    logs: truncateLogs(run?.logs ?? [], input.truncateAfterEvents),
    fee: Number(fee),
    computeUnitsConsumed: unitsConsumed,
    accountKeys: shape.accountKeys,
    header: shape.header,
    instructions: input.instructions.map((ix) => ({
      programIdIndex: shape.accountKeys.indexOf(ix.programAddress),
      accounts: ix.accounts.map((meta) => shape.accountKeys.indexOf(meta.address)),
      data: ix.data,
    })),
    innerInstructions: err === null ? (run?.inner ?? []) : [],
    preBalances,
    postBalances: shape.accountKeys.map((key) => state.balance(key)),
    recentBlockhash: input.recentBlockhash ?? state.latestBlockhash().blockhash,
    version: input.version ?? 'legacy',
    wire: input.wire ?? null,
    events: run?.events ?? [],
    mentionsProgram: shape.accountKeys.includes(state.programId),
  };
  // A fork drops a landed transaction by restoring what it wrote (finality.ts).
  if (!options.dryRun && payerError === null) state.record(record, err === null ? restore : undefined);
  return { record, err, unitsConsumed, fee, postState };
}

/** The runtime's check before anything runs: the fee payer exists and can pay the fee. */
function feePayerError(state: LedgerState, feePayer: Address, fee: bigint): TransactionError | null {
  if (state.accountInfo(feePayer) === null) return 'AccountNotFound';
  return state.balance(feePayer) < fee ? 'InsufficientFundsForFee' : null;
}

/** Runs the instructions in order until one fails or the compute budget runs out. */
async function runInstructions(
  state: LedgerState,
  treasury: Address,
  input: TransactionInput,
  limit: number,
) {
  const logs: string[] = [];
  const events: ProgramEvent[] = [];
  const inner: InnerInstruction[] = [];
  const blockTime = state.nextBlockTime();
  let err: TransactionError | null = null;
  let unitsConsumed = 0;
  const consume = (program: Address, units: number, log: boolean) => {
    const left = limit - unitsConsumed;
    unitsConsumed += Math.min(units, left);
    if (log) logs.push(`Program ${program} consumed ${Math.min(units, left)} of ${left} compute units`);
    if (units > left) throw new BudgetExceeded();
  };

  for (const [index, ix] of input.instructions.entries()) {
    const program = ix.programAddress;
    logs.push(`Program ${program} invoke [1]`);
    try {
      const scripted = input.scriptedLogs?.get(index);
      if (scripted !== undefined) {
        logs.push(...scripted);
        if (program === state.programId) events.push(...scriptedEvents(scripted));
        consume(program, UNKNOWN_INSTRUCTION_UNITS, true);
      } else if (program === COMPUTE_BUDGET_PROGRAM_ADDRESS) {
        consume(program, BUILTIN_UNITS, false);
      } else if (program === SYSTEM_PROGRAM_ADDRESS) {
        consume(program, BUILTIN_UNITS, false);
        runSystemTransfer(state, ix);
      } else if (program === state.programId) {
        const ctx = vaultContext(state, treasury, input, BigInt(blockTime), index, { logs, events, inner });
        const before = logs.length;
        let failure: unknown = null;
        try {
          await runVaultInstruction(ctx, ix);
        } catch (error) {
          failure = error;
        }
        const name = (logs[before] ?? '').replace('Program log: Instruction: ', '');
        consume(program, INSTRUCTION_UNITS[name] ?? UNKNOWN_INSTRUCTION_UNITS, true);
        if (failure !== null) throw failure;
      }
      logs.push(`Program ${program} success`);
    } catch (error) {
      err = { InstructionError: [index, failureDetail(error, program, logs)] };
      break;
    }
  }
  return { logs, events, inner, blockTime, err, unitsConsumed };
}

function failureDetail(error: unknown, program: Address, logs: string[]): unknown {
  if (error instanceof BudgetExceeded) {
    logs.push(`Program ${program} failed: Computational budget exceeded`);
    return 'ComputationalBudgetExceeded';
  }
  const failure =
    error instanceof ProgramFailure ? error : new ProgramFailure('ProgramFailedToComplete', String(error));
  const text =
    typeof failure.error === 'number'
      ? `custom program error: 0x${failure.error.toString(16)}`
      : failure.message;
  logs.push(`Program ${program} failed: ${text}`);
  return typeof failure.error === 'number' ? { Custom: failure.error } : failure.error;
}

function vaultContext(
  state: LedgerState,
  treasury: Address,
  input: TransactionInput,
  blockTime: bigint,
  index: number,
  out: { logs: string[]; events: ProgramEvent[]; inner: InnerInstruction[] },
): InstructionContext {
  return {
    state,
    programId: state.programId,
    treasury,
    blockTime,
    force: input.force ?? {},
    log: (line) => out.logs.push(line),
    emit: (event: KnownProgramEvent) => {
      out.events.push(event);
      out.logs.push(`Program data: ${Buffer.from(encodeProgramEvent(event)).toString('base64')}`);
    },
    transfer: (from, to, lamports) => {
      out.logs.push(`Program ${SYSTEM_PROGRAM_ADDRESS} invoke [2]`);
      const short = state.balance(from) < lamports;
      // Scenario transactions may create accounts for wallets that were never funded; wire ones may not.
      if (short && input.wire !== undefined) {
        // The system program refuses to move lamports an account does not hold (error 1).
        out.logs.push(
          `Transfer: insufficient lamports ${state.balance(from)}, need ${lamports}`,
          `Program ${SYSTEM_PROGRAM_ADDRESS} failed: custom program error: 0x1`,
        );
        throw new ProgramFailure(1, 'insufficient lamports');
      }
      out.logs.push(`Program ${SYSTEM_PROGRAM_ADDRESS} success`);
      if (!short) state.credit(from, -lamports);
      state.credit(to, lamports);
      out.inner.push({
        index,
        programAddress: SYSTEM_PROGRAM_ADDRESS,
        accounts: [from, to],
        data: transferData(lamports),
      });
    },
  };
}

function scriptedEvents(lines: readonly string[]): ProgramEvent[] {
  return lines
    .filter((line) => line.startsWith('Program data: '))
    .map((line) => decodeProgramEvent(new Uint8Array(Buffer.from(line.slice(14), 'base64'))));
}

function truncateLogs(logs: string[], afterEvents: number | undefined): string[] {
  if (afterEvents === undefined) return logs;
  let seen = 0;
  const cut = logs.findIndex((line) => line.startsWith('Program data: ') && ++seen === afterEvents);
  return cut < 0 ? logs : [...logs.slice(0, cut + 1), 'Log truncated'];
}

function transferData(lamports: bigint): Uint8Array {
  const data = Buffer.alloc(12);
  data.writeUInt32LE(2, 0);
  data.writeBigUInt64LE(lamports, 4);
  return new Uint8Array(data);
}

/** System program Transfer (index 2): the only system instruction the fake runs at top level. */
function runSystemTransfer(state: LedgerState, ix: TxInstruction): void {
  const [from, to] = ix.accounts;
  const data = Buffer.from(ix.data);
  if (data.length < 12 || data.readUInt32LE(0) !== 2 || from === undefined || to === undefined) return;
  if (!from.isSigner) throw new ProgramFailure('MissingRequiredSignature', 'missing required signature');
  const lamports = data.readBigUInt64LE(4);
  if (state.balance(from.address) < lamports) throw new ProgramFailure(1, 'insufficient lamports');
  state.credit(from.address, -lamports);
  state.credit(to.address, lamports);
}
