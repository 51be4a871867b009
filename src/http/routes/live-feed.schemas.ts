import { Type } from '@fastify/type-provider-typebox';
import { Address } from '../../lib/json-schema.js';

export const EventStreamQuery = Type.Object(
  { vault: Type.Optional(Address('only the events of this vault')) },
  { additionalProperties: false },
);

export const EventStreamHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({ pattern: '^[0-9]{1,15}$', description: 'resume after this event id' }),
  ),
});
