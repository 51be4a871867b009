// What an owner reads when an approve would fail: the program's refusal in the words of this request.
import { formatSol } from '../../lib/lamports.js';
import { nameCause, type SimulationFailure } from '../landing/simulation-failure.js';

/** What the approve's reads learnt, for the sentences. */
export interface ApproveFacts {
  readonly vaultLamports: bigint | null;
  readonly feeBasisPoints: number;
  readonly amount: bigint;
}

/** The sentence for a program error an approve can meet; null leaves the generic one. */
export function explainApproveFailure(failure: SimulationFailure, facts: ApproveFacts): string | null {
  const cause = `(${nameCause(failure)})`;
  switch (failure.programError?.name) {
    case 'InsufficientFunds': {
      const fee = (facts.amount * BigInt(facts.feeBasisPoints)) / 10_000n;
      const holds =
        facts.vaultLamports === null
          ? 'does not hold enough SOL'
          : `holds ${formatSol(facts.vaultLamports)} SOL`;
      return `The vault ${holds} and this transfer needs ${formatSol(facts.amount + fee)} SOL (${formatSol(facts.amount)} SOL plus the ${formatSol(fee)} SOL protocol fee); deposit more before approving ${cause}.`;
    }
    case 'VaultPaused':
      return `The vault is paused, so it sends nothing; resume it before approving this transfer ${cause}.`;
    case 'OverrideExpired':
      return `This override has expired on-chain and can no longer be approved ${cause}.`;
    case 'OverrideAlreadyExecuted':
      return `This transfer was already executed on-chain; there is nothing left to approve ${cause}.`;
    case 'ConstraintSeeds':
    case 'AccountAlreadyInitialized':
      return `Another approval took this vault's next override slot moments ago; open the approval again for a fresh transaction ${cause}.`;
    case 'UnauthorizedSigner':
    case 'ConstraintHasOne':
      return `Only the vault's owner can approve this transfer ${cause}.`;
    default:
      return null;
  }
}
