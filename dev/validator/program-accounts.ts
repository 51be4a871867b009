import type { Address } from '@solana/kit';
import type { OverrideType, VaultTier } from './program-events.js';
import {
  coder,
  discriminators,
  fromAnchorFields,
  getFields,
  IDL,
  SYSTEM_PROGRAM_ADDRESS,
  toAnchorFields,
} from './program-idl.js';

/** The vault program's accounts (VaultConfig, PendingOverride), encoded and read with Anchor's coder. */

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

/** The length of a fixed array field of a struct, as the IDL declares it. */
function arrayLength(typeName: string, fieldName: string): number {
  const type = getFields(typeName).find((f) => f.name === fieldName)?.type;
  if (typeof type !== 'object' || !('array' in type)) throw new TypeError(`${typeName}.${fieldName}`);
  return type.array[1];
}

/** VaultConfig.whitelist: [pubkey; 20]. */
export const MAX_WHITELIST = arrayLength('VaultConfig', 'whitelist');
/** VaultConfig.name: [u8; 50], UTF-8. */
export const MAX_NAME_BYTES = arrayLength('VaultConfig', 'name');

const ACCOUNTS = discriminators(IDL.accounts);

function encodeAccount(name: string, fields: Record<string, unknown>): Uint8Array {
  const body = coder.types.encode(name, toAnchorFields(getFields(name), fields));
  const out = new Uint8Array(8 + body.length);
  out.set(ACCOUNTS.byName.get(name) ?? new Uint8Array(8), 0);
  out.set(body, 8);
  return out;
}

function decodeAccount(name: string, data: Uint8Array): Record<string, unknown> {
  const decoded = coder.accounts.decode(name, Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  return fromAnchorFields(getFields(name), decoded);
}

export function encodeVaultConfig(config: VaultConfig): Uint8Array {
  const nameBytes = Buffer.from(config.name, 'utf8');
  if (nameBytes.length > MAX_NAME_BYTES) throw new RangeError(`vault name exceeds ${MAX_NAME_BYTES} bytes`);
  if (config.whitelist.length > MAX_WHITELIST) throw new RangeError(`whitelist exceeds ${MAX_WHITELIST}`);
  const name = new Uint8Array(MAX_NAME_BYTES);
  name.set(nameBytes);
  // Unused slots hold the all-zero key, as a fresh account does.
  const whitelist = [...config.whitelist];
  while (whitelist.length < MAX_WHITELIST) whitelist.push(SYSTEM_PROGRAM_ADDRESS);
  return encodeAccount('VaultConfig', { ...config, whitelist, name, nameLen: nameBytes.length });
}

/** Throws when the bytes are not a VaultConfig (Anchor checks the discriminator). */
export function decodeVaultConfig(data: Uint8Array): VaultConfig {
  const raw = decodeAccount('VaultConfig', data);
  const { name, nameLen, whitelist, ...rest } = raw as Omit<VaultConfig, 'name'> & {
    name: Uint8Array;
    nameLen: number;
  };
  return {
    ...rest,
    whitelist: whitelist.slice(0, Math.min(rest.whitelistCount, MAX_WHITELIST)),
    name: Buffer.from(name.subarray(0, Math.min(nameLen, MAX_NAME_BYTES))).toString('utf8'),
  };
}

export function encodePendingOverride(value: PendingOverride): Uint8Array {
  return encodeAccount('PendingOverride', value);
}

export function decodePendingOverride(data: Uint8Array): PendingOverride {
  return decodeAccount('PendingOverride', data) as PendingOverride;
}
