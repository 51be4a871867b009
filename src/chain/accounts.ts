import type { Address, ReadonlyUint8Array } from '@solana/kit';
import type { Logger } from 'pino';
import { MAX_NAME_BYTES, MAX_WHITELIST } from '../domain/policy/program-limits.js';
import { VAULT_TIERS, type VaultTier } from '../domain/vaults/vault-resource.js';
import { getStrictCodec, withEnumName } from './codecs.js';
import { getPendingOverrideCodec, getVaultConfigCodec } from './generated/accounts/index.js';
import {
  ACCOUNT_DISCRIMINATORS,
  type AccountName,
  OVERRIDE_TYPES,
  type OverrideType,
  PENDING_OVERRIDE_SIZE,
  SYSTEM_PROGRAM_ADDRESS,
  toHex,
  VAULT_CONFIG_SIZE,
} from './program.js';

export type AccountDecodeErrorCode =
  | 'ACCOUNT_OWNER_INVALID'
  | 'ACCOUNT_DISCRIMINATOR_INVALID'
  | 'ACCOUNT_SIZE_INVALID';

/** Coded error for account data that is not what the program would have written. */
export class AccountDecodeError extends Error {
  readonly code: AccountDecodeErrorCode;
  constructor(code: AccountDecodeErrorCode, message: string) {
    super(message);
    this.name = 'AccountDecodeError';
    this.code = code;
  }
}

export type VaultConfig = {
  authority: Address;
  agentSigner: Address;
  dailyLimit: bigint;
  spentToday: bigint;
  /** Unix seconds when the current spending day started. */
  lastReset: bigint;
  /** Only the active entries (the first whitelistCount). */
  whitelist: Address[];
  whitelistCount: number;
  tier: VaultTier;
  feeBasisPoints: number;
  name: string;
  paused: boolean;
  overrideNonce: bigint;
  vaultNonce: bigint;
  bump: number;
};

export type PendingOverride = {
  vault: Address;
  nonce: bigint;
  instructionHash: Uint8Array;
  requestedAmount: bigint;
  destination: Address;
  expiresAt: bigint;
  executed: boolean;
  overrideType: OverrideType;
  bump: number;
};

// The layouts rendered from the IDL, decoding bools strictly (codecs.ts), with enums as their API names.
const vaultConfigLayout = withEnumName(
  getStrictCodec(getVaultConfigCodec()),
  'tier',
  VAULT_TIERS,
  'VaultTier',
);
const pendingOverrideLayout = withEnumName(
  getStrictCodec(getPendingOverrideCodec()),
  'overrideType',
  OVERRIDE_TYPES,
  'OverrideType',
);

function assertAccount(data: ReadonlyUint8Array, name: AccountName, size: number): void {
  if (data.length !== size) {
    throw new AccountDecodeError('ACCOUNT_SIZE_INVALID', `${name} must be ${size} bytes, got ${data.length}`);
  }
  const expected = ACCOUNT_DISCRIMINATORS[name];
  if (toHex(data.subarray(0, 8)) !== toHex(expected)) {
    throw new AccountDecodeError('ACCOUNT_DISCRIMINATOR_INVALID', `not a ${name} account`);
  }
}

/** Throws AccountDecodeError on a wrong size or discriminator. */
export function decodeVaultConfig(data: ReadonlyUint8Array): VaultConfig {
  assertAccount(data, 'VaultConfig', VAULT_CONFIG_SIZE);
  let raw: ReturnType<typeof vaultConfigLayout.decode>;
  try {
    raw = vaultConfigLayout.decode(data);
  } catch (error) {
    throw new AccountDecodeError('ACCOUNT_DISCRIMINATOR_INVALID', `malformed VaultConfig: ${String(error)}`);
  }
  const { discriminator: _, name, nameLen, whitelist, ...rest } = raw;
  return {
    ...rest,
    whitelist: whitelist.slice(0, Math.min(raw.whitelistCount, MAX_WHITELIST)),
    name: Buffer.from(name.subarray(0, Math.min(nameLen, MAX_NAME_BYTES))).toString('utf8'),
  };
}

export function encodeVaultConfig(config: VaultConfig): Uint8Array {
  const nameBytes = Buffer.from(config.name, 'utf8');
  if (nameBytes.length > MAX_NAME_BYTES) throw new RangeError(`vault name exceeds ${MAX_NAME_BYTES} bytes`);
  if (config.whitelist.length > MAX_WHITELIST) throw new RangeError(`whitelist exceeds ${MAX_WHITELIST}`);
  const name = new Uint8Array(MAX_NAME_BYTES);
  name.set(nameBytes);
  const whitelist = [...config.whitelist];
  while (whitelist.length < MAX_WHITELIST) whitelist.push(SYSTEM_PROGRAM_ADDRESS);
  const discriminator = ACCOUNT_DISCRIMINATORS.VaultConfig;
  return new Uint8Array(
    vaultConfigLayout.encode({ ...config, discriminator, whitelist, name, nameLen: nameBytes.length }),
  );
}

/** Throws AccountDecodeError on a wrong size or discriminator. */
export function decodePendingOverride(data: ReadonlyUint8Array): PendingOverride {
  assertAccount(data, 'PendingOverride', PENDING_OVERRIDE_SIZE);
  try {
    const { discriminator: _, ...decoded } = pendingOverrideLayout.decode(data);
    return { ...decoded, instructionHash: new Uint8Array(decoded.instructionHash) };
  } catch (error) {
    throw new AccountDecodeError(
      'ACCOUNT_DISCRIMINATOR_INVALID',
      `malformed PendingOverride: ${String(error)}`,
    );
  }
}

export function encodePendingOverride(value: PendingOverride): Uint8Array {
  const discriminator = ACCOUNT_DISCRIMINATORS.PendingOverride;
  return new Uint8Array(pendingOverrideLayout.encode({ ...value, discriminator }));
}

/** Accounts already named in a warning (`address:size:code`), so that each is named once per process. */
const warnedAccounts = new Set<string>();
/** Past this many, the set starts over: a warning may then repeat, memory never grows. */
const MAX_WARNED_ACCOUNTS = 10_000;

/**
 * Logs once per account (and size) why a VaultConfig was skipped. An account of another size is a vault
 * of one of the program's earlier layouts (devnet still holds them): it is read as nothing, never
 * decoded into wrong fields, and never stops the caller.
 */
export function warnUndecodable(
  logger: Pick<Logger, 'warn'>,
  address: string,
  size: number,
  error: AccountDecodeError,
): void {
  const key = `${address}:${size}:${error.code}`;
  if (warnedAccounts.has(key)) return;
  if (warnedAccounts.size >= MAX_WARNED_ACCOUNTS) warnedAccounts.clear();
  warnedAccounts.add(key);
  if (error.code === 'ACCOUNT_SIZE_INVALID') {
    logger.warn(
      { account: address, size, expectedSize: VAULT_CONFIG_SIZE, code: error.code },
      `VaultConfig ${address} is ${size} bytes, not the current layout's ${VAULT_CONFIG_SIZE}: skipped (an earlier layout of the program)`,
    );
  } else {
    logger.warn(
      { account: address, size, code: error.code },
      `${address} is not a VaultConfig of the vault program: skipped`,
    );
  }
}

/**
 * A VaultConfig read through getAccountInfo: null when the account does not exist; throws
 * AccountDecodeError when it is owned by another program or is not a VaultConfig.
 */
export function parseVaultConfigAccount(
  account: { readonly owner: Address | string; readonly data: ReadonlyUint8Array } | null,
  programId: Address,
): VaultConfig | null {
  if (account === null) return null;
  if (account.owner !== programId) {
    throw new AccountDecodeError(
      'ACCOUNT_OWNER_INVALID',
      `account owner ${account.owner} is not ${programId}`,
    );
  }
  return decodeVaultConfig(account.data);
}
