// Sends one signed webhook request with undici: SSRF-checked connections, a hard timeout, no redirects.
import { Agent, type buildConnector } from 'undici';
import { classifyFailure, describeError } from './failure-class.js';
import type { AttemptResult } from './retry-policy.js';
import { createSafeConnector, type Resolver, systemResolver } from './ssrf.js';

/** How much of a response is kept for the attempt record. */
export const RESPONSE_EXCERPT_BYTES = 1024;
/** Past this much response body the connection is dropped rather than drained. */
const MAX_DRAIN_BYTES = 64 * 1024;
const USER_AGENT = 'Vaultkeeper-Webhooks/1.0';

export interface HttpSenderOptions {
  timeoutMs: number;
  allowPrivateAddresses: boolean;
  resolve?: Resolver;
  /** Socket-level connector beneath the SSRF check; tests only. */
  connect?: buildConnector.connector;
  /** Open connections per receiver origin. */
  connectionsPerOrigin?: number;
}

export interface HttpRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

export interface SendOutcome extends AttemptResult {
  /** The first RESPONSE_EXCERPT_BYTES of the response body, as text. */
  responseBody: string | null;
  /** Why it failed in full (addresses, system errors): for the server log, never stored. */
  detail?: string;
}

export interface HttpSender {
  send(request: HttpRequest): Promise<SendOutcome>;
  close(): Promise<void>;
}

export function createHttpSender(options: HttpSenderOptions): HttpSender {
  const agent = new Agent({
    connect: createSafeConnector({
      resolve: options.resolve ?? systemResolver,
      allowPrivate: options.allowPrivateAddresses,
      timeoutMs: options.timeoutMs,
      ...(options.connect ? { connect: options.connect } : {}),
    }),
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    connections: options.connectionsPerOrigin ?? 32,
    keepAliveTimeout: 30_000,
  });

  return {
    async send(request) {
      const signal = AbortSignal.timeout(options.timeoutMs);
      try {
        const url = new URL(request.url);
        const response = await agent.request({
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers: { ...request.headers, 'user-agent': USER_AGENT },
          body: request.body,
          signal,
        });
        const excerpt = await readExcerpt(response.body);
        const retryAfter = response.headers['retry-after'];
        const ok = response.statusCode >= 200 && response.statusCode < 300;
        return {
          ok,
          statusCode: response.statusCode,
          error: null,
          retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
          responseBody: excerpt,
        };
      } catch (error) {
        const detail = signal.aborted ? `timed out after ${options.timeoutMs} ms` : describeError(error);
        const failure = classifyFailure(error, signal.aborted);
        return { ok: false, statusCode: null, error: failure, retryAfter: null, responseBody: null, detail };
      }
    },
    async close() {
      await agent.close();
    },
  };
}

/** Keeps the start of the body and drains a little more so the connection can be reused. */
async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string | null> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let total = 0;
  for await (const chunk of body) {
    if (keptBytes < RESPONSE_EXCERPT_BYTES) {
      const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - keptBytes);
      kept.push(part);
      keptBytes += part.length;
    }
    total += chunk.length;
    if (total > MAX_DRAIN_BYTES) {
      body.destroy();
      break;
    }
  }
  if (keptBytes === 0) return null;
  // PostgreSQL text cannot hold NUL; a cut multi-byte character decodes as U+FFFD.
  return Buffer.concat(kept).toString('utf8').replaceAll('\u0000', '');
}
