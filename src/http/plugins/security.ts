// Security headers on every response (@fastify/helmet), tuned for a JSON API whose Blink icon and
// Action endpoints are fetched from other origins, plus a page-friendly policy for the docs UI.
import helmet from '@fastify/helmet';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { validationError } from '../../errors.js';
import { sendError } from '../error-handler.js';

/** JSON and images need no script, style or framing: deny everything a browser could load. */
const API_CSP = {
  'default-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/** The API reference page: its own scripts and styles (the UI sets inline styles), images, fetches. */
const DOCS_CSP = {
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

/**
 * What helmet sends on API routes, for the replies the router makes before any hook runs (a URL that is
 * not valid percent-encoding, an over-long path segment). A test keeps it equal to helmet's output.
 */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none';base-uri 'none';form-action 'none';frame-ancestors 'none'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'cross-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'DENY',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

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

export interface SecurityPluginOptions {
  /** Routes under this prefix serve the docs page and get its policy. */
  docsPrefix: string;
}

export const securityPlugin = fp<SecurityPluginOptions>(
  async (app: FastifyInstance, { docsPrefix }) => {
    // Registered before helmet, so helmet's own onRoute hook sees the per-route option.
    app.addHook('onRoute', (route) => {
      if (
        route.helmet === undefined &&
        (route.url === docsPrefix || route.url.startsWith(`${docsPrefix}/`))
      ) {
        route.helmet = { contentSecurityPolicy: { useDefaults: false, directives: DOCS_CSP } };
      }
    });
    await app.register(helmet, {
      global: true,
      contentSecurityPolicy: { useDefaults: false, directives: API_CSP },
      // Wallets and Blink clients on other origins load the icon and call the Action endpoints.
      crossOriginResourcePolicy: { policy: 'cross-origin' },
      frameguard: { action: 'deny' },
      referrerPolicy: { policy: 'no-referrer' },
    });
  },
  { name: 'vaultkeeper-security' },
);
