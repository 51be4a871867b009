// Action chaining after an approve: the wallet posts the signature it sent; the service reads that
// transaction from the cluster and answers a completed Action, or why it is not this request's approval.
import { AppError } from '../../errors.js';
import { decodeBase58 } from '../../lib/ed25519.js';
import type { LandingChain } from '../landing/landing-port.js';
import {
  decodeSimulationFailure,
  describeFailure,
  type FailureContext,
} from '../landing/simulation-failure.js';
import { onRpc } from '../landing/transaction-landing.js';
import { explainApproveFailure } from './approve-failures.js';

/** How long a signature may take to become visible at `confirmed` before the answer is 404. */
export const CONFIRM_TIMEOUT_MS = 10_000;
const POLL_MS = 400;

export interface ApprovalTarget {
  readonly vault: string;
  readonly authority: string;
  readonly destination: string;
  readonly amount: bigint;
  /** The PendingOverride PDA of the request's on-chain override (null while it has none). */
  readonly linkedOverride: string | null;
}

/** The recorded transaction of `signature`, once it approved and executed exactly this request. */
export async function confirmApproval(
  deps: { chain: LandingChain; timeoutMs?: number },
  target: ApprovalTarget,
  input: { account: string; signature: string },
): Promise<void> {
  const bytes = decodeBase58(input.signature);
  if (bytes === null || bytes.length !== 64) {
    throw new AppError('VALIDATION_ERROR', 'signature: must be a base58 transaction signature', {
      issues: [{ path: 'body.signature', message: 'must be a base58 transaction signature' }],
    });
  }
  const recorded = await readWithin(deps, input.signature);
  if (recorded === null) {
    throw new AppError(
      'TRANSACTION_NOT_FOUND',
      `Transaction ${input.signature} did not appear on the network within ${Math.round((deps.timeoutMs ?? CONFIRM_TIMEOUT_MS) / 1000)} s; if it was sent, it may have expired: approve again`,
      { signature: input.signature },
    );
  }
  if (recorded.err !== null && recorded.err !== undefined) {
    const ctx: FailureContext = {
      feePayer: recorded.feePayer,
      instructionNames: deps.chain.nameInstructions(recorded.instructions),
      programs: recorded.instructions.map((ix) => ix.programAddress),
      networkFeeLamports: 5_000n,
      findProgramError: deps.chain.findProgramError,
    };
    const failure = decodeSimulationFailure(recorded.err, recorded.logs, ctx);
    const facts = { vaultLamports: null, feeBasisPoints: 0, amount: target.amount };
    const sentence = explainApproveFailure(failure, facts) ?? describeFailure(failure, ctx);
    throw new AppError('TRANSACTION_FAILED', `The approval transaction failed on-chain. ${sentence}`, {
      signature: input.signature,
      instruction: failure.instruction,
      programError: failure.programError && {
        code: failure.programError.code,
        name: failure.programError.name,
      },
      runtimeError: failure.runtimeError,
      logs: failure.logs,
    });
  }
  const approves = deps.chain
    .findApprovedTransfers(recorded.instructions)
    .some(
      (t) =>
        t.vault === target.vault &&
        t.authority === target.authority &&
        t.destination === target.destination &&
        (t.createdAmount === target.amount ||
          (t.createdAmount === null && t.pendingOverride === target.linkedOverride)),
    );
  if (!approves || recorded.feePayer !== input.account) {
    throw new AppError(
      'TRANSACTION_MISMATCH',
      `Transaction ${input.signature} does not approve this transfer; it changed nothing for this request`,
      { signature: input.signature },
    );
  }
}

async function readWithin(deps: { chain: LandingChain; timeoutMs?: number }, signature: string) {
  const deadline = Date.now() + (deps.timeoutMs ?? CONFIRM_TIMEOUT_MS);
  for (;;) {
    const found = await onRpc(() => deps.chain.getTransaction(signature, AbortSignal.timeout(8_000)));
    if (found !== null || Date.now() + POLL_MS > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
