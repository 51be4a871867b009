import {
  type Address,
  getAddressEncoder,
  getProgramDerivedAddress,
  getU64Encoder,
  type ProgramDerivedAddress,
} from '@solana/kit';
import type { BlockReason } from './program-events.js';
import { coder, fromAnchorFields, IDL, type IdlInstructionAccount, toAnchorFields } from './program-idl.js';
import type { TxInstruction } from './state.js';

/** The vault program's instructions (Anchor's coder from the IDL) and its PDAs (the IDL's seeds). */

export type InstructionArgsMap = {
  initialize_vault: { nonce: bigint; agentSigner: Address; dailyLimit: bigint; name: string };
  initialize_treasury: Record<string, never>;
  execute_guarded: { vaultNonce: bigint; amount: bigint };
  execute_agent: { vaultNonce: bigint; amount: bigint };
  create_override: { vaultNonce: bigint; destination: Address; amount: bigint; reason: BlockReason };
  approve_override: { vaultNonce: bigint };
  execute_approved_override: { vaultNonce: bigint };
  update_daily_limit: { vaultNonce: bigint; newDailyLimit: bigint };
  update_agent_signer: { vaultNonce: bigint; newAgentSigner: Address };
  add_to_whitelist: { vaultNonce: bigint; address: Address };
  remove_from_whitelist: { vaultNonce: bigint; address: Address };
  pause_vault: { vaultNonce: bigint };
  resume_vault: { vaultNonce: bigint };
  withdraw_fees: { amount: bigint };
};
export type InstructionName = keyof InstructionArgsMap;
export type DecodedInstruction = {
  [K in InstructionName]: { name: K; args: InstructionArgsMap[K] };
}[InstructionName];

const INSTRUCTIONS = new Map(IDL.instructions.map((ix) => [ix.name, ix]));

/** The accounts an instruction takes, in the IDL's order, with their flags. */
export function getInstructionAccounts(name: InstructionName): readonly IdlInstructionAccount[] {
  return INSTRUCTIONS.get(name)?.accounts ?? [];
}

/** Decodes instruction data; null for an unknown discriminator or arguments that do not deserialize. */
export function decodeInstruction(data: Uint8Array): DecodedInstruction | null {
  let decoded: { name: string; data: object } | null;
  try {
    decoded = coder.instruction.decode(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  } catch {
    return null;
  }
  const ix = decoded === null ? undefined : INSTRUCTIONS.get(decoded.name);
  if (decoded === null || ix === undefined) return null;
  const args = fromAnchorFields(ix.args, decoded.data as Record<string, unknown>);
  return { name: decoded.name, args } as DecodedInstruction;
}

/** An instruction from named accounts (fixed addresses such as the system program are filled in). */
export function buildVaultInstruction<K extends InstructionName>(
  programId: Address,
  name: K,
  accounts: Readonly<Record<string, Address>>,
  args: InstructionArgsMap[K],
): TxInstruction {
  const ix = INSTRUCTIONS.get(name);
  if (ix === undefined) throw new TypeError(`the IDL has no instruction ${name}`);
  const metas = ix.accounts.map((meta) => {
    const address = (meta.address as Address | undefined) ?? accounts[meta.name];
    if (address === undefined) throw new TypeError(`${name}: account ${meta.name} is required`);
    return { address, isSigner: meta.signer === true, isWritable: meta.writable === true };
  });
  const data = coder.instruction.encode(name, toAnchorFields(ix.args, args));
  return { programAddress: programId, accounts: metas, data: new Uint8Array(data) };
}

const addressEncoder = getAddressEncoder();
const u64 = getU64Encoder();

/** The VaultConfig account ("vault", authority, vault nonce u64 LE). */
export function findVaultAddress(
  programId: Address,
  authority: Address,
  vaultNonce: bigint,
): Promise<ProgramDerivedAddress> {
  const seeds = ['vault', addressEncoder.encode(authority), u64.encode(vaultNonce)];
  return getProgramDerivedAddress({ programAddress: programId, seeds });
}

/** The account that holds the vault's SOL ("vault_authority", vault). */
export function findVaultAuthorityAddress(
  programId: Address,
  vault: Address,
): Promise<ProgramDerivedAddress> {
  return getProgramDerivedAddress({
    programAddress: programId,
    seeds: ['vault_authority', addressEncoder.encode(vault)],
  });
}

/** A pending override ("override", vault, override nonce u64 LE). */
export function findPendingOverrideAddress(
  programId: Address,
  vault: Address,
  overrideNonce: bigint,
): Promise<ProgramDerivedAddress> {
  const seeds = ['override', addressEncoder.encode(vault), u64.encode(overrideNonce)];
  return getProgramDerivedAddress({ programAddress: programId, seeds });
}

/** The singleton fee treasury ("treasury"). */
export function findTreasuryAddress(programId: Address): Promise<ProgramDerivedAddress> {
  return getProgramDerivedAddress({ programAddress: programId, seeds: ['treasury'] });
}
