// Schemas shared by every route: the error envelope, pagination, addresses, lamports, timestamps.
import { Format, Type } from '@fastify/type-provider-typebox';
import { isSolanaAddress } from '../../lib/address.js';
import { base58DecodedLength } from '../../lib/base58.js';

Format.Set('solana-address', (value) => isSolanaAddress(value));
Format.Set(
  'solana-signature',
  (value) => value.length >= 64 && value.length <= 88 && base58DecodedLength(value) === 64,
);

export const Signature = (description = 'base58 transaction signature') =>
  Type.String({ format: 'solana-signature', minLength: 64, maxLength: 88, description });

export const Address = (description = 'base58 32-byte public key') =>
  Type.String({ format: 'solana-address', minLength: 32, maxLength: 44, description });

export const Lamports = (description = 'lamports, decimal integer string') =>
  Type.String({ pattern: '^[0-9]+$', description });

/** A lamport amount in a request: a safe JSON integer or a decimal string (range checked in the domain). */
export const LamportsInput = (description = 'lamports: a JSON integer or a decimal string, 1..2^64-1') =>
  Type.Union([Type.Integer({ minimum: 1 }), Type.String({ pattern: '^[0-9]{1,20}$' })], { description });

export const Timestamp = (description = 'ISO 8601 UTC with milliseconds') =>
  Type.String({ format: 'date-time', description });

export const ErrorEnvelope = Type.Object(
  {
    error: Type.String(),
    code: Type.String(),
    details: Type.Record(Type.String(), Type.Unknown()),
    message: Type.Optional(Type.String()),
  },
  { $id: 'ErrorEnvelope', description: 'Every error: a message, a stable code, and details' },
);

export const PaginationQuery = {
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
};

export const Pagination = Type.Object({
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
  pages: Type.Integer(),
});

/** Error responses every route may give, by status. */
export function errorResponses(...statuses: number[]) {
  return Object.fromEntries(
    [...new Set([400, 500, ...statuses])].map((s) => [s, { $ref: 'ErrorEnvelope#' }]),
  );
}
