// Schemas shared by every route: the error envelope, pagination query, lamport input, error responses.
// Resource building blocks (addresses, lamports, timestamps) are in lib/json-schema.ts.
import { Type } from '@fastify/type-provider-typebox';
import { Address, StringEnum } from '../../lib/json-schema.js';
import { DEFAULT_LIMIT, DEFAULT_PAGE } from '../../lib/pagination.js';

/** A lamport amount in a request: a safe JSON integer or a decimal string (range checked in the domain). */
export const LamportsInput = (description = 'lamports: a JSON integer or a decimal string, 1..2^64-1') =>
  Type.Union([Type.Integer({ minimum: 1 }), Type.String({ pattern: '^[0-9]{1,20}$' })], { description });

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
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: DEFAULT_PAGE }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: DEFAULT_LIMIT }),
};

/** The query of a resource list filtered by vault and status: `?vault=&status=&page=&limit=`. */
export const VaultStatusListQuery = <const T extends readonly string[]>(resource: string, statuses: T) =>
  Type.Object(
    {
      vault: Type.Optional(Address(`only ${resource} of this vault (its address)`)),
      status: Type.Optional(StringEnum(statuses)),
      page: Type.Optional(PaginationQuery.page),
      limit: Type.Optional(PaginationQuery.limit),
    },
    { additionalProperties: false },
  );

/** Error responses every route may give, by status. */
export function errorResponses(...statuses: number[]) {
  return Object.fromEntries(
    [...new Set([400, 500, ...statuses])].map((s) => [s, { $ref: 'ErrorEnvelope#' }]),
  );
}

/** A response schema with what it means for this operation (the OpenAPI document's response description). */
export const described = <T extends object>(schema: T, description: string): T => ({
  ...schema,
  description,
});
