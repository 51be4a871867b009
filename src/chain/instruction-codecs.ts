/** Instruction data codecs and the IDL's account lists: shared by the builders and the fake validator. */
import {
  addCodecSizePrefix,
  type Codec,
  getStructCodec,
  getU32Codec,
  getU64Codec,
  getUtf8Codec,
  type ReadonlyUint8Array,
} from '@solana/codecs';
import { type AccountMeta, AccountRole, type Address, getAddressCodec, type Instruction } from '@solana/kit';
import { BLOCK_REASONS, type BlockReason } from '../domain/transactions/transaction-resource.js';
import { getU8EnumCodec } from './codecs.js';
import {
  INSTRUCTION_DISCRIMINATORS,
  INSTRUCTION_NAMES,
  type InstructionName,
  SYSTEM_PROGRAM_ADDRESS,
  toHex,
} from './program.js';

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
/** A kit Instruction whose accounts and data are always present. */
export type VaultInstruction = Instruction & { accounts: readonly AccountMeta[]; data: Uint8Array };
export type DecodedInstruction = {
  [K in InstructionName]: { name: K; args: InstructionArgsMap[K] };
}[InstructionName];

const u64 = getU64Codec();
const pubkey = getAddressCodec();
const nonceOnly = getStructCodec([['vaultNonce', u64]]);
const withAddress = getStructCodec([
  ['vaultNonce', u64],
  ['address', pubkey],
]);
const withAmount = getStructCodec([
  ['vaultNonce', u64],
  ['amount', u64],
]);

const ARG_CODECS: { readonly [K in InstructionName]: Codec<InstructionArgsMap[K]> } = {
  initialize_vault: getStructCodec([
    ['nonce', u64],
    ['agentSigner', pubkey],
    ['dailyLimit', u64],
    ['name', addCodecSizePrefix(getUtf8Codec(), getU32Codec())],
  ]),
  initialize_treasury: getStructCodec([]) as Codec<Record<string, never>>,
  execute_guarded: withAmount,
  execute_agent: withAmount,
  create_override: getStructCodec([
    ['vaultNonce', u64],
    ['destination', pubkey],
    ['amount', u64],
    ['reason', getU8EnumCodec(BLOCK_REASONS, 'BlockReason')],
  ]),
  approve_override: nonceOnly,
  execute_approved_override: nonceOnly,
  update_daily_limit: getStructCodec([
    ['vaultNonce', u64],
    ['newDailyLimit', u64],
  ]),
  update_agent_signer: getStructCodec([
    ['vaultNonce', u64],
    ['newAgentSigner', pubkey],
  ]),
  add_to_whitelist: withAddress,
  remove_from_whitelist: withAddress,
  pause_vault: nonceOnly,
  resume_vault: nonceOnly,
  withdraw_fees: getStructCodec([['amount', u64]]),
};

const { READONLY: R, WRITABLE: W, READONLY_SIGNER: RS, WRITABLE_SIGNER: WS } = AccountRole;
const OWNER_UPDATE = [
  ['vault', W],
  ['authority', RS],
] as const;
const EXECUTE_TAIL = [
  ['vault_authority', W],
  ['destination', W],
  ['fee_treasury', W],
  ['system_program', R],
] as const;

/** Account names and roles in IDL order (as the program's IDL lists them). */
export const INSTRUCTION_ACCOUNTS: {
  readonly [K in InstructionName]: readonly (readonly [string, AccountRole])[];
} = {
  initialize_vault: [
    ['vault', W],
    ['vault_authority', R],
    ['authority', WS],
    ['system_program', R],
  ],
  initialize_treasury: [
    ['fee_treasury', W],
    ['authority', WS],
    ['system_program', R],
  ],
  execute_guarded: [['vault', W], ['authority', RS], ...EXECUTE_TAIL],
  execute_agent: [['vault', W], ['agent_signer', RS], ...EXECUTE_TAIL],
  create_override: [
    ['vault', W],
    ['authority', WS],
    ['pending_override', W],
    ['system_program', R],
  ],
  approve_override: [
    ['vault', R],
    ['authority', RS],
    ['pending_override', W],
  ],
  execute_approved_override: [['vault', W], ['pending_override', W], ['authority', RS], ...EXECUTE_TAIL],
  update_daily_limit: OWNER_UPDATE,
  update_agent_signer: OWNER_UPDATE,
  add_to_whitelist: OWNER_UPDATE,
  remove_from_whitelist: OWNER_UPDATE,
  pause_vault: OWNER_UPDATE,
  resume_vault: OWNER_UPDATE,
  withdraw_fees: [
    ['fee_treasury', W],
    ['authority', RS],
    ['recipient', W],
    ['system_program', R],
  ],
};

export function encodeInstructionData<K extends InstructionName>(
  name: K,
  args: InstructionArgsMap[K],
): Uint8Array {
  const body = (ARG_CODECS[name] as Codec<InstructionArgsMap[K]>).encode(args);
  const out = new Uint8Array(8 + body.length);
  out.set(INSTRUCTION_DISCRIMINATORS[name], 0);
  out.set(body, 8);
  return out;
}

const NAME_BY_DISCRIMINATOR: ReadonlyMap<string, InstructionName> = new Map(
  INSTRUCTION_NAMES.map((name) => [toHex(INSTRUCTION_DISCRIMINATORS[name]), name]),
);

/** Decodes vault program instruction data; null for an unknown discriminator or malformed args. */
export function decodeInstruction(data: ReadonlyUint8Array): DecodedInstruction | null {
  if (data.length < 8) return null;
  const name = NAME_BY_DISCRIMINATOR.get(toHex(data.subarray(0, 8)));
  if (name === undefined) return null;
  try {
    return { name, args: ARG_CODECS[name].decode(data, 8) } as DecodedInstruction;
  } catch {
    return null;
  }
}

/** Builds an instruction from named accounts; throws when one the IDL lists is missing. */
export function createVaultInstruction<K extends InstructionName>(
  programId: Address,
  name: K,
  accounts: Readonly<Record<string, Address>>,
  args: InstructionArgsMap[K],
): VaultInstruction {
  const metas = INSTRUCTION_ACCOUNTS[name].map(([accountName, role]): AccountMeta => {
    const address = accountName === 'system_program' ? SYSTEM_PROGRAM_ADDRESS : accounts[accountName];
    if (address === undefined) throw new TypeError(`${name}: account ${accountName} is required`);
    return { address, role };
  });
  return { programAddress: programId, accounts: metas, data: encodeInstructionData(name, args) };
}
