import {
  type AccountMeta,
  type Address,
  createNoopSigner,
  type Instruction,
  type TransactionSigner,
} from '@solana/kit';
import { BLOCK_REASONS, type BlockReason } from '../domain/transactions/transaction-resource.js';
import {
  getAddToWhitelistInstruction,
  getApproveOverrideInstruction,
  getCreateOverrideInstruction,
  getExecuteApprovedOverrideInstruction,
  getInitializeVaultInstruction,
  getPauseVaultInstruction,
  getRemoveFromWhitelistInstruction,
  getResumeVaultInstruction,
  getUpdateAgentSignerInstruction,
  getUpdateDailyLimitInstruction,
} from './generated/instructions/index.js';
import type { VaultInstruction } from './instruction-codecs.js';
import {
  findPendingOverrideAddress,
  findTreasuryAddress,
  findVaultAddress,
  findVaultAuthorityAddress,
} from './pdas.js';
import { DEFAULT_PROGRAM_ID, getEnumIndex } from './program.js';

export {
  type DecodedInstruction,
  decodeInstruction,
  type InstructionArgsMap,
  type VaultInstruction,
} from './instruction-codecs.js';

/**
 * Builders of the vault program's instructions over the ones rendered from the IDL; PDAs are derived (for
 * any program id) unless the caller passes them.
 */

/**
 * The generated builders take the owner as a signer; the service builds unsigned transactions for the
 * owner's wallet, so a no-op signer stands in for the address and is dropped from the account metas.
 */
function unsigned<A extends { authority: Address }>(
  build: Builder<Omit<A, 'authority'>>,
  programId: Address,
  input: A,
): VaultInstruction {
  const ix = build({ ...input, authority: createNoopSigner(input.authority) }, { programAddress: programId });
  const accounts = ix.accounts.map(({ address, role }): AccountMeta => ({ address, role }));
  return { programAddress: ix.programAddress, accounts, data: ix.data as Uint8Array };
}

type Builder<A> = (
  input: A & { authority: TransactionSigner },
  config: { programAddress: Address },
) => Instruction & { accounts: readonly AccountMeta[] };

type Base = { programId?: Address; authority: Address; vaultNonce: bigint; vault?: Address };

async function resolveVault(programId: Address, input: Base): Promise<Address> {
  return input.vault ?? (await findVaultAddress(programId, input.authority, input.vaultNonce))[0];
}

async function resolveOverride(
  programId: Address,
  vault: Address,
  input: { pendingOverride?: Address; overrideNonce: bigint },
): Promise<Address> {
  return (
    input.pendingOverride ?? (await findPendingOverrideAddress(programId, vault, input.overrideNonce))[0]
  );
}

export async function buildInitializeVaultInstruction(input: {
  programId?: Address;
  authority: Address;
  nonce: bigint;
  agentSigner: Address;
  dailyLimit: bigint;
  name: string;
  vault?: Address;
  vaultAuthority?: Address;
}): Promise<VaultInstruction> {
  const programId = input.programId ?? DEFAULT_PROGRAM_ID;
  const vault = await resolveVault(programId, { ...input, vaultNonce: input.nonce });
  const vaultAuthority = input.vaultAuthority ?? (await findVaultAuthorityAddress(programId, vault))[0];
  return unsigned(getInitializeVaultInstruction, programId, { ...input, vault, vaultAuthority });
}

/** `overrideNonce` is the vault's current override_nonce: the program seeds the new PDA with it. */
export async function buildCreateOverrideInstruction(
  input: Base & {
    overrideNonce: bigint;
    pendingOverride?: Address;
    destination: Address;
    amount: bigint;
    reason: BlockReason;
  },
): Promise<VaultInstruction> {
  const programId = input.programId ?? DEFAULT_PROGRAM_ID;
  const vault = await resolveVault(programId, input);
  const pendingOverride = await resolveOverride(programId, vault, input);
  const reason = getEnumIndex(BLOCK_REASONS, input.reason, 'BlockReason');
  return unsigned(getCreateOverrideInstruction, programId, { ...input, vault, pendingOverride, reason });
}

export async function buildApproveOverrideInstruction(
  input: Base & { overrideNonce: bigint; pendingOverride?: Address },
): Promise<VaultInstruction> {
  const programId = input.programId ?? DEFAULT_PROGRAM_ID;
  const vault = await resolveVault(programId, input);
  const pendingOverride = await resolveOverride(programId, vault, input);
  return unsigned(getApproveOverrideInstruction, programId, { ...input, vault, pendingOverride });
}

type TransferAccounts = { destination: Address; vaultAuthority?: Address; feeTreasury?: Address };

async function resolveTransfer(programId: Address, vault: Address, input: TransferAccounts) {
  return {
    vaultAuthority: input.vaultAuthority ?? (await findVaultAuthorityAddress(programId, vault))[0],
    destination: input.destination,
    feeTreasury: input.feeTreasury ?? (await findTreasuryAddress(programId))[0],
  };
}

/** `destination` must be the override's destination (the program checks it). */
export async function buildExecuteApprovedOverrideInstruction(
  input: Base & TransferAccounts & { overrideNonce: bigint; pendingOverride?: Address },
): Promise<VaultInstruction> {
  const programId = input.programId ?? DEFAULT_PROGRAM_ID;
  const vault = await resolveVault(programId, input);
  const pendingOverride = await resolveOverride(programId, vault, input);
  const transfer = await resolveTransfer(programId, vault, input);
  return unsigned(getExecuteApprovedOverrideInstruction, programId, {
    ...input,
    vault,
    pendingOverride,
    ...transfer,
  });
}

async function buildOwnerUpdate<A extends Base>(
  build: Builder<Omit<A, 'authority'> & { vault: Address }>,
  input: A,
): Promise<VaultInstruction> {
  const programId = input.programId ?? DEFAULT_PROGRAM_ID;
  const vault = await resolveVault(programId, input);
  return unsigned(build as Builder<Omit<A, 'authority'>>, programId, { ...input, vault });
}

export function buildUpdateDailyLimitInstruction(
  input: Base & { newDailyLimit: bigint },
): Promise<VaultInstruction> {
  return buildOwnerUpdate(getUpdateDailyLimitInstruction, input);
}

export function buildUpdateAgentSignerInstruction(
  input: Base & { newAgentSigner: Address },
): Promise<VaultInstruction> {
  return buildOwnerUpdate(getUpdateAgentSignerInstruction, input);
}

export function buildAddToWhitelistInstruction(
  input: Base & { address: Address },
): Promise<VaultInstruction> {
  return buildOwnerUpdate(getAddToWhitelistInstruction, input);
}

export function buildRemoveFromWhitelistInstruction(
  input: Base & { address: Address },
): Promise<VaultInstruction> {
  return buildOwnerUpdate(getRemoveFromWhitelistInstruction, input);
}

export function buildPauseVaultInstruction(input: Base): Promise<VaultInstruction> {
  return buildOwnerUpdate(getPauseVaultInstruction, input);
}

export function buildResumeVaultInstruction(input: Base): Promise<VaultInstruction> {
  return buildOwnerUpdate(getResumeVaultInstruction, input);
}
