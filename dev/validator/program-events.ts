import type { Address } from '@solana/kit';
import {
  coder,
  discriminators,
  fromAnchorFields,
  getEnumValues,
  getFields,
  IDL,
  toAnchorFields,
  toHex,
} from './program-idl.js';

/** The vault program's events as the fake emits them: `discriminator ‖ borsh(fields)` (Anchor `emit!`). */

export type BlockReason = 'not_whitelisted' | 'exceeded_daily_limit' | 'insufficient_funds';
export type VaultTier = 'personal' | 'team' | 'enterprise';
export type OverrideType = 'exceeded_limit' | 'emergency';

/** Each event's fields in camelCase: u64/i64 as bigint, enums as snake strings. */
export interface EventDataMap {
  VaultCreated: { vault: Address; authority: Address; tier: VaultTier; dailyLimit: bigint };
  VaultInitialized: { vault: Address; authority: Address; dailyLimit: bigint; timestamp: bigint };
  TransactionExecuted: {
    vault: Address;
    amount: bigint;
    destination: Address;
    feeCollected: bigint;
    newBalance: bigint;
    spentToday: bigint;
  };
  TransactionBlocked: {
    vault: Address;
    reason: BlockReason;
    amount: bigint;
    destination: Address;
    overrideNonce: bigint | null;
  };
  OverrideCreated: { vault: Address; nonce: bigint; amount: bigint; destination: Address; expiresAt: bigint };
  OverrideApproved: { vault: Address; nonce: bigint; timestamp: bigint };
  PolicyUpdated: { vault: Address; dailyLimit: bigint; whitelistSize: number };
  VaultPaused: { vault: Address };
  VaultResumed: { vault: Address };
  AgentSignerUpdated: { vault: Address; oldSigner: Address; newSigner: Address; timestamp: bigint };
  WhitelistUpdated: { vault: Address; address: Address; added: boolean; timestamp: bigint };
  FeeTreasuryInitialized: { treasury: Address; authority: Address; timestamp: bigint };
  FeesWithdrawn: {
    treasury: Address;
    amount: bigint;
    recipient: Address;
    remainingBalance: bigint;
    timestamp: bigint;
  };
}
export type EventName = keyof EventDataMap;
export type KnownProgramEvent = { [K in EventName]: { name: K; data: EventDataMap[K] } }[EventName];
/** A `Program data:` payload that is not one of the IDL's events (or does not decode as one). */
export type UnknownProgramEvent = { name: 'Unknown'; discriminator: string; raw: string; error?: string };
export type ProgramEvent = KnownProgramEvent | UnknownProgramEvent;

/** Fields the IDL types as u8 whose docs say they hold an enum's index. */
const ENUM_INDEX_FIELDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  VaultCreated: { tier: 'VaultTier' },
  TransactionBlocked: { reason: 'BlockReason' },
};

const EVENTS = discriminators(IDL.events);

export function encodeProgramEvent(event: ProgramEvent): Uint8Array {
  if (event.name === 'Unknown') return new Uint8Array(Buffer.from(event.raw, 'base64'));
  const data: Record<string, unknown> = { ...event.data };
  for (const [field, enumName] of Object.entries(ENUM_INDEX_FIELDS[event.name] ?? {})) {
    const index = getEnumValues(enumName).indexOf(String(data[field]));
    if (index < 0) throw new RangeError(`invalid ${enumName} value ${String(data[field])}`);
    data[field] = index;
  }
  const body = coder.types.encode(event.name, toAnchorFields(getFields(event.name), data));
  const discriminator = EVENTS.byName.get(event.name);
  if (discriminator === undefined) throw new TypeError(`the IDL has no event ${event.name}`);
  const out = new Uint8Array(8 + body.length);
  out.set(discriminator, 0);
  out.set(body, 8);
  return out;
}

/** Reads a `Program data:` payload back with Anchor's EventCoder; never throws (unknown bytes stay raw). */
export function decodeProgramEvent(bytes: Uint8Array): ProgramEvent {
  const discriminator = toHex(bytes.subarray(0, 8));
  const raw = Buffer.from(bytes).toString('base64');
  const name = bytes.length >= 8 ? EVENTS.byHex.get(discriminator) : undefined;
  if (name === undefined) return { name: 'Unknown', discriminator, raw };
  try {
    const decoded = coder.events.decode(raw);
    if (decoded === null) throw new TypeError('not an event');
    const data = fromAnchorFields(getFields(name), decoded.data as Record<string, unknown>);
    for (const [field, enumName] of Object.entries(ENUM_INDEX_FIELDS[name] ?? {})) {
      const value = getEnumValues(enumName)[data[field] as number];
      if (value === undefined) throw new RangeError(`invalid ${enumName} index ${String(data[field])}`);
      data[field] = value;
    }
    return { name, data } as KnownProgramEvent;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { name: 'Unknown', discriminator, raw, error: `malformed ${name}: ${reason}` };
  }
}
