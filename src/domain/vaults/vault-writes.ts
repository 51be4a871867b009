// Vault writes: the chain holds vaults, so creating or changing one means building a transaction the
// owner signs; only the off-chain display name is applied here and now.
import { randomBytes } from 'node:crypto';
import type { Instruction } from '@solana/kit';
import { eq } from 'drizzle-orm';
import type { Cache } from '../../cache/cache.js';
import { evictVaults } from '../../cache/tags.js';
import { AppError, type ValidationIssue, validationError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Database } from '../../storage/database.js';
import { type VaultRow, vaults } from '../../storage/schema/vaults.js';
import { type AuditStamp, recordDone } from '../audit/audit-service.js';
import { assertVaultOwner } from '../auth/ownership.js';
import { MAX_TRANSACTION_BYTES, type TransactionLanding } from '../landing/transaction-landing.js';
import { getVaultRow } from './vault-reads.js';
import { toVaultDetail } from './vault-resource.js';
import { checkVaultName, checkWhitelistEdit, parseDailyLimit } from './vault-write-rules.js';

export { MAX_TRANSACTION_BYTES };

export interface VaultAddresses {
  /** The VaultConfig PDA: "the vault address". */
  readonly address: string;
  /** The vault-authority PDA that holds the SOL. */
  readonly depositAddress: string;
}

/** One owner instruction, in the order the transaction carries them. */
export type VaultChainChange =
  | { readonly kind: 'resume_vault' }
  | { readonly kind: 'update_agent_signer'; readonly agentSigner: string }
  | { readonly kind: 'update_daily_limit'; readonly dailyLimit: bigint }
  | { readonly kind: 'remove_from_whitelist'; readonly address: string }
  | { readonly kind: 'add_to_whitelist'; readonly address: string }
  | { readonly kind: 'pause_vault' };

/** Builds the program's instructions (the landing pipeline makes them a transaction, fee payer = authority). */
export interface VaultTransactionBuilder {
  findVaultAddresses(authority: string, nonce: bigint): Promise<VaultAddresses>;
  buildCreateVaultInstructions(input: {
    authority: string;
    nonce: bigint;
    agentSigner: string;
    dailyLimit: bigint;
    name: string;
    addresses: VaultAddresses;
  }): Promise<Instruction[]>;
  buildUpdateVaultInstructions(input: {
    authority: string;
    vault: string;
    vaultNonce: bigint;
    changes: readonly VaultChainChange[];
  }): Promise<Instruction[]>;
}

export interface VaultWriteDeps {
  readonly db: Database;
  readonly cache: Pick<Cache, 'deleteByTag'>;
  readonly clock: Clock;
  /** Simulates, budgets and prices the transaction; a failing one is 422 SIMULATION_FAILED. */
  readonly landing: Pick<TransactionLanding, 'prepare'>;
  readonly transactions: VaultTransactionBuilder;
}

/** Too many changes for one transaction: a VALIDATION_ERROR saying how to split them. */
function tooLarge(size: number) {
  return validationError(
    [
      {
        path: 'body',
        message: `needs a ${size}-byte transaction, over Solana's ${MAX_TRANSACTION_BYTES}; split the whitelist changes across requests`,
      },
    ],
    'Too many changes for one transaction',
  );
}

export interface CreateVaultInput {
  name: string;
  agentSigner: string;
  dailyLimit: number | string;
}

export interface UpdateVaultInput {
  name?: string;
  dailyLimit?: number | string;
  agentSigner?: string;
  paused?: boolean;
  whitelist?: { add?: string[]; remove?: string[] };
}

const CHANGE_LABELS: Record<VaultChainChange['kind'], string> = {
  resume_vault: 'resume',
  update_agent_signer: 'agent signer',
  update_daily_limit: 'daily limit',
  remove_from_whitelist: 'whitelist',
  add_to_whitelist: 'whitelist',
  pause_vault: 'pause',
};

export function createVaultWriteService(deps: VaultWriteDeps) {
  async function buildUpdate(row: VaultRow, changes: VaultChainChange[]): Promise<string | null> {
    if (changes.length === 0) return null;
    if (row.vaultNonce === null) {
      // Ingestion has not read the VaultConfig account yet; without its nonce no instruction is valid.
      const message = 'The vault has not been read from the chain yet; retry shortly';
      throw new AppError('SERVICE_UNAVAILABLE', message, { reason: 'vault_not_synced' });
    }
    const input = { authority: row.authority, vault: row.address, vaultNonce: row.vaultNonce, changes };
    const { transaction } = await deps.landing.prepare({
      feePayer: row.authority,
      writableAccounts: [row.authority, row.address],
      build: () => deps.transactions.buildUpdateVaultInstructions(input),
      onOversize: tooLarge,
    });
    return transaction;
  }

  return {
    /** Builds the `initialize_vault` transaction for a new vault owned by the signer. */
    async createVault(wallet: string, input: CreateVaultInput) {
      const issues = checkVaultName(input.name, 'body.name');
      const dailyLimit = parseDailyLimit(input.dailyLimit, 'body.dailyLimit', issues);
      if (issues.length > 0 || dailyLimit === null) throw validationError(issues);
      // A fresh random u64: the vault address is new, whatever vaults the signer already has.
      const nonce = randomBytes(8).readBigUInt64LE();
      const addresses = await deps.transactions.findVaultAddresses(wallet, nonce);
      const create = {
        authority: wallet,
        nonce,
        agentSigner: input.agentSigner,
        dailyLimit,
        name: input.name,
        addresses,
      };
      const { transaction } = await deps.landing.prepare({
        feePayer: wallet,
        writableAccounts: [wallet, addresses.address],
        build: () => deps.transactions.buildCreateVaultInstructions(create),
      });
      return {
        vault: {
          address: addresses.address,
          depositAddress: addresses.depositAddress,
          authority: wallet,
          agentSigner: input.agentSigner,
          dailyLimit: dailyLimit.toString(),
          name: input.name,
          nonce: nonce.toString(),
        },
        transaction,
        message:
          'Sign and send this transaction to create the vault. It appears in the API once the network confirms it.',
      };
    },

    /**
     * Renames at once; returns one transaction for the chain-backed changes (null when only the
     * name changed). Nothing is written unless the whole request is valid and buildable.
     */
    async updateVault(wallet: string, id: string, input: UpdateVaultInput, audit?: AuditStamp | null) {
      const row = await getVaultRow(deps.db, id);
      assertVaultOwner(wallet, row.authority);
      const changes = planChanges(row, input);
      const transaction = await buildUpdate(row, changes);
      const now = deps.clock.now();
      // The rename and the entry of this request commit together (a build alone writes only the entry).
      const updated = await deps.db.transaction(async (tx) => {
        const subject = { target: `vault:${row.address}`, vault: row.address };
        await recordDone(tx, audit, subject, now);
        if (input.name === undefined) return row;
        const [renamed = row] = await tx
          .update(vaults)
          .set({ name: input.name, nameOverridden: true, updatedAt: now })
          .where(eq(vaults.id, row.id))
          .returning();
        return renamed;
      });
      if (input.name !== undefined) await evictVaults(deps.cache, [row.address]);
      return {
        vault: toVaultDetail(updated),
        transaction,
        message: describe(input.name !== undefined, changes),
      };
    },
  };
}

/** Validates an update against the stored vault and lists its instructions in a safe order. */
function planChanges(row: VaultRow, input: UpdateVaultInput): VaultChainChange[] {
  const issues: ValidationIssue[] = [];
  if (Object.values(input).every((value) => value === undefined)) {
    issues.push({
      path: 'body',
      message: 'must change at least one of name, dailyLimit, agentSigner, paused, whitelist',
    });
  }
  if (input.name !== undefined) issues.push(...checkVaultName(input.name, 'body.name'));
  const dailyLimit =
    input.dailyLimit === undefined ? null : parseDailyLimit(input.dailyLimit, 'body.dailyLimit', issues);
  const whitelist =
    input.whitelist === undefined ? null : checkWhitelistEdit(row.whitelist, input.whitelist, issues);
  if (issues.length > 0) throw validationError(issues);
  // Resume first and pause last, so the other updates never run against a paused vault; removals
  // come before additions so a full whitelist can swap entries.
  const changes: VaultChainChange[] = [];
  if (input.paused === false) changes.push({ kind: 'resume_vault' });
  if (input.agentSigner !== undefined)
    changes.push({ kind: 'update_agent_signer', agentSigner: input.agentSigner });
  if (dailyLimit !== null) changes.push({ kind: 'update_daily_limit', dailyLimit });
  for (const address of whitelist?.remove ?? []) changes.push({ kind: 'remove_from_whitelist', address });
  for (const address of whitelist?.add ?? []) changes.push({ kind: 'add_to_whitelist', address });
  if (input.paused === true) changes.push({ kind: 'pause_vault' });
  return changes;
}

function describe(renamed: boolean, changes: readonly VaultChainChange[]): string {
  const parts = renamed ? ['Vault name updated.'] : [];
  if (changes.length > 0) {
    const labels = [...new Set(changes.map((change) => CHANGE_LABELS[change.kind]))].join(', ');
    parts.push(
      `Sign and send this transaction to apply: ${labels}. These changes appear in the API once the network confirms them.`,
    );
  }
  return parts.join(' ');
}

export type VaultWriteService = ReturnType<typeof createVaultWriteService>;
