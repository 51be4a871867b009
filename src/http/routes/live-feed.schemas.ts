import { Type } from '@fastify/type-provider-typebox';
import { FEED_EVENTS } from '@vaultkeeper/webhooks';
import { Address, NullableString, StringEnum } from '../../lib/json-schema.js';

export const EventStreamQuery = Type.Object(
  { vault: Type.Optional(Address('only the events of this vault')) },
  { additionalProperties: false },
);

export const EventStreamHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({ pattern: '^[0-9]{1,15}$', description: 'resume after this event id' }),
  ),
});

/** Each frame: `id: <event id>` and `data: <FeedEvent JSON>` (docs/API.md, Live feed). */
export const FeedEvent = Type.Object(
  {
    id: Type.Integer({ minimum: 1, description: 'increasing; resume after it with Last-Event-ID' }),
    name: StringEnum(FEED_EVENTS, { description: 'the event, in the webhooks vocabulary' }),
    programEvent: NullableString({
      description: "the vault program's own name for it (Unknown when not decoded); null for an alert",
    }),
    vault: NullableString({ description: 'the vault it concerns' }),
    signature: NullableString({
      description:
        'the Solana transaction that emitted it (for an alert, the one that caused it; null for the expiry alerts)',
    }),
    eventIndex: Type.Integer({ minimum: 0 }),
    slot: Type.Unsafe<number | null>({
      type: ['integer', 'null'],
      minimum: 0,
      description: 'null for the expiry alerts',
    }),
    blockTime: NullableString({ format: 'date-time' }),
    instruction: NullableString({ description: 'the instruction that emitted it' }),
    data: Type.Record(Type.String(), Type.Unknown(), { description: "the event's decoded fields" }),
  },
  { title: 'FeedEvent' },
);

/** The stream itself: documented as text/event-stream, each `data:` line one FeedEvent. */
export const EventStreamResponse = {
  description:
    'Server-Sent Events: a first comment and `id:` naming where the stream starts, then one `id:` + `data:` frame per event (a FeedEvent as JSON), and a keep-alive comment every 15 s',
  content: {
    'text/event-stream': {
      schema: Type.String({
        description: 'SSE frames; each `data:` line is a FeedEvent (components.schemas)',
      }),
      // OpenAPI 3.1 has no field for the schema of each frame (3.2's itemSchema): an extension names it.
      'x-event-schema': FeedEvent,
    },
  },
};
