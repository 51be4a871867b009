import { Type } from '@fastify/type-provider-typebox';
import { MAX_NAME_BYTES, MAX_WHITELIST } from '../../domain/policy/program-limits.js';
import { VaultDetail } from '../../domain/vaults/vault-resource.js';
import { Address, NullableString } from '../../lib/json-schema.js';
import { LamportsInput } from '../schemas/common.js';

const VaultName = (description: string) => Type.String({ minLength: 1, maxLength: 50, description });

const UnsignedTransaction = (description: string) => Type.String({ contentEncoding: 'base64', description });

export const CreateVaultBody = Type.Object(
  {
    name: VaultName(`1 to 50 characters, at most ${MAX_NAME_BYTES} UTF-8 bytes (stored on-chain)`),
    agentSigner: Address('the agent key allowed to spend within the policy'),
    dailyLimit: LamportsInput(),
  },
  { title: 'CreateVaultRequest', additionalProperties: false },
);

export const CreateVaultResponse = Type.Object(
  {
    vault: Type.Object({
      address: Address('the vault address (VaultConfig PDA) the transaction creates'),
      depositAddress: Address('the vault-authority PDA that will hold the SOL'),
      authority: Address('the owner: the signer of this request'),
      agentSigner: Address(),
      dailyLimit: Type.String({ pattern: '^[0-9]+$', description: 'lamports' }),
      name: Type.String(),
      nonce: Type.String({
        pattern: '^[0-9]+$',
        description: 'the vault nonce (u64) seeding the vault address',
      }),
    }),
    transaction: UnsignedTransaction(
      'unsigned initialize_vault transaction, wire format, base64; fee payer = the signer',
    ),
    message: Type.String(),
  },
  { title: 'VaultBuild' },
);

/** The same `address` path parameter as the vault read, so `/api/vaults/{address}` has one name. */
export { VaultParams as UpdateVaultParams } from './vaults.schemas.js';

export const UpdateVaultBody = Type.Object(
  {
    name: Type.Optional(VaultName('off-chain display name, applied at once')),
    dailyLimit: Type.Optional(LamportsInput()),
    agentSigner: Type.Optional(Address('the new agent key')),
    paused: Type.Optional(Type.Boolean({ description: 'true pauses the vault, false resumes it' })),
    whitelist: Type.Optional(
      Type.Object(
        {
          add: Type.Optional(Type.Array(Address(), { maxItems: MAX_WHITELIST })),
          remove: Type.Optional(Type.Array(Address(), { maxItems: MAX_WHITELIST })),
        },
        {
          additionalProperties: false,
          description: `the whitelist holds at most ${MAX_WHITELIST} addresses`,
        },
      ),
    ),
  },
  {
    title: 'UpdateVaultRequest',
    additionalProperties: false,
    minProperties: 1,
    description: 'at least one field',
  },
);

export const UpdateVaultResponse = Type.Object(
  {
    vault: VaultDetail,
    transaction: NullableString({
      description:
        'unsigned transaction with the on-chain changes, wire format, base64; null when only the name changed',
    }),
    message: Type.String(),
  },
  { title: 'VaultUpdate' },
);
