import {
  type Address,
  getAddressEncoder,
  getProgramDerivedAddress,
  getU64Encoder,
  type ProgramDerivedAddress,
} from '@solana/kit';
import { findFeeTreasuryPda, findVaultAuthorityPda, findVaultPda } from './generated/pdas/index.js';

/** The program's PDAs, each kit's `[address, bump]`: those the IDL's seeds fully state come rendered from it;
 * the pending override's, seeded by the vault's override_nonce field, is written here (the IDL cannot say it). */

const addressEncoder = getAddressEncoder();
const u64Encoder = getU64Encoder();

/** The VaultConfig account: "the vault address" everywhere in the API. */
export function findVaultAddress(
  programId: Address,
  authority: Address,
  vaultNonce: bigint,
): Promise<ProgramDerivedAddress> {
  return findVaultPda({ authority, vaultNonce }, { programAddress: programId });
}

/** The account that holds the vault's SOL (the deposit address). */
export function findVaultAuthorityAddress(
  programId: Address,
  vault: Address,
): Promise<ProgramDerivedAddress> {
  return findVaultAuthorityPda({ vault }, { programAddress: programId });
}

export function findPendingOverrideAddress(
  programId: Address,
  vault: Address,
  overrideNonce: bigint,
): Promise<ProgramDerivedAddress> {
  return getProgramDerivedAddress({
    programAddress: programId,
    seeds: ['override', addressEncoder.encode(vault), u64Encoder.encode(overrideNonce)],
  });
}

/** The singleton fee treasury. */
export function findTreasuryAddress(programId: Address): Promise<ProgramDerivedAddress> {
  return findFeeTreasuryPda({ programAddress: programId });
}
