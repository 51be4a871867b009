// A failed simulation in words an owner understands: the program's error by its IDL name and message,
// or the runtime's error, plus the facts a developer needs (instruction, codes, last log lines).
import { AppError } from '../../errors.js';
import { formatSol } from '../../lib/lamports.js';
import type { ProgramErrorInfo } from './landing-port.js';

/** What failed, decoded from the simulation's `err`. */
export interface SimulationFailure {
  /** Index and name of the failing instruction (compute budget ones included), or null for the whole transaction. */
  readonly instructionIndex: number | null;
  readonly instruction: string | null;
  readonly programError: ProgramErrorInfo | null;
  readonly runtimeError: string | null;
  readonly logs: readonly string[];
}

export interface FailureContext {
  readonly feePayer: string;
  readonly instructionNames: readonly string[];
  readonly programs: readonly string[];
  readonly networkFeeLamports: bigint;
  readonly findProgramError: (program: string, code: number) => ProgramErrorInfo | null;
}

const LOG_LINES = 10;

/** Decodes the RPC's TransactionError JSON (`"AccountNotFound"`, `{ InstructionError: [i, …] }`, …). */
export function decodeSimulationFailure(
  err: unknown,
  logs: readonly string[],
  ctx: FailureContext,
): SimulationFailure {
  const tail = logs.slice(-LOG_LINES);
  if (typeof err === 'string') {
    return { instructionIndex: null, instruction: null, programError: null, runtimeError: err, logs: tail };
  }
  const failed = (err as { InstructionError?: [unknown, unknown] } | null)?.InstructionError;
  if (Array.isArray(failed)) {
    const index = Number(failed[0]);
    const detail = failed[1];
    const instruction = ctx.instructionNames[index] ?? null;
    const custom = (detail as { Custom?: unknown } | null)?.Custom;
    if (custom !== undefined) {
      const program = ctx.programs[index] ?? '';
      const programError = ctx.findProgramError(program, Number(custom));
      const runtimeError = programError === null ? `Custom(${Number(custom)})` : null;
      return { instructionIndex: index, instruction, programError, runtimeError, logs: tail };
    }
    const runtimeError = typeof detail === 'string' ? detail : JSON.stringify(detail);
    return { instructionIndex: index, instruction, programError: null, runtimeError, logs: tail };
  }
  const name = err !== null && typeof err === 'object' ? (Object.keys(err)[0] ?? 'Unknown') : 'Unknown';
  return { instructionIndex: null, instruction: null, programError: null, runtimeError: name, logs: tail };
}

/** "(InsufficientFunds: Insufficient funds in vault)" or "(BlockhashNotFound)". */
export function nameCause(failure: SimulationFailure): string {
  const { programError, runtimeError } = failure;
  return programError !== null
    ? `${programError.name}: ${programError.message}`
    : (runtimeError ?? 'Unknown');
}

/** The sentence for a failure no builder explains more precisely. */
export function describeFailure(failure: SimulationFailure, ctx: FailureContext): string {
  const cause = `(${nameCause(failure)})`;
  const at = failure.instruction === null ? '' : ` at ${failure.instruction}`;
  switch (failure.runtimeError) {
    case 'AccountNotFound':
      return `The paying wallet ${ctx.feePayer} has no SOL on this network, so it cannot pay the network fee ${cause}.`;
    case 'InsufficientFundsForFee':
      return `The paying wallet ${ctx.feePayer} cannot pay the network fee of ${formatSol(ctx.networkFeeLamports)} SOL ${cause}.`;
    case 'BlockhashNotFound':
      return `The network no longer knows this transaction's recent blockhash; ask for a new transaction ${cause}.`;
    case 'AlreadyProcessed':
      return `This exact transaction was already processed by the network ${cause}.`;
    case 'ComputationalBudgetExceeded':
      return `The transaction ran out of compute units${at} ${cause}.`;
    default:
      break;
  }
  if (failure.logs.some((line) => line.startsWith('Transfer: insufficient lamports'))) {
    return `The paying wallet ${ctx.feePayer} does not hold enough SOL for the rent of the account this transaction creates${at} ${cause}.`;
  }
  if (failure.programError !== null) return `The vault program would refuse this transaction${at} ${cause}.`;
  return `The network would reject this transaction${at} ${cause}.`;
}

/** 422 SIMULATION_FAILED with the sentence and the decoded facts. */
export function simulationFailed(message: string, failure: SimulationFailure): AppError {
  const programError =
    failure.programError === null
      ? null
      : { code: failure.programError.code, name: failure.programError.name };
  return new AppError('SIMULATION_FAILED', message, {
    instruction: failure.instruction,
    programError,
    runtimeError: failure.runtimeError,
    logs: failure.logs,
  });
}
