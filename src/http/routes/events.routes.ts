import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppDeps } from '../../app-deps.js';
import { createEventFeed, type FeedEvent } from '../../domain/events/event-feed.js';
import { EventStreamHeaders, EventStreamQuery } from './events.schemas.js';

const HEARTBEAT_MS = 15_000;

const frame = (event: FeedEvent) => `id: ${event.id}\ndata: ${JSON.stringify(event)}\n\n`;

export const eventRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps; pollIntervalMs?: number }> = async (
  app,
  { deps, pollIntervalMs },
) => {
  const feed = createEventFeed({ storage: deps.storage, ...(pollIntervalMs ? { pollIntervalMs } : {}) });
  const open = new Set<() => void>();
  // preClose: open streams must end before the server can finish closing.
  app.addHook('preClose', async () => {
    for (const end of open) end();
    feed.close();
  });

  app.get(
    '/api/events/stream',
    {
      schema: {
        tags: ['events'],
        summary: 'Live feed of ingested program events (Server-Sent Events); resume with Last-Event-ID',
        querystring: EventStreamQuery,
        headers: EventStreamHeaders,
        produces: ['text/event-stream'],
      },
    },
    async (request, reply) => {
      const vault = request.query.vault ?? null;
      const given = request.headers['last-event-id'];
      // Without Last-Event-ID the stream starts at the newest event now; with it, right after that id.
      const startAfter = given === undefined ? await feed.newestId() : Number(given);
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
      out.write(': connected\nretry: 2000\n\n');

      // Subscribe before reading the backlog so nothing falls between the two; dedupe by id.
      let sentUpTo = startAfter;
      let replaying = true;
      const held: FeedEvent[] = [];
      const send = (event: FeedEvent) => {
        if (event.id <= sentUpTo || (vault !== null && event.vault !== vault)) return;
        sentUpTo = event.id;
        out.write(frame(event));
      };
      const unsubscribe = feed.subscribe((event) => (replaying ? held.push(event) : send(event)));
      const heartbeat = setInterval(() => out.write(': keep-alive\n\n'), HEARTBEAT_MS);
      const end = () => {
        clearInterval(heartbeat);
        unsubscribe();
        open.delete(end);
        if (!out.writableEnded) out.end();
      };
      open.add(end);
      request.raw.once('close', end);
      try {
        for (const event of await feed.listSince(startAfter, vault)) send(event);
      } finally {
        replaying = false;
        for (const event of held.splice(0)) send(event);
      }
    },
  );
};
