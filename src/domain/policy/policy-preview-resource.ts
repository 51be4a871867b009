// The policy preview's request and response: schemas (the API's and the client's) and types.
import { type Static, Type } from 'typebox';
import { Address, Lamports, NullableString, StringEnum, Timestamp } from '../../lib/json-schema.js';
import { BLOCK_REASONS } from '../transactions/transaction-resource.js';
import { MAX_WHITELIST } from './program-limits.js';

/** The replay reaches back at most this far; the default period is the last 30 days. */
export const PREVIEW_MAX_DAYS = 90;
export const PREVIEW_DEFAULT_DAYS = 30;
/** At most this many changed attempts are listed; `truncated` says there were more. */
export const PREVIEW_MAX_CHANGES = 100;

export const PolicyPreviewBody = Type.Object(
  {
    dailyLimit: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1 }), Type.String({ pattern: '^[0-9]{1,20}$' })], {
        description: 'the proposed daily limit in lamports: a JSON integer or a decimal string, 1..2^64-1',
      }),
    ),
    whitelist: Type.Optional(
      Type.Array(Address(), {
        maxItems: MAX_WHITELIST,
        uniqueItems: true,
        description: `the proposed whitelist, whole (at most ${MAX_WHITELIST} addresses); [] = any destination`,
      }),
    ),
    since: Type.Optional(
      Timestamp(
        `start of the period to replay (ISO 8601); default ${PREVIEW_DEFAULT_DAYS} days back, at most ${PREVIEW_MAX_DAYS}`,
      ),
    ),
  },
  {
    title: 'PolicyPreviewRequest',
    additionalProperties: false,
    description: 'at least one of dailyLimit and whitelist; what is left out stays as it is now',
  },
);
export type PolicyPreviewBody = Static<typeof PolicyPreviewBody>;

const Policy = (description: string) =>
  Type.Object(
    {
      dailyLimit: Lamports(),
      whitelist: Type.Array(Address(), { description: 'empty = any destination' }),
    },
    { description },
  );

const Outcome = (description: string) => StringEnum(['executed', 'blocked'] as const, { description });
const Reason = (description: string) =>
  Type.Unsafe<(typeof BLOCK_REASONS)[number] | null>({
    type: ['string', 'null'],
    enum: [...BLOCK_REASONS, null],
    description,
  });

export const PolicyChange = Type.Object(
  {
    signature: NullableString({ description: "the attempt's transaction signature" }),
    timestamp: Timestamp('its block time'),
    destination: Address(),
    amount: Lamports(),
    was: Outcome('what the program did'),
    wasReason: Reason('why it was blocked; null when it executed'),
    would: Outcome('what the program would do under the proposal'),
    wouldReason: Reason('why it would be blocked; null when it would execute'),
  },
  { title: 'PolicyPreviewChange' },
);

export const PolicyPreview = Type.Object(
  {
    vault: Address('the vault address'),
    period: Type.Object({ start: Timestamp(), end: Timestamp() }, { description: 'the replayed period' }),
    current: Policy('the policy the service last saw on chain'),
    proposed: Policy('the policy replayed: the request over the current one'),
    summary: Type.Object(
      {
        attempts: Type.Integer({ minimum: 0, description: 'transfer attempts replayed' }),
        newlyBlocked: Type.Integer({ minimum: 0, description: 'executed, but would be blocked' }),
        newlyAllowed: Type.Integer({ minimum: 0, description: 'blocked, but would execute' }),
        newlyBlockedVolume: Lamports('the amounts of the newly blocked attempts'),
        newlyAllowedVolume: Lamports('the amounts of the newly allowed attempts'),
        blockedUnderProposal: Type.Integer({ minimum: 0 }),
        executedUnderProposal: Type.Integer({ minimum: 0 }),
      },
      { description: 'counts over every attempt of the period, whether or not it is listed in changes' },
    ),
    changes: Type.Array(PolicyChange, {
      description: 'the attempts whose outcome would differ, oldest first, at most 100',
    }),
    truncated: Type.Boolean({ description: 'true when more than 100 attempts would change' }),
  },
  { title: 'PolicyPreview' },
);
export type PolicyPreview = Static<typeof PolicyPreview>;
