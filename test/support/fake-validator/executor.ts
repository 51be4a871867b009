import type { Address } from '@solana/kit';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS, SYSTEM_PROGRAM_ADDRESS } from '../../../src/chain/program.js';
import {
  decodeProgramEvent,
  encodeProgramEvent,
  type KnownProgramEvent,
  type ProgramEvent,
} from '../../../src/chain/program-events.js';
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
};

const LAMPORTS_PER_SIGNATURE = 5000n;
const VAULT_UNITS: Record<string, number> = {
  InitializeVault: 18_734,
  CreateOverride: 14_210,
  ExecuteAgent: 11_982,
};

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
 * with its error unless `dryRun`; `dryRun` rolls back everything and records nothing.
 */
export async function executeTransaction(
  state: LedgerState,
  treasury: Address,
  input: TransactionInput,
  options: { dryRun?: boolean } = {},
): Promise<TransactionOutcome> {
  const shape = input.message ?? compileMessageShape(input.feePayer, input.instructions);
  const restore = state.snapshot(shape.accountKeys);
  const preBalances = shape.accountKeys.map((key) => state.balance(key));
  const logs: string[] = [];
  const events: ProgramEvent[] = [];
  const inner: InnerInstruction[] = [];
  const blockTime = state.nextBlockTime();
  let err: TransactionError | null = null;
  let unitsConsumed = 0;
  let budget: number | null = null;

  for (const [index, ix] of input.instructions.entries()) {
    const program = ix.programAddress;
    logs.push(`Program ${program} invoke [1]`);
    try {
      const scripted = input.scriptedLogs?.get(index);
      if (scripted !== undefined) {
        logs.push(...scripted);
        if (program === state.programId) events.push(...scriptedEvents(scripted));
        logs.push(`Program ${program} consumed 2841 of 200000 compute units`);
      } else if (program === COMPUTE_BUDGET_PROGRAM_ADDRESS) {
        if (ix.data[0] === 2 && ix.data.length >= 5) budget = Buffer.from(ix.data).readUInt32LE(1);
        unitsConsumed += 150;
      } else if (program === SYSTEM_PROGRAM_ADDRESS) {
        runSystemTransfer(state, ix);
        unitsConsumed += 150;
      } else if (program === state.programId) {
        const ctx: InstructionContext = {
          state,
          programId: state.programId,
          treasury,
          blockTime: BigInt(blockTime),
          force: input.force ?? {},
          log: (line) => logs.push(line),
          emit: (event: KnownProgramEvent) => {
            events.push(event);
            logs.push(`Program data: ${Buffer.from(encodeProgramEvent(event)).toString('base64')}`);
          },
          transfer: (from, to, lamports) => {
            logs.push(
              `Program ${SYSTEM_PROGRAM_ADDRESS} invoke [2]`,
              `Program ${SYSTEM_PROGRAM_ADDRESS} success`,
            );
            state.lamports.set(from, state.balance(from) - (state.balance(from) >= lamports ? lamports : 0n));
            state.credit(to, lamports);
            inner.push({
              index,
              programAddress: SYSTEM_PROGRAM_ADDRESS,
              accounts: [from, to],
              data: transferData(lamports),
            });
          },
        };
        const before = logs.length;
        try {
          await runVaultInstruction(ctx, ix);
        } finally {
          const name = (logs[before] ?? '').replace('Program log: Instruction: ', '');
          const units = (VAULT_UNITS[name] ?? 6_418) + 37 * (logs.length - before);
          unitsConsumed += units;
          logs.push(
            `Program ${program} consumed ${units} of ${(budget ?? 200_000) - unitsConsumed + units} compute units`,
          );
        }
      }
      logs.push(`Program ${program} success`);
    } catch (error) {
      const failure =
        error instanceof ProgramFailure
          ? error
          : new ProgramFailure('ProgramFailedToComplete', String(error));
      const detail = typeof failure.error === 'number' ? { Custom: failure.error } : failure.error;
      const text =
        typeof failure.error === 'number'
          ? `custom program error: 0x${failure.error.toString(16)}`
          : failure.message;
      logs.push(`Program ${program} failed: ${text}`);
      err = { InstructionError: [index, detail] };
      break;
    }
  }

  if (err !== null || options.dryRun) restore();
  const fee = LAMPORTS_PER_SIGNATURE * BigInt(shape.header.numRequiredSignatures);
  if (!options.dryRun && state.balance(input.feePayer) >= fee) state.credit(input.feePayer, -fee);
  const signatures =
    input.signatures ?? Array.from({ length: shape.header.numRequiredSignatures }, () => randomBase58(64));
  const truncated = truncateLogs(logs, input.truncateAfterEvents);
  const record: TransactionRecord = {
    seq: state.transactions.length,
    signature: signatures[0] ?? randomBase58(64),
    signatures,
    slot: options.dryRun || input.sameSlot ? state.slot : state.advanceSlot(),
    blockTime,
    err,
    logs: truncated,
    fee: Number(fee),
    computeUnitsConsumed: unitsConsumed,
    accountKeys: shape.accountKeys,
    header: shape.header,
    instructions: input.instructions.map((ix) => ({
      programIdIndex: shape.accountKeys.indexOf(ix.programAddress),
      accounts: ix.accounts.map((meta) => shape.accountKeys.indexOf(meta.address)),
      data: ix.data,
    })),
    innerInstructions: err === null ? inner : [],
    preBalances,
    postBalances: shape.accountKeys.map((key) => state.balance(key)),
    recentBlockhash: input.recentBlockhash ?? state.latestBlockhash().blockhash,
    version: input.version ?? 'legacy',
    wire: input.wire ?? null,
    events,
    mentionsProgram: shape.accountKeys.includes(state.programId),
  };
  if (!options.dryRun) state.record(record);
  return { record, err, unitsConsumed };
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
