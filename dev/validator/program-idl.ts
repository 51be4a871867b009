import { readFileSync } from 'node:fs';
import anchor, { type Idl } from '@coral-xyz/anchor';
import { type Address, address, getAddressDecoder, getAddressEncoder } from '@solana/kit';
import { PublicKey } from '@solana/web3.js';

/**
 * The vault program as its published interface states it: the Anchor IDL beside this file, read with
 * Anchor's own BorshCoder (built once). Everything here converts at the edge between Anchor's values
 * (BN, PublicKey, `{ Variant: {} }`, snake_case) and the fake's (bigint, Address, snake strings, camelCase).
 */

const { BN, BorshCoder } = anchor;

/** The parts of the IDL JSON the fake reads (Anchor's new IDL format). */
export type IdlType =
  | string
  | { option: IdlType }
  | { vec: IdlType }
  | { array: [IdlType, number] }
  | { defined: { name: string } };
export type IdlField = { name: string; type: IdlType };
type IdlTypeDef = {
  name: string;
  type: { kind: 'struct'; fields: IdlField[] } | { kind: 'enum'; variants: { name: string }[] };
};
export type IdlInstructionAccount = { name: string; writable?: boolean; signer?: boolean; address?: string };
type ProgramIdl = {
  address: string;
  instructions: {
    name: string;
    discriminator: number[];
    accounts: IdlInstructionAccount[];
    args: IdlField[];
  }[];
  accounts: { name: string; discriminator: number[] }[];
  events: { name: string; discriminator: number[] }[];
  errors: { code: number; name: string; msg: string }[];
  types: IdlTypeDef[];
};

export const IDL = JSON.parse(
  readFileSync(new URL('../../program/vault-program.idl.json', import.meta.url), 'utf8'),
) as ProgramIdl;
export const coder = new BorshCoder(IDL as unknown as Idl);

export const DEFAULT_PROGRAM_ID: Address = address(IDL.address);
export const SYSTEM_PROGRAM_ADDRESS = address('11111111111111111111111111111111');
export const COMPUTE_BUDGET_PROGRAM_ADDRESS = address('ComputeBudget111111111111111111111111111111');

const TYPES = new Map(IDL.types.map((t) => [t.name, t]));

export function getTypeDef(name: string): IdlTypeDef {
  const def = TYPES.get(name);
  if (def === undefined) throw new TypeError(`the IDL defines no type ${name}`);
  return def;
}

/** The struct fields of a type the IDL defines. */
export function getFields(name: string): IdlField[] {
  const { type } = getTypeDef(name);
  if (type.kind !== 'struct') throw new TypeError(`${name} is not a struct`);
  return type.fields;
}

/** `NotWhitelisted` → `not_whitelisted`: an enum variant as the fake (and the API) spells it. */
export const snakeCase = (name: string): string => name.replace(/(?<!^)([A-Z])/g, '_$1').toLowerCase();
/** `fee_basis_points` → `feeBasisPoints`. */
export const camelCase = (name: string): string =>
  name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
/** `update_daily_limit` → `UpdateDailyLimit`, the name Anchor prints in `Program log: Instruction: …`. */
export const pascalCase = (name: string): string =>
  name.replace(/(^|_)([a-z0-9])/g, (_, _sep: string, c: string) => c.toUpperCase());

/** An enum's variants in index order, as the fake spells them. */
export function getEnumValues(name: string): string[] {
  const { type } = getTypeDef(name);
  if (type.kind !== 'enum') throw new TypeError(`${name} is not an enum`);
  return type.variants.map((v) => snakeCase(v.name));
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

// Addresses repeat (vaults, agents, destinations): base58 costs tens of µs, so conversions are kept.
const CACHE_LIMIT = 20_000;
const publicKeys = new Map<string, InstanceType<typeof PublicKey>>();
const addresses = new Map<string, Address>();
const addressEncoder = getAddressEncoder();
const addressDecoder = getAddressDecoder();

function remember<K, V>(cache: Map<K, V>, key: K, value: V): V {
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, value);
  return value;
}

export function toPublicKey(value: Address): InstanceType<typeof PublicKey> {
  return publicKeys.get(value) ?? remember(publicKeys, value, new PublicKey(addressEncoder.encode(value)));
}

export function fromPublicKey(key: InstanceType<typeof PublicKey>): Address {
  const bytes = key.toBytes();
  const hex = toHex(bytes);
  return addresses.get(hex) ?? remember(addresses, hex, addressDecoder.decode(bytes));
}

type Value = unknown;

/** Anchor's decoded value of an IDL type as the fake holds it: bigint, Address, snake strings, camelCase keys. */
export function fromAnchor(type: IdlType, value: Value): Value {
  if (typeof type === 'string') {
    if (type === 'pubkey') return fromPublicKey(value as InstanceType<typeof PublicKey>);
    if (/^[ui](64|128)$/.test(type)) return BigInt((value as { toString(): string }).toString());
    return value;
  }
  if ('option' in type) return value === null ? null : fromAnchor(type.option, value);
  if ('array' in type || 'vec' in type) {
    const inner = 'array' in type ? type.array[0] : type.vec;
    const list = value as Value[];
    return inner === 'u8' ? Uint8Array.from(list as number[]) : list.map((v) => fromAnchor(inner, v));
  }
  const def = getTypeDef(type.defined.name);
  if (def.type.kind === 'enum') return snakeCase(Object.keys(value as object)[0] ?? '');
  return fromAnchorFields(def.type.fields, value as Record<string, Value>);
}

export function fromAnchorFields(fields: readonly IdlField[], value: Record<string, Value>) {
  const out: Record<string, Value> = {};
  for (const field of fields) out[camelCase(field.name)] = fromAnchor(field.type, value[field.name]);
  return out;
}

/** The inverse of fromAnchor: what Anchor's coder takes for an IDL type. */
export function toAnchor(type: IdlType, value: Value): Value {
  if (typeof type === 'string') {
    if (type === 'pubkey') return toPublicKey(value as Address);
    if (/^[ui](64|128)$/.test(type)) return new BN((value as bigint).toString());
    return value;
  }
  if ('option' in type) return value === null ? null : toAnchor(type.option, value);
  if ('array' in type || 'vec' in type) {
    const inner = 'array' in type ? type.array[0] : type.vec;
    return [...(value as Iterable<Value>)].map((v) => toAnchor(inner, v));
  }
  const def = getTypeDef(type.defined.name);
  if (def.type.kind === 'enum') {
    const variant = def.type.variants.find((v) => snakeCase(v.name) === value);
    if (variant === undefined) throw new RangeError(`invalid ${def.name} value ${String(value)}`);
    return { [variant.name]: {} };
  }
  return toAnchorFields(def.type.fields, value as Record<string, Value>);
}

export function toAnchorFields(fields: readonly IdlField[], value: Record<string, Value>) {
  const out: Record<string, Value> = {};
  for (const field of fields) out[field.name] = toAnchor(field.type, value[camelCase(field.name)]);
  return out;
}

/** The custom errors of the program, by name: code and message as the IDL states them. */
export const PROGRAM_ERRORS: Readonly<Record<string, { code: number; message: string }>> = Object.fromEntries(
  IDL.errors.map((e) => [e.name, { code: e.code, message: e.msg }]),
);

/** The discriminator table of one IDL section, keyed by hex, and by name. */
export function discriminators(section: readonly { name: string; discriminator: number[] }[]) {
  const byName = new Map(section.map((s) => [s.name, Uint8Array.from(s.discriminator)]));
  const byHex = new Map(section.map((s) => [toHex(Uint8Array.from(s.discriminator)), s.name]));
  return { byName, byHex };
}
