import { getU64Encoder } from '@solana/codecs';
import {
  type Address,
  getAddressEncoder,
  getProgramDerivedAddress,
  type ProgramDerivedAddress,
} from '@solana/kit';

/** The program's PDAs (seeds as the program's IDL declares them). Each returns kit's `[address, bump]`. */

const addressEncoder = getAddressEncoder();
const u64Encoder = getU64Encoder();

/** The VaultConfig account: "the vault address" everywhere in the API. */
export function findVaultAddress(
  programId: Address,
  authority: Address,
  vaultNonce: bigint,
): Promise<ProgramDerivedAddress> {
  return getProgramDerivedAddress({
    programAddress: programId,
    seeds: ['vault', addressEncoder.encode(authority), u64Encoder.encode(vaultNonce)],
  });
}

/** The account that holds the vault's SOL (the deposit address). */
export function findVaultAuthorityAddress(
  programId: Address,
  vault: Address,
): Promise<ProgramDerivedAddress> {
  return getProgramDerivedAddress({
    programAddress: programId,
    seeds: ['vault_authority', addressEncoder.encode(vault)],
  });
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
  return getProgramDerivedAddress({ programAddress: programId, seeds: ['treasury'] });
}
