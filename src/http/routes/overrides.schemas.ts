import { Type } from '@fastify/type-provider-typebox';
import { OVERRIDE_STATUSES } from '../../storage/schema/overrides.js';
import { Address, Lamports, Pagination, PaginationQuery, Timestamp } from '../schemas/common.js';
import { NullableString, StringEnum } from '../schemas/json-types.js';

export const OverrideListQuery = Type.Object(
  {
    vault: Type.Optional(Address('only overrides of this vault (its address)')),
    status: Type.Optional(StringEnum(OVERRIDE_STATUSES)),
    page: Type.Optional(PaginationQuery.page),
    limit: Type.Optional(PaginationQuery.limit),
  },
  { additionalProperties: false },
);

export const OverrideParams = Type.Object({
  vault: Address('the vault address'),
  nonce: Type.String({ pattern: '^[0-9]{1,20}$', description: 'the override nonce (u64, decimal)' }),
});

export const Override = Type.Object({
  id: Type.String({ format: 'uuid' }),
  vaultId: Type.String({ format: 'uuid', description: 'the vault record id' }),
  vault: Address('the vault address'),
  nonce: Type.String({ pattern: '^[0-9]+$', description: 'identifies the override within its vault' }),
  destination: Address(),
  amount: Lamports(),
  blockReason: NullableString({
    description:
      'why the program blocked the transfer that asked for it (not_whitelisted, exceeded_daily_limit, insufficient_funds); null when the owner requested it',
  }),
  status: StringEnum(OVERRIDE_STATUSES),
  expiresAt: Timestamp(),
  createdAt: Timestamp(),
  expired: Type.Boolean({ description: 'pending and past expiresAt: it can no longer be approved' }),
  blinkUrl: Type.String({ format: 'uri', description: 'its Blink (Solana Action) metadata' }),
  approvalUrl: Type.String({
    format: 'uri',
    description: 'the approval page for a plain browser, where a wallet approves or rejects it',
  }),
});

export const OverrideList = Type.Object({ overrides: Type.Array(Override), pagination: Pagination });
