import { Type } from '@fastify/type-provider-typebox';
import { OverrideResource } from '../../domain/overrides/override-resource.js';
import { Address, Signature } from '../../lib/json-schema.js';
import { Pagination } from '../../lib/pagination.js';
import { OVERRIDE_STATUSES } from '../../storage/schema/overrides.js';
import { VaultStatusListQuery } from '../schemas/common.js';

/** The route response of one override (the domain's resource schema). */
export { OverrideResource as Override };

export const OverrideListQuery = VaultStatusListQuery('overrides', OVERRIDE_STATUSES);

export const OverrideParams = Type.Object({
  vault: Address('the vault address'),
  nonce: Type.String({
    pattern: '^[0-9]{1,20}$',
    description: 'the nonce the blocked transfer announced (u64, decimal)',
  }),
});

const transferParam = {
  transfer: Type.Optional(
    Signature(
      'the blocked transfer: needed for every request but the first that announced this nonce (see its blinkUrl)',
    ),
  ),
};

/** Every request after the first that announced a nonce is addressed with its transfer's signature. */
export const OverrideAddressQuery = Type.Object(transferParam, { additionalProperties: false });

/** The same address on links people and wallets follow, which may carry parameters of their own. */
export const SharedLinkQuery = Type.Object(transferParam, { additionalProperties: true });

export const OverrideList = Type.Object(
  { overrides: Type.Array(OverrideResource), pagination: Pagination },
  { title: 'OverrideList' },
);
