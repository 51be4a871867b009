// The outcome of a relayed transfer, read from the cluster (§3b's confirmation: status polls, then the
// recorded transaction): executed; blocked by the program's policy, with the approval's links once the
// service has ingested the override the block asked for; or failed, with the error in words.
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../../errors.js';
import type { ApprovalService } from '../approvals/approval-service.js';
import { CONFIRM_TIMEOUT_MS, readLanded } from '../approvals/approve-confirmation.js';
import type { LandingChain } from '../landing/landing-port.js';
import {
  decodeSimulationFailure,
  describeFailure,
  type FailureContext,
  nameCause,
} from '../landing/simulation-failure.js';
import type { AgentTransferResult } from './agent-transfer-resource.js';

/** The block reason of each program error that is a block (TransactionBlocked), by the IDL's name. */
const BLOCKS: Readonly<Record<string, 'not_whitelisted' | 'exceeded_daily_limit' | 'insufficient_funds'>> = {
  NotWhitelisted: 'not_whitelisted',
  DailyLimitExceeded: 'exceeded_daily_limit',
  InsufficientFunds: 'insufficient_funds',
};
const APPROVAL_POLL_MS = 250;

export interface OutcomeDeps {
  readonly landingChain: LandingChain;
  readonly approvals: ApprovalService;
  readonly confirmTimeoutMs?: number;
}

export async function settleTransfer(
  deps: OutcomeDeps,
  vault: string,
  signature: string,
): Promise<AgentTransferResult> {
  const timeoutMs = deps.confirmTimeoutMs ?? CONFIRM_TIMEOUT_MS;
  const recorded = await readLanded({ chain: deps.landingChain, timeoutMs }, signature);
  if (recorded === null) {
    throw new AppError(
      'TRANSACTION_NOT_FOUND',
      `Transaction ${signature} was sent but did not appear on the network within ${Math.round(timeoutMs / 1000)} s; send the same request again (with the same idempotencyKey) to learn its outcome`,
      { signature },
    );
  }
  if (recorded.err === null || recorded.err === undefined) return { status: 'executed', signature };
  const ctx: FailureContext = {
    feePayer: recorded.feePayer,
    instructionNames: deps.landingChain.nameInstructions(recorded.instructions),
    programs: recorded.instructions.map((ix) => ix.programAddress),
    networkFeeLamports: 5_000n,
    findProgramError: deps.landingChain.findProgramError,
  };
  const failure = decodeSimulationFailure(recorded.err, recorded.logs, ctx);
  const reason = BLOCKS[failure.programError?.name ?? ''];
  if (reason === undefined) {
    const words =
      failure.programError === null
        ? describeFailure(failure, ctx)
        : `The vault program failed it at ${failure.instruction ?? 'an instruction'} (${nameCause(failure)}).`;
    return { status: 'failed', signature, reason: words };
  }
  if (reason === 'insufficient_funds') return { status: 'blocked', signature, reason };
  const approval = await waitForOverride(deps, vault, signature, timeoutMs);
  return { status: 'blocked', signature, reason, ...(approval === null ? {} : { approval }) };
}

/** The approval's links once the ingestor has stored the override of this blocked transfer (null at the deadline). */
async function waitForOverride(deps: OutcomeDeps, vault: string, signature: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const approval = await deps.approvals.getApproval(vault, signature);
    if (approval.nonce !== null && approval.approvalUrl !== null && approval.blinkUrl !== null) {
      return { nonce: approval.nonce, approvalUrl: approval.approvalUrl, blinkUrl: approval.blinkUrl };
    }
    if (Date.now() + APPROVAL_POLL_MS > deadline) return null;
    await sleep(APPROVAL_POLL_MS);
  }
}
