import { Type } from '@fastify/type-provider-typebox';
import { OverrideResource } from '../../domain/overrides/override-resource.js';
import { Address, Signature } from '../../lib/json-schema.js';
import { Pagination } from '../../lib/pagination.js';
import { OVERRIDE_STATUSES } from '../../storage/schema/overrides.js';
import { VaultStatusListQuery } from '../schemas/common.js';

/** The route response of one override (the domain's resource schema). */
export { OverrideResource as Override };

const VaultStatusQuery = VaultStatusListQuery('overrides', OVERRIDE_STATUSES);

export const OverrideListQuery = Type.Object(
  {
    ...VaultStatusQuery.properties,
    owner: Type.Optional(
      Address(
        'only overrides of the vaults this wallet owns (their authority); with status=pending, only those not yet expired: the overrides awaiting the owner',
      ),
    ),
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

export const OverrideList = Type.Object(
  { overrides: Type.Array(OverrideResource), pagination: Pagination },
  { title: 'OverrideList' },
);

export const PreviewQuery = Type.Object(
  { ...transferParam, account: Address('the wallet that would sign: the vault authority') },
  { additionalProperties: false },
);

const Lamports = (description: string) => Type.String({ pattern: '^-?[0-9]{1,20}$', description });

/** What the owner would sign, simulated: GET /api/overrides/:vault/:nonce/preview. */
export const TransactionPreview = Type.Object(
  {
    instructions: Type.Array(Type.String(), {
      description: 'instruction names in order, compute budget ones included',
    }),
    computeUnits: Type.Union([Type.Integer(), Type.Null()], {
      description: 'the SetComputeUnitLimit the transaction carries; null when the simulation failed',
    }),
    priorityFeeLamports: Lamports('price × compute units / 10^6, rounded up'),
    networkFeeLamports: Lamports('5 000 lamports per signature'),
    simulationError: Type.Union([
      Type.Null(),
      Type.Object({
        message: Type.String(),
        programError: Type.Union([Type.Null(), Type.Object({ code: Type.Integer(), name: Type.String() })]),
        runtimeError: Type.Union([Type.Null(), Type.String()]),
      }),
    ]),
    balanceChanges: Type.Array(
      Type.Object({
        address: Type.String(),
        role: Type.Union([
          Type.Literal('payer'),
          Type.Literal('vault'),
          Type.Literal('destination'),
          Type.Literal('treasury'),
        ]),
        before: Lamports('lamports now'),
        after: Lamports('lamports after the transaction, fees included'),
        delta: Lamports('after − before (signed)'),
      }),
    ),
  },
  {
    $id: 'TransactionPreview',
    description:
      'The approve transaction for `account`, simulated: a failing simulation sets simulationError',
  },
);
