import { Format, Type } from '@fastify/type-provider-typebox';
import { VAULT_TIERS } from '../../domain/vaults/vault-resource.js';
import { isBase58Address } from '../../lib/base58.js';
import { Address, Lamports, Pagination, PaginationQuery, Timestamp } from '../schemas/common.js';
import { NullableString, StringEnum } from '../schemas/json-types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
Format.Set('vault-id', (value) => UUID.test(value) || isBase58Address(value));

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

export const VaultListItem = Type.Object({
  id: Type.String({ format: 'uuid' }),
  address: Address('the vault address (VaultConfig PDA)'),
  authority: Address('the owner'),
  agentSigner: Type.String({ description: 'the agent allowed to spend (empty until the account is read)' }),
  dailyLimit: Lamports(),
  name: Type.String(),
  createdAt: Timestamp(),
  transactionCount: Type.Integer({ description: 'transactions of every status' }),
  totalVolume: Lamports('sum of executed amounts, lamports'),
});

export const VaultList = Type.Object({ vaults: Type.Array(VaultListItem), pagination: Pagination });

export const VaultDetail = Type.Object({
  id: Type.String({ format: 'uuid' }),
  address: Address('the vault address (VaultConfig PDA)'),
  depositAddress: Address('the vault-authority PDA that holds the SOL'),
  authority: Address('the owner'),
  agentSigner: Type.String({ description: 'the agent allowed to spend (empty until the account is read)' }),
  dailyLimit: Lamports(),
  spentToday: Lamports(),
  lastReset: NullableString({
    format: 'date-time',
    description: 'start of the daily window; null until read',
  }),
  name: Type.String(),
  paused: Type.Boolean(),
  whitelist: Type.Array(Address(), { description: 'destinations the agent may pay' }),
  whitelistCount: Type.Integer(),
  tier: StringEnum(VAULT_TIERS),
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
  stats: Type.Object({
    transactionCount: Type.Integer({ description: 'transactions of every status' }),
    totalVolume: Lamports('sum of executed amounts, lamports'),
    blockedCount: Type.Integer(),
    avgTransactionSize: Lamports('floor(totalVolume / executed count), "0" when none'),
  }),
});
