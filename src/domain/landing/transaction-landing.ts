// Makes a built transaction ready to land, for every builder (approve; POST and PATCH vault): the
// builder's reads, the blockhash and the fee estimate run concurrently; then one simulation; then the
// compute budget from the simulated consumption and the price from recent fees; then hand out or explain.
import { type Instruction, isSignerRole } from '@solana/kit';
import { AppError } from '../../errors.js';
import type { LandingChain } from './landing-port.js';
import { createLatestBlockhashSource } from './latest-blockhash.js';
import {
  capPrice,
  createPriorityFeeEstimator,
  getPriorityFeeLamports,
  type PriorityFeeSettings,
} from './priority-fee.js';
import {
  decodeSimulationFailure,
  describeFailure,
  type FailureContext,
  type SimulationFailure,
  simulationFailed,
} from './simulation-failure.js';

/** The limit a transaction is simulated with: the runtime's maximum. */
export const SIMULATION_UNIT_LIMIT = 1_400_000;
const LAMPORTS_PER_SIGNATURE = 5_000n;
const RPC_TIMEOUT_MS = 8_000;

/** u = ceil(c × 1.1) + 1 000: the simulated consumption plus headroom. */
export function getComputeUnitLimit(unitsConsumed: number): number {
  return Math.ceil(unitsConsumed * 1.1) + 1_000;
}

export interface LandingRequest {
  readonly feePayer: string;
  /** Writable accounts known before the builder's reads: the fee estimate runs beside those reads. */
  readonly writableAccounts: readonly string[];
  /** The builder's own chain reads and instructions (compute budget excluded). */
  readonly build: () => Promise<readonly Instruction[]>;
  /** Accounts whose balances before and after are wanted (the preview); the fee payer is always watched. */
  readonly watch?: readonly string[];
  /** The builder's sentence for a failure it knows more about (null: the generic one). */
  readonly explain?: (failure: SimulationFailure) => string | null;
  /** Refuses a transaction over the packet limit with the builder's error. */
  readonly onOversize?: (bytes: number) => AppError;
  /**
   * A failure the builder expects and hands the transaction out anyway, its budget from the failing
   * run (an agent's transfer the program blocks lands to ask the owner for an approval).
   */
  readonly tolerate?: (failure: SimulationFailure) => boolean;
}

export interface LandingResult {
  readonly instructions: readonly string[];
  readonly computeUnits: number;
  readonly computeUnitPrice: bigint | null;
  readonly priorityFeeLamports: bigint;
  readonly networkFeeLamports: bigint;
  readonly unitsConsumed: number;
  /** The block height after which the transaction can no longer land. */
  readonly lastValidBlockHeight: bigint;
  /** Watched accounts (fee payer first): lamports now and after the transaction, fees included. */
  readonly balances: readonly { address: string; before: bigint; after: bigint }[];
}

export type LandingOutcome =
  | (LandingResult & { readonly ok: true; readonly transaction: string })
  | {
      readonly ok: false;
      readonly message: string;
      readonly failure: SimulationFailure;
      readonly instructions: readonly string[];
      readonly networkFeeLamports: bigint;
    };

/** Solana's packet limit: a transaction larger than this cannot be sent. */
export const MAX_TRANSACTION_BYTES = 1232;

export function createTransactionLanding(deps: {
  readonly chain: LandingChain;
  readonly settings: PriorityFeeSettings;
  readonly clock: { now(): Date };
  readonly logger: { warn(obj: object, msg: string): void };
}) {
  const { chain, settings } = deps;
  const blockhash = createLatestBlockhashSource((signal) => chain.getLatestBlockhash(signal), {
    clock: deps.clock,
    onError: (error) => deps.logger.warn({ err: error }, 'getLatestBlockhash failed'),
  });
  const fees = createPriorityFeeEstimator({
    settings,
    fetchFees: (accounts) => chain.getRecentPrioritizationFees(accounts, AbortSignal.timeout(RPC_TIMEOUT_MS)),
    now: () => deps.clock.now().getTime(),
    onError: (error) =>
      deps.logger.warn({ err: error }, 'getRecentPrioritizationFees failed; using the last estimate'),
  });

  const ctx: LandingContext = { chain, settings, blockhash, fees };
  const run = (request: LandingRequest) => runLanding(ctx, request);
  return {
    /** The outcome either way: a transaction to hand out, or the failure in words (the preview). */
    simulate: run,
    /** The transaction to hand out; a failing simulation is 422 SIMULATION_FAILED, never a transaction. */
    async prepare(request: LandingRequest): Promise<LandingResult & { transaction: string }> {
      const outcome = await run(request);
      if (!outcome.ok) throw simulationFailed(outcome.message, outcome.failure);
      return outcome;
    },
  };
}

interface LandingContext {
  readonly chain: LandingChain;
  readonly settings: PriorityFeeSettings;
  readonly blockhash: ReturnType<typeof createLatestBlockhashSource>;
  readonly fees: ReturnType<typeof createPriorityFeeEstimator>;
}

/** reads (concurrently) → one simulation → compute budget and price → the transaction, or the failure. */
async function runLanding(landing: LandingContext, request: LandingRequest): Promise<LandingOutcome> {
  const { chain, settings, blockhash, fees } = landing;
  const signal = AbortSignal.timeout(RPC_TIMEOUT_MS);
  const watch = [...new Set([request.feePayer, ...(request.watch ?? [])])];
  const [instructions, latestBlockhash, price, before] = await Promise.all([
    request.build(),
    onRpc(() => blockhash.get()),
    fees.estimate(request.writableAccounts),
    request.watch === undefined ? null : onRpc(() => chain.getBalances(watch, signal)),
  ]);
  const budgetNames = ['SetComputeUnitLimit', ...(price === null ? [] : ['SetComputeUnitPrice'])];
  const names = [...budgetNames, ...chain.nameInstructions(instructions)];
  const compile = (computeUnitLimit: number, computeUnitPrice: bigint | null) =>
    chain.compileTransaction({
      feePayer: request.feePayer,
      latestBlockhash,
      instructions,
      computeUnitLimit,
      computeUnitPrice,
    });
  // Simulated at price 0 (same instructions, same units) so the payer is not asked for a fee it may not need.
  const simulated = compile(SIMULATION_UNIT_LIMIT, price === null ? null : 0n);
  assertSize(simulated, request);
  const result = await onRpc(() => chain.simulateTransaction(simulated, watch, signal));
  const networkFeeLamports = LAMPORTS_PER_SIGNATURE * BigInt(countSigners(request.feePayer, instructions));
  const ctx: FailureContext = {
    feePayer: request.feePayer,
    instructionNames: names,
    programs: [...budgetNames.map(() => 'ComputeBudget'), ...instructions.map((ix) => ix.programAddress)],
    networkFeeLamports,
    findProgramError: chain.findProgramError,
  };
  const fail = (failure: SimulationFailure): LandingOutcome => ({
    ok: false,
    failure,
    message: request.explain?.(failure) ?? describeFailure(failure, ctx),
    instructions: names,
    networkFeeLamports,
  });
  if (result.err !== null && result.err !== undefined) {
    const failure = decodeSimulationFailure(result.err, result.logs, ctx);
    if (request.tolerate?.(failure) !== true) return fail(failure);
  }

  const computeUnits = getComputeUnitLimit(result.unitsConsumed);
  const computeUnitPrice = price === null ? null : capPrice(price, computeUnits, settings.maxLamports);
  const priorityFeeLamports = getPriorityFeeLamports(computeUnitPrice, computeUnits);
  const payerAfter = (result.lamports[0] ?? 0n) - priorityFeeLamports;
  if (payerAfter < 0n) {
    const failure = {
      instructionIndex: null,
      instruction: null,
      programError: null,
      runtimeError: 'InsufficientFundsForFee',
      logs: [],
    };
    return fail(failure);
  }
  const transaction = compile(computeUnits, computeUnitPrice);
  assertSize(transaction, request);
  return {
    ok: true,
    transaction,
    instructions: names,
    computeUnits,
    computeUnitPrice,
    priorityFeeLamports,
    networkFeeLamports,
    unitsConsumed: result.unitsConsumed,
    lastValidBlockHeight: BigInt(latestBlockhash.lastValidBlockHeight),
    balances: (before ?? []).map((lamports, i) => ({
      address: watch[i] ?? '',
      before: lamports ?? 0n,
      after: i === 0 ? payerAfter : (result.lamports[i] ?? 0n),
    })),
  };
}

export type TransactionLanding = ReturnType<typeof createTransactionLanding>;

function assertSize(transaction: string, request: LandingRequest): void {
  const bytes = Buffer.byteLength(transaction, 'base64');
  if (bytes > MAX_TRANSACTION_BYTES && request.onOversize) throw request.onOversize(bytes);
}

function countSigners(feePayer: string, instructions: readonly Instruction[]): number {
  const signers = new Set([feePayer]);
  for (const ix of instructions) {
    for (const meta of ix.accounts ?? []) if (isSignerRole(meta.role)) signers.add(meta.address);
  }
  return signers.size;
}

/** RPC transport or node failures become 503 RPC_UNAVAILABLE; our own errors pass through. */
export async function onRpc<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof AppError && error.code !== 'RPC_UNAVAILABLE') throw error;
    throw new AppError(
      'RPC_UNAVAILABLE',
      'The Solana RPC node is unavailable; try again shortly',
      {},
      { cause: error },
    );
  }
}
