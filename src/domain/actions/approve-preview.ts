// The preview of an approve: what the owner signs (instructions, compute units, fees) and what it does
// to the balances of the payer, the vault, the destination and the treasury, or why it would fail.
import type { LandingOutcome } from '../landing/transaction-landing.js';

export type BalanceRole = 'payer' | 'vault' | 'destination' | 'treasury';

export interface TransactionPreview {
  instructions: string[];
  /** The SetComputeUnitLimit the transaction carries (null when the simulation failed). */
  computeUnits: number | null;
  priorityFeeLamports: string;
  networkFeeLamports: string;
  simulationError: {
    message: string;
    programError: { code: number; name: string } | null;
    runtimeError: string | null;
  } | null;
  balanceChanges: { address: string; role: BalanceRole; before: string; after: string; delta: string }[];
}

/** Balances come in the order payer, then `roles` after it (vault, destination, treasury). */
export function toPreview(outcome: LandingOutcome, roles: readonly BalanceRole[]): TransactionPreview {
  if (!outcome.ok) {
    const { programError, runtimeError } = outcome.failure;
    return {
      instructions: [...outcome.instructions],
      computeUnits: null,
      priorityFeeLamports: '0',
      networkFeeLamports: outcome.networkFeeLamports.toString(),
      simulationError: {
        message: outcome.message,
        programError: programError && { code: programError.code, name: programError.name },
        runtimeError,
      },
      balanceChanges: [],
    };
  }
  return {
    instructions: [...outcome.instructions],
    computeUnits: outcome.computeUnits,
    priorityFeeLamports: outcome.priorityFeeLamports.toString(),
    networkFeeLamports: outcome.networkFeeLamports.toString(),
    simulationError: null,
    balanceChanges: outcome.balances.map((b, i) => ({
      address: b.address,
      role: roles[i] ?? 'payer',
      before: b.before.toString(),
      after: b.after.toString(),
      delta: (b.after - b.before).toString(),
    })),
  };
}
