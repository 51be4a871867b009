import { Type } from '@fastify/type-provider-typebox';
import { OVERRIDE_STATUSES } from '../../storage/schema/overrides.js';
import { Address, Lamports, Pagination, PaginationQuery, Signature, Timestamp } from '../schemas/common.js';
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

export const Override = Type.Object({
  id: Type.String({ format: 'uuid' }),
  vaultId: Type.String({ format: 'uuid', description: 'the vault record id' }),
  vault: Address('the vault address'),
  nonce: Type.String({
    pattern: '^[0-9]+$',
    description:
      'the override nonce its blocked transfer announced; with transferSignature it identifies the request within its vault',
  }),
  transferSignature: NullableString({
    description:
      'the blocked transaction this request lets through; null for an override created on chain without one',
  }),
  chainNonce: NullableString({
    description:
      'the nonce of its on-chain PendingOverride once created (the chain may give a later nonce than announced)',
  }),
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
