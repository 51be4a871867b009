// Security headers on every response, computed once per policy rather than per request: a JSON API
// whose Blink icon and Action endpoints are fetched from other origins, the docs UI, and the owner pages
// (routes name their own Content-Security-Policy with `config.contentSecurityPolicy`).
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type ErrorCode, validationError } from '../../errors.js';
import { HTTP_STATUS_BY_CODE } from '../error-codes.js';
import { sendError } from '../error-handler.js';

/** A Content-Security-Policy as directive name → sources. */
export type CspDirectives = Readonly<Record<string, readonly string[]>>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route's Content-Security-Policy instead of the API's. */
    contentSecurityPolicy?: CspDirectives;
    /** Filled in when the route is added: the headers its policy gives (internal). */
    securityHeaders?: Readonly<Record<string, string>>;
  }
}

/**
 * JSON and images need no script, style or framing: deny everything a browser could load, and framing
 * (which default-src does not cover). A JSON response has no base URL or forms to restrict.
 */
const API_CSP: CspDirectives = {
  'default-src': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/** The API reference page: its own scripts and styles (the UI sets inline styles), images, fetches. */
const DOCS_CSP: CspDirectives = {
  'default-src': ["'self'"],
  'base-uri': ["'self'"],
  'connect-src': ["'self'"],
  'font-src': ["'self'", 'data:'],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
  'img-src': ["'self'", 'data:'],
  'object-src': ["'none'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'", "'unsafe-inline'"],
};

const cspHeader = (directives: CspDirectives) =>
  Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join(';');

/**
 * The headers every response carries (OWASP's set for REST services): its Content-Security-Policy, no
 * framing, no MIME sniffing, HTTPS only, no referrer; and Cross-Origin-Resource-Policy `cross-origin`,
 * because wallets and Blink clients on other origins load the icon and call the Action endpoints.
 */
function baseHeaders(csp: CspDirectives): Record<string, string> {
  return {
    'content-security-policy': cspHeader(csp),
    'cross-origin-resource-policy': 'cross-origin',
    'referrer-policy': 'no-referrer',
    'strict-transport-security': 'max-age=31536000; includeSubDomains',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
  };
}

/**
 * What an HTML document (an owner page, the docs) carries besides: headers that only a browsing context
 * reads, so JSON responses, the API's hot path, go without them.
 */
export function securityHeaders(csp: CspDirectives): Readonly<Record<string, string>> {
  return Object.freeze({
    ...baseHeaders(csp),
    // Isolate our browsing context.
    'cross-origin-opener-policy': 'same-origin',
    'origin-agent-cluster': '?1',
    'x-dns-prefetch-control': 'off',
    'x-download-options': 'noopen',
    'x-permitted-cross-domain-policies': 'none',
    // The legacy XSS auditor is itself an attack surface: switched off, as current guidance says.
    'x-xss-protection': '0',
  });
}

/** What API routes send, also on replies the router makes before any hook runs. */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze(baseHeaders(API_CSP));

const URL_PROBLEMS: Readonly<Record<string, string>> = {
  FST_ERR_BAD_URL: 'is not valid percent-encoded UTF-8',
  FST_ERR_MAX_PARAM_LENGTH: 'has a path segment longer than 200 characters',
};

/** Fastify's frameworkErrors: the router refused the URL; answer with the envelope and our headers. */
export function sendFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  reply.headers(API_SECURITY_HEADERS).header('x-request-id', request.id);
  const problem = URL_PROBLEMS[error.code];
  return sendError(request, reply, problem ? validationError([{ path: 'url', message: problem }]) : error);
}

/**
 * Fastify's clientErrorHandler: Node reports a request not fully received within the request timeout
 * (or one it cannot parse) on the socket. Answer with the envelope and our headers, unless a response
 * has already begun, then close the socket either way.
 */
export function createClientErrorHandler(requestTimeoutMs: number) {
  return (error: NodeJS.ErrnoException, socket: Duplex): void => {
    const response = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE' && socket.writable && !response?.headersSent) {
      const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
      const code: ErrorCode = timedOut ? 'REQUEST_TIMEOUT' : 'VALIDATION_ERROR';
      const body = JSON.stringify({
        error: timedOut
          ? `The request was not received in full within ${requestTimeoutMs / 1000} s`
          : 'Malformed HTTP request',
        code,
        details: timedOut ? { timeoutMs: requestTimeoutMs } : {},
      });
      const status = HTTP_STATUS_BY_CODE[code];
      const headers = { ...API_SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8' };
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${Object.entries(headers)
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join('')}content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}

export interface SecurityPluginOptions {
  /** Routes under this prefix serve the docs page and get its policy. */
  docsPrefix: string;
}

export const securityPlugin = fp<SecurityPluginOptions>(
  async (app: FastifyInstance, { docsPrefix }) => {
    const docsHeaders = securityHeaders(DOCS_CSP);
    app.addHook('onRoute', (route) => {
      route.config ??= {};
      const config = route.config;
      if (config.contentSecurityPolicy !== undefined) {
        config.securityHeaders = securityHeaders(config.contentSecurityPolicy);
      } else if (route.url === docsPrefix || route.url.startsWith(`${docsPrefix}/`)) {
        config.securityHeaders = docsHeaders;
      }
    });
    // A callback hook, not an async one: this runs on every request.
    app.addHook('onRequest', (request, reply, done) => {
      reply.headers(request.routeOptions.config?.securityHeaders ?? API_SECURITY_HEADERS);
      done();
    });
  },
  { name: 'vaultkeeper-security' },
);
