// JSON-Schema shapes the response serializer writes directly (type arrays and enums, not anyOf branches).
import { type TUnsafe, Type } from '@fastify/type-provider-typebox';

/** `string | null` as one type array (OpenAPI 3.1). */
export const NullableString = (
  options: { description?: string; format?: string } = {},
): TUnsafe<string | null> => Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });

/** One of a fixed set of strings, as `enum` (a bad value reads "must be equal to one of the allowed values"). */
export const StringEnum = <const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
): TUnsafe<T[number]> => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
