import type { Address } from '@solana/kit';
import type { BlockReason } from '../domain/transactions/transaction-resource.js';
import {
  createVaultInstruction,
  type InstructionArgsMap,
  type VaultInstruction,
} from './instruction-codecs.js';
import {
  findPendingOverrideAddress,
  findTreasuryAddress,
  findVaultAddress,
  findVaultAuthorityAddress,
} from './pdas.js';
import { DEFAULT_PROGRAM_ID } from './program.js';

export {
  createVaultInstruction,
  type DecodedInstruction,
  decodeInstruction,
  INSTRUCTION_ACCOUNTS,
  type InstructionArgsMap,
  type VaultInstruction,
} from './instruction-codecs.js';

/** Builders of the vault program's instructions; PDAs are derived unless the caller passes them. */

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
  const { nonce, agentSigner, dailyLimit, name } = input;
  return createVaultInstruction(
    programId,
    'initialize_vault',
    { vault, vault_authority: vaultAuthority, authority: input.authority },
    { nonce, agentSigner, dailyLimit, name },
  );
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
  const { vaultNonce, destination, amount, reason } = input;
  return createVaultInstruction(
    programId,
    'create_override',
    { vault, authority: input.authority, pending_override: pendingOverride },
    { vaultNonce, destination, amount, reason },
  );
}

export async function buildApproveOverrideInstruction(
  input: Base & { overrideNonce: bigint; pendingOverride?: Address },
): Promise<VaultInstruction> {
  const programId = input.programId ?? DEFAULT_PROGRAM_ID;
  const vault = await resolveVault(programId, input);
  const pendingOverride = await resolveOverride(programId, vault, input);
  return createVaultInstruction(
    programId,
    'approve_override',
    { vault, authority: input.authority, pending_override: pendingOverride },
    { vaultNonce: input.vaultNonce },
  );
}

type TransferAccounts = { destination: Address; vaultAuthority?: Address; feeTreasury?: Address };

async function resolveTransfer(programId: Address, vault: Address, input: TransferAccounts) {
  return {
    vault_authority: input.vaultAuthority ?? (await findVaultAuthorityAddress(programId, vault))[0],
    destination: input.destination,
    fee_treasury: input.feeTreasury ?? (await findTreasuryAddress(programId))[0],
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
  return createVaultInstruction(
    programId,
    'execute_approved_override',
    { vault, pending_override: pendingOverride, authority: input.authority, ...transfer },
    { vaultNonce: input.vaultNonce },
  );
}

async function buildOwnerUpdate<
  K extends
    | 'update_daily_limit'
    | 'update_agent_signer'
    | 'add_to_whitelist'
    | 'remove_from_whitelist'
    | 'pause_vault'
    | 'resume_vault',
>(name: K, input: Base, args: InstructionArgsMap[K]): Promise<VaultInstruction> {
  const programId = input.programId ?? DEFAULT_PROGRAM_ID;
  const vault = await resolveVault(programId, input);
  return createVaultInstruction(programId, name, { vault, authority: input.authority }, args);
}

export function buildUpdateDailyLimitInstruction(
  input: Base & { newDailyLimit: bigint },
): Promise<VaultInstruction> {
  return buildOwnerUpdate('update_daily_limit', input, {
    vaultNonce: input.vaultNonce,
    newDailyLimit: input.newDailyLimit,
  });
}

export function buildUpdateAgentSignerInstruction(
  input: Base & { newAgentSigner: Address },
): Promise<VaultInstruction> {
  return buildOwnerUpdate('update_agent_signer', input, {
    vaultNonce: input.vaultNonce,
    newAgentSigner: input.newAgentSigner,
  });
}

export function buildAddToWhitelistInstruction(
  input: Base & { address: Address },
): Promise<VaultInstruction> {
  return buildOwnerUpdate('add_to_whitelist', input, {
    vaultNonce: input.vaultNonce,
    address: input.address,
  });
}

export function buildRemoveFromWhitelistInstruction(
  input: Base & { address: Address },
): Promise<VaultInstruction> {
  return buildOwnerUpdate('remove_from_whitelist', input, {
    vaultNonce: input.vaultNonce,
    address: input.address,
  });
}

export function buildPauseVaultInstruction(input: Base): Promise<VaultInstruction> {
  return buildOwnerUpdate('pause_vault', input, { vaultNonce: input.vaultNonce });
}

export function buildResumeVaultInstruction(input: Base): Promise<VaultInstruction> {
  return buildOwnerUpdate('resume_vault', input, { vaultNonce: input.vaultNonce });
}
