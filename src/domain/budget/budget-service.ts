// An agent's budget and its pre-flight check of a transfer: the vault's chain state (its account, its
// balance and the cluster's Clock, as of one slot) judged by the program's rules. Vaults the service does
// not know are 404 before anything is asked of the chain.
import { AppError, validationError } from '../../errors.js';
import { parseLamports } from '../../lib/lamports.js';
import type { Database } from '../../storage/database.js';
import { createOpenOverrideReader } from '../overrides/pending-overrides.js';
import { vaultNotFound } from '../vaults/vault-reads.js';
import type { VaultDetail } from '../vaults/vault-resource.js';
import {
  type Budget,
  type TransferCheck,
  toBudget,
  toTransferCheck,
  type VaultAtSlot,
} from './budget-resource.js';
import type { VaultChainStateReader } from './vault-chain-state.js';

export interface BudgetServiceDeps {
  readonly db: Database;
  /** The vault by address or record uuid (cached); unknown: VAULT_NOT_FOUND. */
  readonly getVault: (idOrAddress: string) => Promise<Pick<VaultDetail, 'id' | 'address' | 'depositAddress'>>;
  readonly chain: VaultChainStateReader;
  readonly publicBaseUrl: string;
  /** How long the chain may take before the request fails with RPC_UNAVAILABLE. */
  readonly chainTimeoutMs: number;
  readonly logger?: { warn(object: object, message: string): void };
}

export interface TransferCheckQuery {
  destination: string;
  amount: string;
  agent?: string | undefined;
}

export function createBudgetService(deps: BudgetServiceDeps) {
  const listOpenOverrides = createOpenOverrideReader(deps.db);
  async function readVault(idOrAddress: string): Promise<VaultAtSlot & { id: string }> {
    const vault = await deps.getVault(idOrAddress);
    let state: Awaited<ReturnType<VaultChainStateReader['read']>>;
    try {
      state = await deps.chain.read(vault.address, vault.depositAddress, deps.chainTimeoutMs);
    } catch (error) {
      deps.logger?.warn(
        { vault: vault.address, err: error instanceof Error ? error.message : String(error) },
        'chain read for a budget or check failed',
      );
      throw new AppError(
        'RPC_UNAVAILABLE',
        'The Solana RPC node is unavailable; try again shortly',
        {},
        { cause: error },
      );
    }
    if (state.vault.status === 'missing') throw vaultNotFound(vault.address, 'account_not_found');
    if (state.vault.status === 'invalid') throw vaultNotFound(vault.address, 'not_a_vault_account');
    return {
      id: vault.id,
      vault: vault.address,
      policy: state.vault.policy,
      balance: state.balance,
      slot: state.slot,
      now: state.clockTime,
    };
  }

  return {
    /** The vault's chain state as of one slot (the relay reads its agent signer from it). */
    getVaultState: readVault,
    /** What the agent may still send, until when, under which rules; and the vault's pending overrides. */
    async getBudget(idOrAddress: string): Promise<Budget> {
      const state = await readVault(idOrAddress);
      const pending = await listOpenOverrides({
        vaultId: state.id,
        at: new Date(Number(state.now) * 1000),
        publicBaseUrl: deps.publicBaseUrl,
      });
      return toBudget(state, pending);
    },

    /** What the program would do with this transfer now: allowed, blocked (and why), or refused. */
    async checkTransfer(idOrAddress: string, query: TransferCheckQuery): Promise<TransferCheck> {
      const amount = parseLamports(query.amount);
      if (amount === null) {
        throw validationError([
          { path: 'query.amount', message: 'must be a whole number of lamports from 1 to 2^64-1' },
        ]);
      }
      const state = await readVault(idOrAddress);
      return toTransferCheck(state, { destination: query.destination, amount, agent: query.agent });
    },
  };
}

export type BudgetService = ReturnType<typeof createBudgetService>;
