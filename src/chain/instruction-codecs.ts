/** Decoding of vault program instruction data with the codecs rendered from the IDL (./generated). */
import type { AccountMeta, Decoder, Instruction, ReadonlyUint8Array } from '@solana/kit';
import { BLOCK_REASONS, type BlockReason } from '../domain/transactions/transaction-resource.js';
import {
  getAddToWhitelistInstructionDataDecoder,
  getApproveOverrideInstructionDataDecoder,
  getCreateOverrideInstructionDataDecoder,
  getExecuteAgentInstructionDataDecoder,
  getExecuteApprovedOverrideInstructionDataDecoder,
  getExecuteGuardedInstructionDataDecoder,
  getInitializeTreasuryInstructionDataDecoder,
  getInitializeVaultInstructionDataDecoder,
  getPauseVaultInstructionDataDecoder,
  getRemoveFromWhitelistInstructionDataDecoder,
  getResumeVaultInstructionDataDecoder,
  getUpdateAgentSignerInstructionDataDecoder,
  getUpdateDailyLimitInstructionDataDecoder,
  getWithdrawFeesInstructionDataDecoder,
} from './generated/instructions/index.js';
import {
  getEnumValue,
  INSTRUCTION_DISCRIMINATORS,
  INSTRUCTION_NAMES,
  type InstructionName,
  toHex,
} from './program.js';

/** A kit Instruction whose accounts and data are always present. */
export type VaultInstruction = Instruction & { accounts: readonly AccountMeta[]; data: Uint8Array };
export type DecodedInstruction = {
  [K in InstructionName]: { name: K; args: InstructionArgsMap[K] };
}[InstructionName];

const DECODERS = {
  initialize_vault: getInitializeVaultInstructionDataDecoder(),
  initialize_treasury: getInitializeTreasuryInstructionDataDecoder(),
  execute_guarded: getExecuteGuardedInstructionDataDecoder(),
  execute_agent: getExecuteAgentInstructionDataDecoder(),
  create_override: getCreateOverrideInstructionDataDecoder(),
  approve_override: getApproveOverrideInstructionDataDecoder(),
  execute_approved_override: getExecuteApprovedOverrideInstructionDataDecoder(),
  update_daily_limit: getUpdateDailyLimitInstructionDataDecoder(),
  update_agent_signer: getUpdateAgentSignerInstructionDataDecoder(),
  add_to_whitelist: getAddToWhitelistInstructionDataDecoder(),
  remove_from_whitelist: getRemoveFromWhitelistInstructionDataDecoder(),
  pause_vault: getPauseVaultInstructionDataDecoder(),
  resume_vault: getResumeVaultInstructionDataDecoder(),
  withdraw_fees: getWithdrawFeesInstructionDataDecoder(),
} as const satisfies { readonly [K in InstructionName]: Decoder<{ discriminator: ReadonlyUint8Array }> };

type Args<K extends InstructionName> = Omit<ReturnType<(typeof DECODERS)[K]['decode']>, 'discriminator'>;
/** Each instruction's arguments as the IDL declares them; enums carry their API names. */
export type InstructionArgsMap = { [K in Exclude<InstructionName, 'create_override'>]: Args<K> } & {
  create_override: Omit<Args<'create_override'>, 'reason'> & { reason: BlockReason };
};

const NAME_BY_DISCRIMINATOR: ReadonlyMap<string, InstructionName> = new Map(
  INSTRUCTION_NAMES.map((name) => [toHex(INSTRUCTION_DISCRIMINATORS[name]), name]),
);

/** Decodes vault program instruction data; null for an unknown discriminator or malformed args. */
export function decodeInstruction(data: ReadonlyUint8Array): DecodedInstruction | null {
  if (data.length < 8) return null;
  const name = NAME_BY_DISCRIMINATOR.get(toHex(data.subarray(0, 8)));
  if (name === undefined) return null;
  try {
    const { discriminator: _, ...args } = DECODERS[name].decode(data) as Record<string, unknown>;
    // The generated enum is its index; the API carries the reason's name.
    if ('reason' in args) args.reason = getEnumValue(BLOCK_REASONS, args.reason as number, 'BlockReason');
    return { name, args } as DecodedInstruction;
  } catch {
    return null;
  }
}
