// The preview of an approve: what the owner signs (instructions, compute units, fees) and what it does
// to the balances of the payer, the vault, the destination and the treasury, or why it would fail.
import type { BalanceChange, TransactionPreview } from '@vaultkeeper/client';
import type { LandingOutcome } from '../landing/transaction-landing.js';

export type { TransactionPreview };
export type BalanceRole = BalanceChange['role'];

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
