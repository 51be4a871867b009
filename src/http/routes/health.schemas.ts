import { Type } from '@fastify/type-provider-typebox';
import { Timestamp } from '../../lib/json-schema.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const HealthResponse = Type.Object(
  {
    status: Type.Union([Type.Literal('healthy'), Type.Literal('degraded'), Type.Literal('unhealthy')]),
    database: Type.Union([Type.Literal('connected'), Type.Literal('disconnected')]),
    redis: Type.Union([Type.Literal('connected'), Type.Literal('disconnected'), Type.Literal('in-memory')]),
    uptime: Type.Number({ description: 'seconds since the process started' }),
    timestamp: Timestamp(),
    version: Type.String(),
    chain: Type.Object({
      status: Type.Union([
        Type.Literal('connected'),
        Type.Literal('connecting'),
        Type.Literal('disconnected'),
      ]),
      source: Nullable(
        Type.Union([Type.Literal('grpc'), Type.Literal('websocket')], {
          description:
            'the live source in use: the Yellowstone gRPC stream or the WebSocket log subscription',
        }),
      ),
      cluster: Type.String(),
      lastSlot: Nullable(Type.Integer()),
      lastEventAt: Nullable(Timestamp()),
      lagSeconds: Nullable(Type.Number()),
    }),
    responseTime: Type.Object(
      { p50: Type.Number(), p95: Type.Number(), p99: Type.Number() },
      { description: 'milliseconds, last 5 minutes' },
    ),
    errorRate: Type.Number({ description: 'share of 5xx responses, last 5 minutes' }),
  },
  { title: 'Health' },
);
