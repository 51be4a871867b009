// A fetch that answers from the app itself (app.inject): the client package, pointed at the same app,
// serves POST /mcp's tools without a socket. Its requests carry the process's own token, so the
// caller's POST /mcp alone spends the rate-limit budget, not each request a tool makes.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';

export const IN_PROCESS_HEADER = 'x-vaultkeeper-in-process';

export interface InProcessCalls {
  /** A fetch into `app`, counted in logs as `remoteAddress`. */
  fetchFor(app: FastifyInstance, remoteAddress: string): typeof fetch;
  /** True for a request this process made to itself. */
  isInProcess(request: FastifyRequest): boolean;
}

export function createInProcessCalls(): InProcessCalls {
  const token = randomBytes(24).toString('base64url');
  const expected = Buffer.from(token);
  return {
    fetchFor: (app, remoteAddress) => async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const headers: Record<string, string> = { ...(init?.headers as Record<string, string> | undefined) };
      headers[IN_PROCESS_HEADER] = token;
      const res = await app.inject({
        method: (init?.method ?? 'GET') as 'GET',
        url: `${url.pathname}${url.search}`,
        headers,
        ...(init?.body == null ? {} : { payload: Buffer.from(init.body as Uint8Array) }),
        ...(init?.signal == null ? {} : { signal: init.signal }),
        remoteAddress,
      });
      const out = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (Array.isArray(value)) for (const each of value) out.append(name, each);
        else if (value !== undefined) out.set(name, String(value));
      }
      const empty = res.statusCode === 204 || res.statusCode === 304;
      return new Response(empty ? null : new Uint8Array(res.rawPayload), {
        status: res.statusCode,
        headers: out,
      });
    },
    isInProcess(request) {
      const given = request.headers[IN_PROCESS_HEADER];
      if (typeof given !== 'string' || given.length !== token.length) return false;
      return timingSafeEqual(Buffer.from(given), expected);
    },
  };
}
