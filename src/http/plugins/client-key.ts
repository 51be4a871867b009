// request.clientKey: who a request is counted as (rate limits, the event-stream cap, log lines), read
// from request.ip (TRUST_PROXY decides whether X-Forwarded-For counts) once, when the request arrives;
// request.networkKey: the wider network it belongs to (caps a customer's many addresses share), on use.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import { createClientKey, createNetworkKey } from '../../lib/client-key.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The client's IPv4 address, or its IPv6 subnet (`2001:db8:1:2::/64`), or `invalid` (src/lib/client-key.ts). */
    clientKey: string;
    /** The client's IPv4 /24 or IPv6 /48 (src/lib/client-key.ts), computed when read. */
    readonly networkKey: string;
  }
}

export const clientKeyPlugin = fp<{ ipv6Prefix: number }>(
  async (app: FastifyInstance, { ipv6Prefix }) => {
    const keyOf = createClientKey(ipv6Prefix);
    const networkOf = createNetworkKey(ipv6Prefix);
    app.decorateRequest('clientKey', '');
    // A getter: only the few routes with network caps pay for it.
    app.decorateRequest('networkKey', {
      getter(this: { ip: string }) {
        return networkOf(this.ip);
      },
    });
    // A callback hook, not an async one: every request runs it.
    app.addHook('onRequest', (request, _reply, done) => {
      const key = keyOf(request.ip);
      request.clientKey = key;
      // Every line this request logs names its client (the logger's bindings: nothing is built here).
      (request.log as Logger).setBindings({ client: key });
      done();
    });
  },
  { name: 'vaultkeeper-client-key' },
);
