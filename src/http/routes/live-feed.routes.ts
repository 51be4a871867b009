import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createConcurrencyCap } from '../../domain/concurrency-caps.js';
import type { FeedEvent, LiveFeed } from '../../domain/live-feed/live-feed.js';
import { getSlotLimits } from '../../lib/concurrency-slots.js';
import type { Metrics } from '../../lib/metrics.js';
import { errorResponses } from '../schemas/common.js';
import { EventStreamHeaders, EventStreamQuery, EventStreamResponse } from './live-feed.schemas.js';

const HEARTBEAT_MS = 15_000;
/** Open streams one client address may hold at once. */
export const STREAMS_PER_CLIENT = 5;
/** What a refused client is told to wait before trying again. */
const STREAM_RETRY_AFTER_SECONDS = 5;

/** Counts open streams per client, per network and in all; a slot is taken before the stream opens. */
const createStreamSlots = (total: number, metrics: Metrics) => {
  const refusals = metrics.rateLimitRejections.labels('event_streams');
  return createConcurrencyCap(getSlotLimits(STREAMS_PER_CLIENT, total), {
    retryAfterSeconds: STREAM_RETRY_AFTER_SECONDS,
    what: 'event streams open',
    onRefused: () => refusals.inc(),
  });
};

const frame = (event: FeedEvent) => `id: ${event.id}\ndata: ${JSON.stringify(event)}\n\n`;

export const liveFeedRoutes: FastifyPluginAsyncTypebox<{
  feed: LiveFeed;
  maxStreams: number;
  metrics: Metrics;
}> = async (app, { feed, maxStreams, metrics }) => {
  const slots = createStreamSlots(maxStreams, metrics);
  metrics.inProcessSizes.set('event_streams', slots.open);
  const open = new Set<() => void>();
  // preClose: open streams must end before the server can finish closing.
  app.addHook('preClose', async () => {
    for (const end of open) end();
  });

  app.get(
    '/api/events/stream',
    {
      schema: {
        operationId: 'streamEvents',
        tags: ['events'],
        summary: 'Live feed of ingested program events (Server-Sent Events); resume with Last-Event-ID',
        querystring: EventStreamQuery,
        headers: EventStreamHeaders,
        response: { 200: EventStreamResponse, ...errorResponses(503) },
      },
    },
    async (request, reply) => {
      const release = slots.acquire(request);
      // Released when the stream ends, or when the client leaves before it opens.
      request.raw.once('close', release);
      if (request.socket.destroyed) release();
      const vault = request.query.vault ?? null;
      const given = request.headers['last-event-id'];
      // Subscribe before reading the backlog; the feed's boundary splits the two: the backlog is every
      // event in (startAfter, boundary], the listener gets every event after it (docs/API.md, Live
      // feed). Live events are held while the backlog is sent; dedupe by id all the same.
      let sentUpTo = 0;
      let replaying = true;
      const held: FeedEvent[] = [];
      const send = (event: FeedEvent) => {
        if (event.id <= sentUpTo || (vault !== null && event.vault !== vault)) return;
        sentUpTo = event.id;
        reply.raw.write(frame(event));
      };
      const subscription = feed.subscribe((event) => (replaying ? held.push(event) : send(event)));
      let boundary: number;
      try {
        boundary = await subscription.boundary;
      } catch (error) {
        subscription.unsubscribe();
        throw error;
      }
      // Without Last-Event-ID the stream starts at the newest event now; with it, right after that id.
      const startAfter = given === undefined ? boundary : Number(given);
      sentUpTo = startAfter;
      // The headers the hooks set (security, request id, rate limits) go out with the stream's own.
      const headers = reply.getHeaders() as OutgoingHttpHeaders;
      reply.hijack();
      const out = reply.raw;
      out.writeHead(200, {
        ...headers,
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      // The id names where this stream starts: a client that drops before any event resumes from here.
      out.write(`: connected\nid: ${startAfter}\nretry: 2000\n\n`);

      const heartbeat = setInterval(() => out.write(': keep-alive\n\n'), HEARTBEAT_MS);
      const end = () => {
        release();
        clearInterval(heartbeat);
        subscription.unsubscribe();
        open.delete(end);
        if (!out.writableEnded) out.end();
      };
      open.add(end);
      request.raw.once('close', end);
      if (request.socket.destroyed) end();
      try {
        if (startAfter < boundary)
          for (const event of await feed.listSince(startAfter, vault, boundary)) send(event);
      } finally {
        replaying = false;
        for (const event of held.splice(0)) send(event);
      }
    },
  );
};
