import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runForTest } from '../support/child-process.js';
import { createOverride, createVault, randomAddress } from '../support/factories.js';
import { useTestApps } from '../support/test-apps.js';

let VAULT: string;
let NONCE: string;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const world = useTestApps({
  env: { SOLANA_CLUSTER: 'testnet' },
  fileApp: {
    setUp: async (_app, apps) => {
      const vault = await createVault(apps.db);
      VAULT = vault.address;
      NONCE = String((await createOverride(apps.db, { vault })).nonce);
    },
  },
  emptyEachTest: false,
});

const directives = (csp: string) =>
  Object.fromEntries(
    csp.split(';').map((part) => {
      const [name = '', ...values] = part.trim().split(/\s+/);
      return [name, values];
    }),
  );

/** The hashed asset URLs an HTML page references. */
const assetUrls = (html: string) => [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);

describe('owner pages', () => {
  for (const [name, path] of [
    ['overrides', () => `/overrides/${VAULT}/${NONCE}`],
    ['vaults', () => `/vaults/${VAULT}`],
    // Any wallet address has the page (it may own nothing yet): it looks nothing up itself.
    ['owner approvals', () => `/owners/${randomAddress()}/approvals`],
  ] as const) {
    test(`${name} page: an HTML shell under a strict Content-Security-Policy`, async () => {
      const res = await world.app.inject({ method: 'GET', url: path() });
      assert.equal(res.statusCode, 200);
      assert.match(res.headers['content-type'] as string, /^text\/html; charset=utf-8/);
      assert.equal(res.headers['cache-control'], 'no-cache');
      const csp = directives(res.headers['content-security-policy'] as string);
      assert.deepEqual(csp['script-src'], ["'self'"]);
      assert.deepEqual(csp['style-src'], ["'self'"]);
      assert.deepEqual(csp['connect-src'], ["'self'"]);
      assert.deepEqual(csp['default-src'], ["'none'"]);
      assert.deepEqual(csp['frame-ancestors'], ["'none'"]);
      // No inline script or style the policy would have to allow.
      assert.doesNotMatch(res.body, /<script(?![^>]*\bsrc=)[^>]*>/);
      assert.doesNotMatch(res.body, /\sstyle=|<style/);
      assert.match(res.body, /<meta name="vaultkeeper-cluster" content="testnet">/);
      assert.equal(assetUrls(res.body).length, 2);
    });
  }

  test('a page for a vault or request that does not exist answers 404, with the page (it says so)', async () => {
    for (const url of [
      `/vaults/${randomAddress()}`,
      '/vaults/not-an-address',
      `/overrides/${VAULT}/987654`,
      `/overrides/${randomAddress()}/${NONCE}`,
      `/overrides/${VAULT}/seven`,
      '/owners/not-an-address/approvals',
    ]) {
      const res = await world.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
      assert.match(res.headers['content-type'] as string, /^text\/html/, url);
      assert.match(res.body, /<main id="app"/, url);
    }
  });

  test('a page that looks a vault or request up spends a read; past the budget a browser gets a 429 page that loads again', async () => {
    const client = { remoteAddress: '198.51.100.9' };
    for (let i = 0; i < 100; i += 1) {
      const res = await world.app.inject({ method: 'GET', url: `/vaults/${randomAddress()}`, ...client });
      assert.equal(res.statusCode, 404);
      assert.equal(res.headers['x-ratelimit-limit'], '100');
      assert.equal(res.headers['x-ratelimit-remaining'], String(99 - i));
    }
    const limited = await world.app.inject({ method: 'GET', url: `/overrides/${VAULT}/${NONCE}`, ...client });
    assert.equal(limited.statusCode, 429);
    assert.match(limited.headers['content-type'] as string, /^text\/html; charset=utf-8/);
    assert.equal(limited.headers['cache-control'], 'no-store');
    assert.equal(limited.headers['x-ratelimit-remaining'], '0');
    const retryAfter = Number(limited.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `retry-after ${retryAfter}`);
    assert.match(limited.body, /<h1>Too many requests<\/h1>/);
    assert.match(limited.body, new RegExp(`<meta http-equiv="refresh" content="${retryAfter}">`));
    assert.match(limited.body, new RegExp(`again by itself in ${retryAfter} seconds`));
    assert.deepEqual(directives(limited.headers['content-security-policy'] as string)['script-src'], [
      "'self'",
    ]);
    for (const url of assetUrls(limited.body)) {
      assert.equal((await world.app.inject({ method: 'GET', url, ...client })).statusCode, 200, url);
    }
    // The API answers the same client with its JSON envelope; the landing page and assets stay free.
    const api = await world.app.inject({ method: 'GET', url: `/api/vaults/${VAULT}`, ...client });
    assert.equal(api.statusCode, 429);
    assert.equal(api.json().code, 'RATE_LIMIT_EXCEEDED');
    for (const url of ['/', ...assetUrls((await world.app.inject({ method: 'GET', url: '/' })).body)]) {
      const res = await world.app.inject({ method: 'GET', url, ...client });
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.headers['x-ratelimit-limit'], undefined, url);
    }
  });

  test('GET / is a small landing page: the API reference, the OpenAPI document, what Blinks are', async () => {
    const res = await world.app.inject({ method: 'GET', url: '/' });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^text\/html; charset=utf-8/);
    assert.match(res.body, /href="\/docs"/);
    assert.match(res.body, /href="\/api\/openapi\.json"/);
    assert.match(res.body, /Blink/);
    assert.match(res.body, /\(testnet\)/);
    assert.doesNotMatch(res.body, /<script/);
    const docs = await world.app.inject({ method: 'GET', url: '/docs' });
    assert.ok([200, 302].includes(docs.statusCode), `/docs answered ${docs.statusCode}`);
  });

  test('assets named by their content hash are cached for good; other URLs revalidate', async () => {
    const page = await world.app.inject({ method: 'GET', url: `/vaults/${VAULT}` });
    for (const url of assetUrls(page.body)) {
      const hashed = await world.app.inject({ method: 'GET', url });
      assert.equal(hashed.statusCode, 200, url);
      assert.equal(hashed.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.match(hashed.headers['content-type'] as string, /^(text\/javascript|text\/css); charset=utf-8$/);
      const file = url.split('?')[0]!.replace('/assets/', '');
      assert.deepEqual(hashed.rawPayload, readFileSync(`${ROOT}/public/assets/${file}`));

      const plain = await world.app.inject({ method: 'GET', url: url.split('?')[0]! });
      assert.equal(plain.headers['cache-control'], 'no-cache');
      const again = await world.app.inject({
        method: 'GET',
        url: url.split('?')[0]!,
        headers: { 'if-none-match': plain.headers.etag as string },
      });
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
    }
  });

  test('an unknown asset is a JSON 404, and no path escapes the asset folder', async () => {
    const missing = await world.app.inject({ method: 'GET', url: '/assets/nothing.js' });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().code, 'NOT_FOUND');
    for (const url of [
      '/assets/..%2Fpages%2Fvault.html',
      '/assets/%2e%2e%2fpackage.json',
      '/assets/pages.css.map',
    ]) {
      const res = await world.app.inject({ method: 'GET', url });
      assert.ok([400, 404].includes(res.statusCode), `${url} answered ${res.statusCode}`);
      assert.equal(res.json().code === 'NOT_FOUND' || res.json().code === 'VALIDATION_ERROR', true);
    }
  });

  test('the committed bundle is what web/ builds to (npm run build:web)', async () => {
    const check = await runForTest(process.execPath, ['scripts/build-web.mjs', '--check'], { cwd: ROOT });
    assert.equal(check.code, 0, check.stderr);
  });
});
