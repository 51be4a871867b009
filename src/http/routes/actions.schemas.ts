import { Type } from '@fastify/type-provider-typebox';
import { SignMessageData, signMessageFields } from '../../domain/approvals/sign-message-data.js';
import { Address } from '../../lib/json-schema.js';
import { errorResponses } from '../schemas/common.js';
import { SharedLinkQuery } from './overrides.schemas.js';

export const ActionParams = Type.Object({
  vault: Address('vault address (the VaultConfig PDA)'),
  nonce: Type.String({
    pattern: '^[0-9]{1,20}$',
    description: 'the override nonce its blocked transfer announced (u64, decimal)',
  }),
});

export const ActionQuery = SharedLinkQuery;

/** The Actions ActionPostRequest: wallets add `type` (and `data` for forms); other fields are ignored. */
export const ActionPostBody = Type.Object(
  {
    account: Address('the wallet that signs: must be the vault authority'),
    type: Type.Optional(
      Type.Union(
        [
          Type.Literal('transaction'),
          Type.Literal('message'),
          Type.Literal('post'),
          Type.Literal('external-link'),
        ],
        { description: 'the linked action type the client followed (Actions ActionPostRequest)' },
      ),
    ),
    data: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]), {
        description: 'form values (Actions ActionPostRequest); these Actions take none',
      }),
    ),
  },
  { title: 'ActionPostRequest', additionalProperties: true },
);

const ActionError = Type.Object({ message: Type.String() });

const LinkedAction = Type.Object({
  type: Type.Union([Type.Literal('transaction'), Type.Literal('message')]),
  label: Type.String(),
  href: Type.String({ format: 'uri' }),
});

export const ActionMetadataResponse = Type.Object(
  {
    type: Type.Literal('action'),
    icon: Type.String({ format: 'uri' }),
    title: Type.String(),
    description: Type.String(),
    label: Type.String(),
    disabled: Type.Optional(Type.Boolean()),
    links: Type.Object({ actions: Type.Array(LinkedAction) }),
    error: Type.Optional(ActionError),
  },
  { title: 'ActionGetResponse', description: 'Solana Actions GET response (Actions spec 2.4)' },
);

const NextLink = Type.Object({ type: Type.Literal('post'), href: Type.String({ format: 'uri' }) });

export const TransactionResponse = Type.Object(
  {
    type: Type.Literal('transaction'),
    transaction: Type.String({
      description:
        'unsigned wire transaction, base64; fee payer = account. Simulated before it is handed out; starts with SetComputeUnitLimit and SetComputeUnitPrice',
    }),
    message: Type.String(),
    links: Type.Object(
      { next: NextLink },
      {
        description:
          'Action chaining: POST { account, signature } to links.next.href once the transaction is sent',
      },
    ),
  },
  { title: 'ActionTransactionResponse' },
);

/** The Actions chaining POST after a transaction was sent: the account and the signature. */
export const ConfirmApproveBody = Type.Object(
  {
    account: Address('the vault authority that signed and sent the approve transaction'),
    signature: Type.String({
      minLength: 1,
      maxLength: 128,
      description: 'base58 signature of the sent transaction',
    }),
    type: Type.Optional(Type.String({ maxLength: 32, description: 'ignored' })),
  },
  { title: 'ConfirmApproveRequest', additionalProperties: true },
);

const PostResponse = Type.Object({ type: Type.Literal('post'), message: Type.String() });

const SignMessageResponse = Type.Object({
  type: Type.Literal('message'),
  // The response copy checks no formats: the serializer would only warn about the custom one.
  data: signMessageFields(Type.String({ description: 'base58 address that must sign' })),
  state: Type.String({ description: 'relay unchanged to links.next' }),
  links: Type.Object({
    next: NextLink,
  }),
});

export const RejectResponse = Type.Union([PostResponse, SignMessageResponse], {
  title: 'ActionRejectResponse',
  description:
    '`post` when wallet-auth headers of the authority were sent (rejected at once); otherwise `message`: sign `data` and POST it to links.next',
});

export const ConfirmRejectBody = Type.Object(
  {
    account: Address('the vault authority that signed'),
    type: Type.Optional(Type.String({ maxLength: 32, description: 'ignored' })),
    signature: Type.String({ minLength: 1, maxLength: 128, description: 'base58 ed25519 signature' }),
    data: Type.Union([SignMessageData, Type.String({ maxLength: 2000 })], {
      description: 'the SignMessageData that was signed (or its text)',
    }),
    state: Type.String({ maxLength: 256 }),
  },
  { title: 'ConfirmRejectRequest', additionalProperties: false },
);

export const CompletedAction = Type.Object(
  {
    type: Type.Literal('completed'),
    icon: Type.String({ format: 'uri' }),
    title: Type.String(),
    description: Type.String(),
    label: Type.String(),
  },
  { title: 'ActionCompletedResponse' },
);

export const ActionsJson = Type.Object(
  {
    rules: Type.Array(Type.Object({ pathPattern: Type.String(), apiPath: Type.String() })),
  },
  { title: 'ActionsJson' },
);

export const actionErrors = (...statuses: number[]) => errorResponses(404, ...statuses);
