import {
  type Address,
  type Codec,
  type ReadonlyUint8Array,
  transformCodec,
  unwrapOption,
  wrapNullable,
} from '@solana/kit';
import type { ChainEventDataMap, KnownChainEvent, UnknownChainEvent } from '../domain/ingestion/types.js';
import { BLOCK_REASONS } from '../domain/transactions/transaction-resource.js';
import { VAULT_TIERS } from '../domain/vaults/vault-resource.js';
import { getStrictCodec, withEnumName } from './codecs.js';
import {
  getAgentSignerUpdatedCodec,
  getFeesWithdrawnCodec,
  getFeeTreasuryInitializedCodec,
  getOverrideApprovedCodec,
  getOverrideCreatedCodec,
  getPolicyUpdatedCodec,
  getTransactionBlockedCodec,
  getTransactionExecutedCodec,
  getVaultCreatedCodec,
  getVaultInitializedCodec,
  getVaultPausedCodec,
  getVaultResumedCodec,
  getWhitelistUpdatedCodec,
} from './generated/types/index.js';
import { EVENT_DISCRIMINATORS, EVENT_NAMES, type EventName, toHex } from './program.js';

/** Decoded data of each vault program event, as the domain declares it, with kit's `Address` for addresses. */
type EventDataMap = ChainEventDataMap<Address>;

export type KnownProgramEvent = KnownChainEvent<Address>;
export type ProgramEvent = KnownProgramEvent | UnknownChainEvent;

// The codecs rendered from the IDL; the events with a bool or an Option decode strictly (codecs.ts), enums
// carry their API names and TransactionBlocked's Option<u64> is the domain's `bigint | null`.
const EVENT_CODECS: { readonly [K in EventName]: Codec<EventDataMap[K]> } = {
  VaultCreated: withEnumName(getVaultCreatedCodec(), 'tier', VAULT_TIERS, 'VaultTier'),
  VaultInitialized: getVaultInitializedCodec(),
  TransactionExecuted: getTransactionExecutedCodec(),
  TransactionBlocked: transformCodec(
    withEnumName(getStrictCodec(getTransactionBlockedCodec()), 'reason', BLOCK_REASONS, 'BlockReason'),
    (value: EventDataMap['TransactionBlocked']) => ({
      ...value,
      overrideNonce: wrapNullable(value.overrideNonce),
    }),
    (value) => ({ ...value, overrideNonce: unwrapOption(value.overrideNonce) }),
  ),
  OverrideCreated: getOverrideCreatedCodec(),
  OverrideApproved: getOverrideApprovedCodec(),
  PolicyUpdated: getPolicyUpdatedCodec(),
  VaultPaused: getVaultPausedCodec(),
  VaultResumed: getVaultResumedCodec(),
  AgentSignerUpdated: getAgentSignerUpdatedCodec(),
  WhitelistUpdated: getStrictCodec(getWhitelistUpdatedCodec()),
  FeeTreasuryInitialized: getFeeTreasuryInitializedCodec(),
  FeesWithdrawn: getFeesWithdrawnCodec(),
};

const EVENT_NAME_BY_DISCRIMINATOR: ReadonlyMap<string, EventName> = new Map(
  EVENT_NAMES.map((name) => [toHex(EVENT_DISCRIMINATORS[name]), name]),
);

function toBase64(bytes: ReadonlyUint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * Decodes `discriminator ‖ borsh(fields)` as emitted by Anchor `emit!`. Never throws: unknown or
 * malformed bytes come back as `{ name: 'Unknown' }` (with `error` when the discriminator was known).
 * Trailing bytes after the known fields are tolerated so that fields appended by a program upgrade
 * do not hide the event.
 */
export function decodeProgramEvent(bytes: ReadonlyUint8Array): ProgramEvent {
  const discriminator = toHex(bytes.subarray(0, 8));
  const name = bytes.length >= 8 ? EVENT_NAME_BY_DISCRIMINATOR.get(discriminator) : undefined;
  if (name === undefined) return { name: 'Unknown', discriminator, raw: toBase64(bytes) };
  try {
    const data = EVENT_CODECS[name].decode(bytes, 8);
    return { name, data } as KnownProgramEvent;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { name: 'Unknown', discriminator, raw: toBase64(bytes), error: `malformed ${name}: ${reason}` };
  }
}

/** Inverse of decodeProgramEvent (an Unknown event gives back its raw bytes). */
export function encodeProgramEvent(event: ProgramEvent): Uint8Array {
  if (event.name === 'Unknown') return new Uint8Array(Buffer.from(event.raw, 'base64'));
  const codec = EVENT_CODECS[event.name] as Codec<EventDataMap[typeof event.name]>;
  const body = codec.encode(event.data);
  const out = new Uint8Array(8 + body.length);
  out.set(EVENT_DISCRIMINATORS[event.name], 0);
  out.set(body, 8);
  return out;
}

/** JSON-safe form of a value: bigints become decimal strings, byte arrays become base64. */
type Jsonify<T> = T extends bigint
  ? string
  : T extends Uint8Array
    ? string
    : T extends readonly (infer U)[]
      ? Jsonify<U>[]
      : T extends object
        ? { [K in keyof T]: Jsonify<T[K]> }
        : T;

/** For storing decoded events as JSON: bigints → decimal strings (lossless), bytes → base64. */
export function toJson<T>(value: T): Jsonify<T> {
  return convert(value) as Jsonify<T>;
}

function convert(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return toBase64(value);
  if (Array.isArray(value)) return value.map(convert);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[key] = convert(inner);
    return out;
  }
  return value;
}
