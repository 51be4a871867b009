import { Type } from '@fastify/type-provider-typebox';
import { ApiKey } from '../../domain/api-keys/api-key-resource.js';
import { API_KEY_SCOPES } from '../../domain/api-keys/api-key-scopes.js';
import { Address, StringEnum } from '../../lib/json-schema.js';

export { ApiKey };

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '\\S',
      description: '1 to 64 characters, not only spaces: what the key is for',
    }),
    scopes: Type.Optional(
      Type.Array(StringEnum(API_KEY_SCOPES), {
        minItems: 1,
        maxItems: API_KEY_SCOPES.length,
        uniqueItems: true,
        description: 'what the key may do (default: every scope)',
      }),
    ),
    vaults: Type.Optional(
      Type.Array(Address('a vault of the signing wallet'), {
        minItems: 1,
        maxItems: 100,
        uniqueItems: true,
        description: 'the vaults the key may act on (default: every vault of the wallet, now and later)',
      }),
    ),
    expiresAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'when the key stops working: in the future, at most one year away (default: never)',
      }),
    ),
  },
  { title: 'CreateApiKeyRequest', additionalProperties: false },
);

export const ApiKeyWithKey = Type.Object(
  {
    ...ApiKey.properties,
    key: Type.String({
      pattern: '^vk_[A-Za-z0-9_-]{43}$',
      description: 'the key (vk_ + base64url of 32 random bytes): shown only in this response',
    }),
  },
  { title: 'ApiKeyWithKey', description: 'A new API key, with the key itself (shown once)' },
);

/** Registered by the app under its $id: responses refer to it, and the OpenAPI document names it. */
export const ApiKeyList = Type.Object(
  {
    apiKeys: Type.Array(Type.Unsafe<ApiKey>({ $ref: 'ApiKey#' })),
  },
  { title: 'ApiKeyList' },
);

export const ApiKeyIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
