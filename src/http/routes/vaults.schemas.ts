import { Format, Type } from '@fastify/type-provider-typebox';
import { VaultDetail, VaultListItem } from '../../domain/vaults/vault-resource.js';
import { isBase58Address } from '../../lib/base58.js';
import { Address } from '../../lib/json-schema.js';
import { Pagination } from '../../lib/pagination.js';
import { isUuid } from '../../lib/uuid.js';
import { PaginationQuery } from '../schemas/common.js';

export { VaultDetail };

Format.Set('vault-id', (value) => isUuid(value) || isBase58Address(value));

export const VaultListQuery = Type.Object(
  {
    page: Type.Optional(PaginationQuery.page),
    limit: Type.Optional(PaginationQuery.limit),
    owner: Type.Optional(Address('only vaults whose authority (owner) is this address')),
  },
  { additionalProperties: false },
);

export const VaultParams = Type.Object({
  address: Type.String({
    format: 'vault-id',
    minLength: 32,
    maxLength: 44,
    description: 'the vault address (VaultConfig PDA) or the record uuid',
  }),
});

export const VaultList = Type.Object(
  { vaults: Type.Array(VaultListItem), pagination: Pagination },
  { title: 'VaultList' },
);
