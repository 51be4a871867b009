import { createHash } from 'node:crypto';
import type { ReadonlyUint8Array } from '@solana/kit';
import { type Address, address } from '@solana/kit';

/** The vault program's interface constants: ids, discriminators, enums and error codes, as the program's IDL declares them (program/vault-program.idl.json). */

export const DEFAULT_PROGRAM_ID: Address = address('ET9WDoFE2bf4bSmciLL7q7sKdeSYeNkWbNMHbAMBu2ZJ');
export const SYSTEM_PROGRAM_ADDRESS: Address = address('11111111111111111111111111111111');
export const COMPUTE_BUDGET_PROGRAM_ADDRESS: Address = address('ComputeBudget111111111111111111111111111111');

export const VAULT_CONFIG_SIZE = 809;
export const PENDING_OVERRIDE_SIZE = 131;

export const EVENT_NAMES = [
  'VaultCreated',
  'VaultInitialized',
  'TransactionExecuted',
  'TransactionBlocked',
  'OverrideCreated',
  'OverrideApproved',
  'PolicyUpdated',
  'VaultPaused',
  'VaultResumed',
  'AgentSignerUpdated',
  'WhitelistUpdated',
  'FeeTreasuryInitialized',
  'FeesWithdrawn',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

export const INSTRUCTION_NAMES = [
  'initialize_vault',
  'initialize_treasury',
  'execute_guarded',
  'execute_agent',
  'create_override',
  'approve_override',
  'execute_approved_override',
  'update_daily_limit',
  'update_agent_signer',
  'add_to_whitelist',
  'remove_from_whitelist',
  'pause_vault',
  'resume_vault',
  'withdraw_fees',
] as const;
export type InstructionName = (typeof INSTRUCTION_NAMES)[number];

export const ACCOUNT_NAMES = ['VaultConfig', 'PendingOverride', 'FeeTreasury'] as const;
export type AccountName = (typeof ACCOUNT_NAMES)[number];

/** Anchor discriminator: the first 8 bytes of sha256("<namespace>:<name>"). */
export function computeDiscriminator(namespace: 'global' | 'account' | 'event', name: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(`${namespace}:${name}`).digest().subarray(0, 8));
}

export function toHex(bytes: ReadonlyUint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

function discriminatorTable<T extends string>(
  namespace: 'global' | 'account' | 'event',
  names: readonly T[],
): Readonly<Record<T, Uint8Array>> {
  const table = {} as Record<T, Uint8Array>;
  for (const name of names) table[name] = computeDiscriminator(namespace, name);
  return Object.freeze(table);
}

export const EVENT_DISCRIMINATORS = discriminatorTable('event', EVENT_NAMES);
export const INSTRUCTION_DISCRIMINATORS = discriminatorTable('global', INSTRUCTION_NAMES);
export const ACCOUNT_DISCRIMINATORS = discriminatorTable('account', ACCOUNT_NAMES);

/** `update_daily_limit` → `UpdateDailyLimit`, the name Anchor prints in `Program log: Instruction: …`. */
export function getInstructionLogName(name: InstructionName): string {
  return name
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

export const OVERRIDE_TYPES = ['exceeded_limit', 'emergency'] as const;
export type OverrideType = (typeof OVERRIDE_TYPES)[number];

/** Maps a borsh enum index to its API string; throws on an index the program does not define. */
export function getEnumValue<T extends string>(values: readonly T[], index: number, enumName: string): T {
  const value = values[index];
  if (value === undefined) throw new RangeError(`invalid ${enumName} index ${index}`);
  return value;
}

export function getEnumIndex<T extends string>(values: readonly T[], value: T, enumName: string): number {
  const index = values.indexOf(value);
  if (index < 0) throw new RangeError(`invalid ${enumName} value ${String(value)}`);
  return index;
}

/** Program error codes from the IDL (Anchor custom errors start at 12000 here). */
export const PROGRAM_ERRORS = {
  NotWhitelisted: { code: 12000, message: 'Destination address is not whitelisted' },
  DailyLimitExceeded: { code: 12001, message: 'Transaction amount exceeds daily limit' },
  VaultPaused: { code: 12002, message: 'Vault is paused' },
  UnauthorizedSigner: { code: 12003, message: 'Unauthorized signer' },
  OverrideExpired: { code: 12004, message: 'Override request has expired' },
  OverrideAlreadyExecuted: { code: 12005, message: 'Override has already been executed' },
  InvalidDailyLimit: { code: 12006, message: 'Invalid daily limit (must be greater than zero)' },
  InvalidTimestamp: { code: 12007, message: 'Invalid timestamp' },
  InsufficientFunds: { code: 12008, message: 'Insufficient funds in vault' },
  InvalidAmount: { code: 12009, message: 'Invalid amount (must be greater than zero)' },
  InvalidPolicy: { code: 12010, message: 'Invalid policy parameters' },
  ArithmeticOverflow: { code: 12011, message: 'Arithmetic overflow' },
  WhitelistFull: { code: 12012, message: 'Whitelist is full (maximum 20 addresses)' },
  WhitelistNotFound: { code: 12013, message: 'Whitelist address not found' },
  OverrideAlreadyExists: { code: 12014, message: 'Override already exists for this transaction' },
  InvalidAuthority: { code: 12015, message: 'Invalid vault authority' },
  InvalidAgentSigner: { code: 12016, message: 'Invalid agent signer - does not match vault.agent_signer' },
} as const;
export type ProgramErrorName = keyof typeof PROGRAM_ERRORS;
