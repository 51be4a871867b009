// An agent pays from its vault through the service: the build (the pre-flight check, then an unsigned
// execute_agent made to land as the owner's transactions are) and the relay (the agent-signed
// transaction checked, sent, confirmed, and its outcome in one answer, idempotent by key).
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Database } from '../../storage/database.js';
import type { ApprovalService } from '../approvals/approval-service.js';
import type { BudgetService } from '../budget/budget-service.js';
import type { LandingChain } from '../landing/landing-port.js';
import { onRpc, type TransactionLanding } from '../landing/transaction-landing.js';
import { getVaultRow } from '../vaults/vault-reads.js';
import type { AgentTransferChain } from './agent-transfer-port.js';
import type {
  AgentTransferBuild,
  AgentTransferBuildBody,
  AgentTransferResult,
  AgentTransferSendBody,
} from './agent-transfer-resource.js';
import { createIdempotencyStore } from './idempotency-store.js';
import { assertSignedByAgent, parseRelayedTransfer } from './relayed-transfer.js';
import { settleTransfer } from './transfer-outcome.js';

/** The program's error of each block, as its interface names it. */
const BLOCK_ERRORS: Readonly<Record<string, string>> = {
  not_whitelisted: 'NotWhitelisted',
  exceeded_daily_limit: 'DailyLimitExceeded',
  insufficient_funds: 'InsufficientFunds',
};
const SEND_TIMEOUT_MS = 8_000;

export interface AgentTransferServiceDeps {
  readonly db: Database;
  readonly clock: Clock;
  readonly budget: BudgetService;
  readonly landing: TransactionLanding;
  readonly landingChain: LandingChain;
  readonly chain: AgentTransferChain;
  readonly approvals: ApprovalService;
  /** How long the relay waits to see the transaction land, and then the override a block asked for. */
  readonly confirmTimeoutMs?: number;
}

export function createAgentTransferService(deps: AgentTransferServiceDeps) {
  const { db, budget, chain } = deps;
  const idempotency = createIdempotencyStore(db);
  const settle = (vault: string, signature: string) => settleTransfer(deps, vault, signature);

  return {
    /**
     * The check first (refused: 409 TRANSFER_REFUSED with it); then execute_agent with the compute
     * budget from a simulation and the priority fee. A transfer the check calls blocked is handed out
     * too: sent, it fails on chain and asks the owner for an approval.
     */
    async buildTransfer(vault: string, body: AgentTransferBuildBody): Promise<AgentTransferBuild> {
      const check = await budget.checkTransfer(vault, body);
      if (check.verdict === 'refused') {
        throw new AppError(
          'TRANSFER_REFUSED',
          `The vault program would refuse this transfer before its policy runs (${check.reason}); nothing was built`,
          { check },
        );
      }
      const row = await getVaultRow(db, check.vault);
      const vaultNonce = row.vaultNonce;
      if (vaultNonce === null) {
        // Ingestion has not read the VaultConfig account yet; without its nonce no instruction is valid.
        const message = 'The vault has not been read from the chain yet; retry shortly';
        throw new AppError('SERVICE_UNAVAILABLE', message, { reason: 'vault_not_synced' });
      }
      const treasury = await chain.findTreasuryAddress();
      const expected = check.verdict === 'blocked' ? BLOCK_ERRORS[check.reason ?? ''] : undefined;
      const prepared = await deps.landing.prepare({
        feePayer: body.agent,
        writableAccounts: [row.address, body.agent, row.depositAddress, body.destination, treasury],
        build: async () => [
          await chain.buildExecuteAgentInstruction({
            vault: row.address,
            vaultNonce,
            agentSigner: body.agent,
            depositAddress: row.depositAddress,
            destination: body.destination,
            amount: BigInt(check.amount),
          }),
        ],
        tolerate: (failure) => expected !== undefined && failure.programError?.name === expected,
      });
      return {
        transaction: prepared.transaction,
        check,
        lastValidBlockHeight: prepared.lastValidBlockHeight.toString(),
      };
    },

    /**
     * Relays the agent-signed transaction: refused with 400 unless it is one execute_agent of this
     * vault signed by its agent signer alone; then sent (preflight skipped), confirmed and answered.
     */
    async sendTransfer(vault: string, body: AgentTransferSendBody): Promise<AgentTransferResult> {
      const row = await getVaultRow(db, vault);
      const parsed = parseRelayedTransfer(chain, row.address, body.transaction);
      const state = await budget.getVaultState(row.address);
      const transfer = await assertSignedByAgent(parsed, state.policy.agentSigner);
      const key = body.idempotencyKey;
      if (key !== undefined) {
        const claim = await idempotency.claim({
          agent: transfer.agent,
          key,
          vault: row.address,
          signature: transfer.signature,
          now: deps.clock.now(),
        });
        // The key's first request answers; one still unsettled is confirmed again, never sent again.
        if (!claim.claimed) {
          if (claim.result !== null) return claim.result;
          const settled = await settle(row.address, claim.signature);
          await idempotency.complete(transfer.agent, key, settled);
          return settled;
        }
      }
      const sent = await onRpc(() =>
        chain.sendTransaction(body.transaction, AbortSignal.timeout(SEND_TIMEOUT_MS)),
      ).catch(async (error: unknown) => {
        if (key !== undefined) await idempotency.release(transfer.agent, key);
        throw error;
      });
      const result: AgentTransferResult =
        sent.rejected === null
          ? await settle(row.address, transfer.signature)
          : { status: 'failed', signature: transfer.signature, reason: sent.rejected };
      if (key !== undefined) await idempotency.complete(transfer.agent, key, result);
      return result;
    },
  };
}

export type AgentTransferService = ReturnType<typeof createAgentTransferService>;
