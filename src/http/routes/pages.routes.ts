// The owner pages: HTML shells (public/pages) and their built assets (public/assets, from web/),
// held in memory, under a strict Content-Security-Policy. The pages read the same public API as anyone.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { AppError } from '../../errors.js';
import { isSolanaAddress } from '../../lib/address.js';
import { sendError } from '../error-handler.js';
import { SharedLinkQuery } from './overrides.schemas.js';
import {
  AssetParams,
  AssetQuery,
  HtmlPage,
  OverridePageParams,
  OwnerPageParams,
  VaultPageParams,
} from './pages.schemas.js';

/** Scripts, styles and connections from this origin only; wallet icons arrive as data: images. */
export const PAGE_CSP = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

interface Asset {
  body: Buffer;
  hash: string;
  contentType: string;
}

export interface Site {
  /** `rateLimited` keeps a `{{retry}}` placeholder for the seconds to wait. */
  pages: { override: string; vault: string; approvals: string; home: string; rateLimited: string };
  assets: ReadonlyMap<string, Asset>;
}

const PUBLIC_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../public');

const RETRY_PLACEHOLDER = '{{retry}}';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Reads the committed assets once and fills the shells' placeholders (cluster, demo, hashed asset URLs). */
export function loadSite(cluster: string, publicDir = PUBLIC_DIR, demo = false): Site {
  const assetDir = join(publicDir, 'assets');
  if (!existsSync(assetDir))
    throw new Error(`owner page assets missing in ${assetDir}: run npm run build:web`);
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(assetDir)) {
    const contentType = CONTENT_TYPES[extname(name)];
    if (contentType === undefined) continue;
    const body = readFileSync(join(assetDir, name));
    assets.set(name, {
      body,
      contentType,
      hash: createHash('sha256').update(body).digest('hex').slice(0, 16),
    });
  }
  const render = (page: string) =>
    readFileSync(join(publicDir, 'pages', page), 'utf8').replace(
      /\{\{([a-z]+)(?::([a-z0-9.-]+))?\}\}/g,
      (_, key, arg) => {
        if (key === 'cluster') return escapeHtml(cluster);
        if (key === 'demo') return demo ? 'true' : 'false';
        if (key === 'retry') return RETRY_PLACEHOLDER;
        const asset = key === 'asset' ? assets.get(arg) : undefined;
        if (asset === undefined) throw new Error(`${page}: unknown placeholder {{${key}:${arg}}}`);
        return `/assets/${escapeHtml(arg)}?v=${asset.hash}`;
      },
    );
  return {
    pages: {
      override: render('override.html'),
      vault: render('vault.html'),
      approvals: render('approvals.html'),
      home: render('home.html'),
      rateLimited: render('rate-limited.html'),
    },
    assets,
  };
}

function sendHtml(reply: FastifyReply, html: string, status = 200, cacheControl = 'no-cache') {
  return reply.code(status).type('text/html; charset=utf-8').header('cache-control', cacheControl).send(html);
}

/**
 * A page past its client's read budget: the same 429 and headers as the API's (Retry-After and the
 * X-RateLimit-* ones), but a short HTML page a browser can show, which loads again once the wait is over.
 */
function sendRateLimited(site: Site, reply: FastifyReply, error: AppError) {
  const seconds = Number(error.details.retryAfter);
  const wait = Number.isInteger(seconds) && seconds > 0 ? seconds : 60;
  reply.header('retry-after', wait);
  return sendHtml(reply, site.pages.rateLimited.replaceAll(RETRY_PLACEHOLDER, String(wait)), 429, 'no-store');
}

/** Whether what a page shows exists: a page for nothing answers 404 (the page then says what is wrong). */
export interface PageLookups {
  vault(address: string): Promise<unknown>;
  override(vault: string, nonce: string, transfer: string | undefined): Promise<unknown>;
}

/** 404 when the lookup says not found (or the link cannot name anything); 200 otherwise, errors included. */
async function pageStatus(lookup: () => Promise<unknown>): Promise<number> {
  try {
    await lookup();
    return 200;
  } catch (error) {
    const code = error instanceof AppError ? error.code : '';
    return code.endsWith('_NOT_FOUND') || code === 'VALIDATION_ERROR' ? 404 : 200;
  }
}

const NONCE = /^[0-9]{1,20}$/;

/** The approval and vault pages in demo mode also talk to the demo's RPC (the demo wallet sends there). */
function overridePageCsp(demoRpcUrl: string | null): typeof PAGE_CSP {
  if (demoRpcUrl === null) return PAGE_CSP;
  return { ...PAGE_CSP, 'connect-src': [...PAGE_CSP['connect-src'], new URL(demoRpcUrl).origin] };
}

/** A built asset: immutable under the URL naming its hash, revalidated (ETag) under any other. */
function sendAsset(
  site: Site,
  file: string,
  version: string | undefined,
  headers: { 'if-none-match'?: string | undefined },
  reply: FastifyReply,
) {
  const asset = site.assets.get(file);
  if (asset === undefined) throw new AppError('NOT_FOUND', 'Asset not found', { file });
  const etag = `"${asset.hash}"`;
  reply
    .header('etag', etag)
    .header('cache-control', version === asset.hash ? 'public, max-age=31536000, immutable' : 'no-cache');
  if (headers['if-none-match'] === etag) return reply.code(304).send();
  return reply.type(asset.contentType).send(asset.body);
}

export const pagesRoutes: FastifyPluginAsyncTypebox<{
  cluster: string;
  /** DEMO_MODE only: the demo's RPC; the approval page then offers the demo wallet. */
  demoRpcUrl: string | null;
  lookups: PageLookups;
}> = async (app, { cluster, demoRpcUrl, lookups }) => {
  const site = loadSite(cluster, PUBLIC_DIR, demoRpcUrl !== null);
  // A page that looks its vault or request up spends a read like the API does; the landing page and
  // the assets are served from memory and spend nothing.
  const page = { config: { contentSecurityPolicy: PAGE_CSP } } as const;
  const staticPage = { config: { rateLimit: false, contentSecurityPolicy: PAGE_CSP } } as const;
  app.setErrorHandler((error, request, reply) =>
    error instanceof AppError && error.code === 'RATE_LIMIT_EXCEEDED'
      ? sendRateLimited(site, reply, error)
      : sendError(request, reply, error),
  );

  app.get(
    '/overrides/:vault/:nonce',
    {
      config: { ...page.config, contentSecurityPolicy: overridePageCsp(demoRpcUrl) },
      schema: {
        hide: true,
        tags: ['pages'],
        summary: 'Approval page of an override: review, then approve or reject with a browser wallet',
        params: OverridePageParams,
        querystring: SharedLinkQuery,
        response: { 200: HtmlPage, 404: HtmlPage },
      },
    },
    async (request, reply) => {
      const { vault, nonce } = request.params;
      const status = NONCE.test(nonce)
        ? await pageStatus(() => lookups.override(vault, nonce, request.query.transfer))
        : 404;
      return sendHtml(reply, site.pages.override, status);
    },
  );

  app.get(
    '/vaults/:address',
    {
      // In demo mode the vault page's console offers the demo wallet too, which sends to the demo's RPC.
      config: { ...page.config, contentSecurityPolicy: overridePageCsp(demoRpcUrl) },
      schema: {
        hide: true,
        tags: ['pages'],
        summary: 'Vault page: balance, daily limit use, spending, overrides and live activity',
        params: VaultPageParams,
        response: { 200: HtmlPage, 404: HtmlPage },
      },
    },
    async (request, reply) =>
      sendHtml(reply, site.pages.vault, await pageStatus(() => lookups.vault(request.params.address))),
  );

  app.get(
    '/owners/:address/approvals',
    {
      ...staticPage,
      schema: {
        hide: true,
        tags: ['pages'],
        summary: "An owner's pending approvals across their vaults, each linking to its approval page",
        params: OwnerPageParams,
        response: { 200: HtmlPage, 404: HtmlPage },
      },
    },
    // Any wallet may own vaults, or none yet: only a link that names no address is a 404.
    async (request, reply) =>
      sendHtml(reply, site.pages.approvals, isSolanaAddress(request.params.address) ? 200 : 404),
  );

  app.get(
    '/',
    {
      ...staticPage,
      schema: {
        hide: true,
        tags: ['pages'],
        summary: 'Landing page: what the service is, where the API reference is, what Blinks are',
        response: { 200: HtmlPage },
      },
    },
    async (_request, reply) => sendHtml(reply, site.pages.home),
  );

  app.get(
    '/assets/:file',
    {
      ...staticPage,
      schema: {
        hide: true,
        tags: ['pages'],
        summary: 'A built asset of the owner pages',
        params: AssetParams,
        querystring: AssetQuery,
      },
    },
    async (request, reply) => sendAsset(site, request.params.file, request.query.v, request.headers, reply),
  );
};
