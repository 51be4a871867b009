// What making a transaction land needs from the chain: the RPC calls and the wire codecs. The domain
// declares it; src/chain/landing-chain.ts implements it.
import type { Instruction } from '@solana/kit';
import type { LatestBlockhash } from './latest-blockhash.js';

/** A simulation as the node answers it: `err` in the RPC's JSON shape, lamports of the accounts asked for. */
export interface SimulationResult {
  readonly err: unknown;
  readonly logs: readonly string[];
  readonly unitsConsumed: number;
  /** Lamports after the simulated run, in the order asked (null: the account does not exist). */
  readonly lamports: readonly (bigint | null)[];
}

/** A program's error as its interface declares it. */
export interface ProgramErrorInfo {
  readonly code: number;
  readonly name: string;
  readonly message: string;
}

export interface ApprovedTransfer {
  readonly vault: string;
  readonly pendingOverride: string;
  readonly authority: string;
  readonly destination: string;
  /** The amount of a create_override for the same override in the transaction; null without one. */
  readonly createdAmount: bigint | null;
}

/** A transaction as the cluster recorded it (confirmed). */
export interface RecordedTransaction {
  readonly err: unknown;
  readonly logs: readonly string[];
  readonly feePayer: string;
  /** Instructions with their account roles as compiled (signer / writable). */
  readonly instructions: readonly Instruction[];
}

/** A signature's status as the node answers getSignatureStatuses. */
export interface SignatureStatus {
  readonly confirmationStatus: 'processed' | 'confirmed' | 'finalized' | null;
  /** The transaction's error (null when it succeeded). */
  readonly err: unknown;
}

export interface LandingChain {
  /**
   * getSignatureStatuses of one signature; null while the node knows nothing of it. Without
   * `searchHistory` the node looks only at its recent status cache (the last few minutes), a cheap lookup.
   */
  getSignatureStatus(
    signature: string,
    options: { searchHistory: boolean },
    signal: AbortSignal,
  ): Promise<SignatureStatus | null>;
  /** getTransaction at `confirmed`; null while the cluster does not know it. */
  getTransaction(signature: string, signal: AbortSignal): Promise<RecordedTransaction | null>;
  getLatestBlockhash(signal: AbortSignal): Promise<LatestBlockhash>;
  /** Recent per-slot prioritization fees (µlamports per CU) of transactions locking these accounts. */
  getRecentPrioritizationFees(accounts: readonly string[], signal: AbortSignal): Promise<bigint[]>;
  /** Lamports of each account now (null when it does not exist). */
  getBalances(accounts: readonly string[], signal: AbortSignal): Promise<(bigint | null)[]>;
  /** simulateTransaction with sigVerify off and the blockhash replaced; `accounts` post-state wanted. */
  simulateTransaction(
    transaction: string,
    accounts: readonly string[],
    signal: AbortSignal,
  ): Promise<SimulationResult>;
  /** Unsigned wire transaction, base64: SetComputeUnitLimit, SetComputeUnitPrice (unless null), then the instructions. */
  compileTransaction(input: {
    feePayer: string;
    latestBlockhash: LatestBlockhash;
    instructions: readonly Instruction[];
    computeUnitLimit: number;
    computeUnitPrice: bigint | null;
  }): string;
  /** The writable accounts of a transaction with this fee payer and these instructions. */
  listWritableAccounts(feePayer: string, instructions: readonly Instruction[]): string[];
  /** A display name per instruction (the program's instruction name, or the builtin's). */
  nameInstructions(instructions: readonly Instruction[]): string[];
  /** The approved transfers a transaction executes (execute_approved_override), with the amount its create_override named. */
  findApprovedTransfers(instructions: readonly Instruction[]): ApprovedTransfer[];
  /** The custom error `code` of `program` as declared in its interface (IDL), or null. */
  findProgramError(program: string, code: number): ProgramErrorInfo | null;
}
