// Action chaining after an approve: the wallet posts the signature it sent; the service waits for the
// cluster to report it (cheap status polls, backing off), reads that transaction once it landed, and
// answers a completed Action, or why it is not this request's approval.
import { AppError } from '../../errors.js';
import { decodeBase58 } from '../../lib/ed25519.js';
import type { LandingChain, SignatureStatus } from '../landing/landing-port.js';
import {
  decodeSimulationFailure,
  describeFailure,
  type FailureContext,
} from '../landing/simulation-failure.js';
import { onRpc } from '../landing/transaction-landing.js';
import { explainApproveFailure } from './approve-failures.js';

/** How long a signature may take to become visible at `confirmed` before the answer is 404. */
export const CONFIRM_TIMEOUT_MS = 10_000;
/** Status polls back off: the first at once, the next after 250 ms, doubling to every 2 s. */
export const FIRST_POLL_DELAY_MS = 250;
export const MAX_POLL_DELAY_MS = 2_000;
const RPC_TIMEOUT_MS = 8_000;

export interface ApprovalTarget {
  readonly vault: string;
  readonly authority: string;
  readonly destination: string;
  readonly amount: bigint;
  /** The PendingOverride PDA of the request's on-chain override (null while it has none). */
  readonly linkedOverride: string | null;
}

/** 400 unless `signature` is the base58 text of a 64-byte transaction signature. */
export function assertTransactionSignature(signature: string): void {
  const bytes = decodeBase58(signature);
  if (bytes === null || bytes.length !== 64) {
    throw new AppError('VALIDATION_ERROR', 'signature: must be a base58 transaction signature', {
      issues: [{ path: 'body.signature', message: 'must be a base58 transaction signature' }],
    });
  }
}

/**
 * The recorded transaction of `signature`, once it approved and executed exactly this request. The
 * caller has checked the signature's form and that `account` may decide (no RPC call before that).
 */
export async function confirmApproval(
  deps: { chain: LandingChain; timeoutMs?: number },
  target: ApprovalTarget,
  input: { account: string; signature: string },
): Promise<void> {
  const recorded = await readLanded(deps, input.signature);
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

/** Landed: the cluster holds it at `confirmed` or deeper, or it ran and failed. */
function isLanded(status: SignatureStatus | null): boolean {
  if (status === null) return false;
  if (status.err !== null && status.err !== undefined) return true;
  return status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized';
}

/**
 * Polls the signature's status until it landed, then reads the transaction (again on each later poll
 * while the node does not serve it yet); null when the deadline passes first. Polls run at 0, 0.25,
 * 0.75, 1.75 s and then every 2 s: within 10 s at most 8 polls, each one RPC call, but the poll that
 * sees the landing, which makes two.
 */
export async function readLanded(deps: { chain: LandingChain; timeoutMs?: number }, signature: string) {
  const deadline = Date.now() + (deps.timeoutMs ?? CONFIRM_TIMEOUT_MS);
  let landed = false;
  for (let poll = 0, delay = FIRST_POLL_DELAY_MS; ; poll += 1) {
    if (!landed) {
      // The first look also searches the ledger's history (a transaction sent minutes ago); later ones
      // only the node's recent status cache, where a transaction landing meanwhile shows up.
      const options = { searchHistory: poll === 0 };
      const status = await onRpc(() =>
        deps.chain.getSignatureStatus(signature, options, AbortSignal.timeout(RPC_TIMEOUT_MS)),
      );
      landed = isLanded(status);
    }
    if (landed) {
      const found = await onRpc(() =>
        deps.chain.getTransaction(signature, AbortSignal.timeout(RPC_TIMEOUT_MS)),
      );
      if (found !== null) return found;
    }
    if (Date.now() + delay > deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, MAX_POLL_DELAY_MS);
  }
}
