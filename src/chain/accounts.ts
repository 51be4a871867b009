import {
  type Codec,
  fixCodecSize,
  getArrayCodec,
  getBytesCodec,
  getI64Codec,
  getStructCodec,
  getU8Codec,
  getU16Codec,
  getU64Codec,
  type ReadonlyUint8Array,
} from '@solana/codecs';
import { type Address, getAddressCodec } from '@solana/kit';
import { VAULT_TIERS, type VaultTier } from '../domain/vaults/vault-resource.js';
import { MAX_NAME_BYTES, MAX_WHITELIST } from '../domain/vaults/vault-write-rules.js';
import { getStrictBooleanCodec, getU8EnumCodec } from './codecs.js';
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

const pubkey = getAddressCodec();

// Raw layout, field for field as the IDL declares it (the account layouts of the program's IDL, dev/validator/vault-program.idl.json).
const vaultConfigLayout = getStructCodec([
  ['authority', pubkey],
  ['agentSigner', pubkey],
  ['dailyLimit', getU64Codec()],
  ['spentToday', getU64Codec()],
  ['lastReset', getI64Codec()],
  ['whitelist', getArrayCodec(pubkey, { size: MAX_WHITELIST })],
  ['whitelistCount', getU8Codec()],
  ['tier', getU8EnumCodec(VAULT_TIERS, 'VaultTier')],
  ['feeBasisPoints', getU16Codec()],
  ['name', fixCodecSize(getBytesCodec(), MAX_NAME_BYTES)],
  ['nameLen', getU8Codec()],
  ['paused', getStrictBooleanCodec()],
  ['overrideNonce', getU64Codec()],
  ['vaultNonce', getU64Codec()],
  ['bump', getU8Codec()],
]);

const pendingOverrideLayout: Codec<PendingOverride> = getStructCodec([
  ['vault', pubkey],
  ['nonce', getU64Codec()],
  ['instructionHash', fixCodecSize(getBytesCodec(), 32)],
  ['requestedAmount', getU64Codec()],
  ['destination', pubkey],
  ['expiresAt', getI64Codec()],
  ['executed', getStrictBooleanCodec()],
  ['overrideType', getU8EnumCodec(OVERRIDE_TYPES, 'OverrideType')],
  ['bump', getU8Codec()],
]) as Codec<PendingOverride>;

function assertAccount(data: ReadonlyUint8Array, name: AccountName, size: number): void {
  if (data.length !== size) {
    throw new AccountDecodeError('ACCOUNT_SIZE_INVALID', `${name} must be ${size} bytes, got ${data.length}`);
  }
  const expected = ACCOUNT_DISCRIMINATORS[name];
  if (toHex(data.subarray(0, 8)) !== toHex(expected)) {
    throw new AccountDecodeError('ACCOUNT_DISCRIMINATOR_INVALID', `not a ${name} account`);
  }
}

function withDiscriminator(name: AccountName, body: ReadonlyUint8Array): Uint8Array {
  const out = new Uint8Array(8 + body.length);
  out.set(ACCOUNT_DISCRIMINATORS[name], 0);
  out.set(body, 8);
  return out;
}

/** Throws AccountDecodeError on a wrong size or discriminator. */
export function decodeVaultConfig(data: ReadonlyUint8Array): VaultConfig {
  assertAccount(data, 'VaultConfig', VAULT_CONFIG_SIZE);
  let raw: ReturnType<typeof vaultConfigLayout.decode>;
  try {
    raw = vaultConfigLayout.decode(data, 8);
  } catch (error) {
    throw new AccountDecodeError('ACCOUNT_DISCRIMINATOR_INVALID', `malformed VaultConfig: ${String(error)}`);
  }
  const { name, nameLen, whitelist, ...rest } = raw;
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
  const body = vaultConfigLayout.encode({ ...config, whitelist, name, nameLen: nameBytes.length });
  return withDiscriminator('VaultConfig', body);
}

/** Throws AccountDecodeError on a wrong size or discriminator. */
export function decodePendingOverride(data: ReadonlyUint8Array): PendingOverride {
  assertAccount(data, 'PendingOverride', PENDING_OVERRIDE_SIZE);
  try {
    const decoded = pendingOverrideLayout.decode(data, 8);
    return { ...decoded, instructionHash: new Uint8Array(decoded.instructionHash) };
  } catch (error) {
    throw new AccountDecodeError(
      'ACCOUNT_DISCRIMINATOR_INVALID',
      `malformed PendingOverride: ${String(error)}`,
    );
  }
}

export function encodePendingOverride(value: PendingOverride): Uint8Array {
  return withDiscriminator('PendingOverride', pendingOverrideLayout.encode(value));
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
