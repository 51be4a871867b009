// The JSON-Schema building blocks of the API's resources (TypeBox, framework-free): addresses,
// signatures, lamports, timestamps, and the shapes the response serializer writes directly (type
// arrays and enums, not anyOf branches).
import { type TUnsafe, Type } from 'typebox';
import Format from 'typebox/format';
import { isSolanaAddress } from './address.js';
import { base58DecodedLength } from './base58.js';

Format.Set('solana-address', (value) => isSolanaAddress(value));
/** A base58 text of 64 bytes: the form of a transaction signature. */
export const isSolanaSignature = (value: string): boolean =>
  value.length >= 64 && value.length <= 88 && base58DecodedLength(value) === 64;

Format.Set('solana-signature', isSolanaSignature);

export const Signature = (description = 'base58 transaction signature') =>
  Type.String({ format: 'solana-signature', minLength: 64, maxLength: 88, description });

export const Address = (description = 'base58 32-byte public key') =>
  Type.String({ format: 'solana-address', minLength: 32, maxLength: 44, description });

export const Lamports = (description = 'lamports, decimal integer string') =>
  Type.String({ pattern: '^[0-9]+$', description });

export const Timestamp = (description = 'ISO 8601 UTC with milliseconds') =>
  Type.String({ format: 'date-time', description });

/** `string | null` as one type array (OpenAPI 3.1). */
export const NullableString = (
  options: { description?: string; format?: string } = {},
): TUnsafe<string | null> => Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });

/** One of a fixed set of strings, as `enum` (a bad value is refused listing them: "must be one of a, b"). */
export const StringEnum = <const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
): TUnsafe<T[number]> => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
