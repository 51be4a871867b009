// The Blink's GET (what a wallet shows of a blocked transfer) and the Action plumbing around it:
// actions.json, the icon, CORS and OPTIONS, the error envelope, rate limits and caching.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { createTestWallet } from '../../dev/support/wallet.js';
import { blinks } from '../../src/storage/schema/index.js';
import {
  assertActionError,
  assertActionHeaders,
  findBlink,
  findBlinkOrNull,
  OPS_BUDGET_REQUEST,
  useBlinkApps,
} from '../support/blink-actions.js';
import { randomAddress } from '../support/factories.js';
import { BLINKS_BASE_URL } from '../support/seeded-overrides.js';
import { waitFor } from '../support/wait.js';

const { apps, clock, seed, post } = useBlinkApps({ seed: OPS_BUDGET_REQUEST });

describe('GET /api/actions/:vault/:nonce', () => {
  test('describes the blocked transfer for a person: vault name, SOL and lamports, destination, reason, time left', async () => {
    const s = await seed();
    const res = await apps.app.inject({ method: 'GET', url: s.url });
    assert.equal(res.statusCode, 200, res.body);
    assertActionHeaders(res);
    const body = res.json();
    assert.equal(body.type, 'action');
    assert.equal(body.title, 'Approve Transaction Override');
    assert.equal(body.label, 'Approve');
    assert.equal(body.icon, `${BLINKS_BASE_URL}/api/actions/icon.svg`);
    assert.deepEqual(body.links.actions, [
      { type: 'transaction', label: 'Approve', href: `${BLINKS_BASE_URL}${s.url}/approve` },
      { type: 'message', label: 'Reject', href: `${BLINKS_BASE_URL}${s.url}/reject` },
    ]);
    assert.equal(body.disabled, undefined);
    assert.equal(body.error, undefined);
    for (const part of [
      'Vault "Ops budget"',
      '2 SOL (2000000000 lamports)',
      s.destination,
      'daily spending limit',
    ]) {
      assert.ok(body.description.includes(part), `description names ${part}: ${body.description}`);
    }
    assert.match(body.description, /Expires in 42 minutes \(\d{4}-\d\d-\d\dT[\d:.]+Z\)/);
  });

  test('counts each view on the Blink record (written in batches, within a moment)', async () => {
    const s = await seed();
    await apps.app.inject({ method: 'GET', url: s.url });
    await apps.app.inject({ method: 'GET', url: s.url });
    const blink = await waitFor(async () => {
      const row = await findBlink(apps.db, s.override.id);
      return row.viewCount === 2 ? row : null;
    });
    assert.equal(blink.approveCount, 0);
    assert.equal(blink.url, `${BLINKS_BASE_URL}${s.url}`);
    assert.equal(blink.lastUsedAt?.getTime(), clock.nowMs);
  });

  test('creates the Blink record on first use when ingestion has not', async () => {
    const s = await seed();
    await apps.db.delete(blinks).where(eq(blinks.overrideId, s.override.id));
    await apps.app.inject({ method: 'GET', url: s.url });
    await waitFor(async () => (await findBlinkOrNull(apps.db, s.override.id))?.viewCount === 1);
  });

  test('view counts still in memory are saved when the app closes', async () => {
    const closing = await apps.start({ cache: apps.deps.cache });
    const s = await seed();
    await closing.app.inject({ method: 'GET', url: s.url });
    await closing.app.close();
    assert.equal((await findBlink(apps.db, s.override.id)).viewCount, 1);
  });

  test('answers the same shape disabled, with error.message, once expired or decided', async () => {
    const cases = [
      { options: { expiresInMs: -5 * 60_000 }, expect: /expired at .*can no longer be approved/ },
      { options: { status: 'approved' as const }, expect: /already approved/ },
      { options: { status: 'rejected' as const }, expect: /rejected/ },
      { options: { status: 'executed' as const }, expect: /executed/ },
    ];
    for (const { options, expect } of cases) {
      const s = await seed(options);
      const res = await apps.app.inject({ method: 'GET', url: s.url });
      assert.equal(res.statusCode, 200);
      assertActionHeaders(res);
      const body = res.json();
      assert.equal(body.type, 'action');
      assert.equal(body.disabled, true);
      assert.match(body.error.message, expect);
      assert.equal(body.links.actions.length, 2);
    }
  });

  test('names an unknown vault or nonce with 404 and the Action error envelope', async () => {
    const s = await seed();
    assertActionError(
      await apps.app.inject({ url: `/api/actions/${randomAddress()}/0` }),
      404,
      'VAULT_NOT_FOUND',
    );
    const body = assertActionError(
      await apps.app.inject({ url: `/api/actions/${s.vault}/999` }),
      404,
      'OVERRIDE_NOT_FOUND',
    );
    assert.deepEqual(body.details, { vault: s.vault, nonce: '999' });
  });

  test('refuses a malformed vault address or nonce with 400', async () => {
    assertActionError(
      await apps.app.inject({ url: '/api/actions/not-an-address/1' }),
      400,
      'VALIDATION_ERROR',
    );
    const s = await seed();
    assertActionError(await apps.app.inject({ url: `/api/actions/${s.vault}/-1` }), 400, 'VALIDATION_ERROR');
    assertActionError(
      await apps.app.inject({ url: `/api/actions/${s.vault}/18446744073709551616` }),
      400,
      'VALIDATION_ERROR',
    );
  });
});

describe('Action plumbing', () => {
  test('actions.json maps /api/actions/** onto itself and each approval page onto its Action', async () => {
    const res = await apps.app.inject({ url: '/actions.json' });
    assert.equal(res.statusCode, 200);
    assertActionHeaders(res);
    assert.deepEqual(res.json(), {
      rules: [
        { pathPattern: '/api/actions/**', apiPath: '/api/actions/**' },
        { pathPattern: '/overrides/*/*', apiPath: '/api/actions/*/*' },
      ],
    });
  });

  test('serves its own icon as an SVG image at the URL the metadata names', async () => {
    const s = await seed();
    const { icon } = (await apps.app.inject({ url: s.url })).json();
    const res = await apps.app.inject({ url: new URL(icon).pathname });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^image\/svg\+xml/);
    assert.match(res.body, /^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assertActionHeaders(res);
  });

  test('answers OPTIONS on every Action route with the CORS headers', async () => {
    const s = await seed();
    const paths = [
      '/actions.json',
      s.url,
      `${s.url}/approve`,
      `${s.url}/reject`,
      `${s.url}/reject/confirm`,
      '/api/actions/icon.svg',
    ];
    for (const url of paths) {
      const res = await apps.app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: 'https://dial.to', 'access-control-request-method': 'POST' },
      });
      assert.equal(res.statusCode, 204, url);
      assertActionHeaders(res, url);
    }
  });

  test('sends the Action headers and the message envelope on errors the framework produces', async () => {
    const s = await seed();
    assertActionError(
      await apps.app.inject({ method: 'GET', url: '/api/actions/a/b/c/d' }),
      404,
      'NOT_FOUND',
    );
    assertActionError(await apps.app.inject({ method: 'DELETE', url: s.url }), 404, 'NOT_FOUND');
    const missing = assertActionError(await post(`${s.url}/approve`, {}), 400, 'VALIDATION_ERROR');
    assert.equal(missing.message, 'account: is required');
    const wrongType = assertActionError(
      await post(`${s.url}/approve`, { account: s.owner.address, type: 42 }),
      400,
      'VALIDATION_ERROR',
    );
    assert.equal(wrongType.message, 'type: must be one of transaction, message, post, external-link');
    const unknownType = assertActionError(
      await post(`${s.url}/approve`, { account: s.owner.address, type: 'sign' }),
      400,
      'VALIDATION_ERROR',
    );
    assert.equal(unknownType.message, 'type: must be one of transaction, message, post, external-link');
    assert.equal(
      (unknownType.details as { issues: unknown[] }).issues.length,
      1,
      'one issue, not one per value',
    );
    const notJson = await apps.app.inject({
      method: 'POST',
      url: `${s.url}/approve`,
      payload: 'account=x',
      headers: { 'content-type': 'text/plain' },
    });
    assertActionError(notJson, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const broken = await apps.app.inject({
      method: 'POST',
      url: `${s.url}/reject`,
      payload: '{"account":',
      headers: { 'content-type': 'application/json' },
    });
    assertActionError(broken, 400, 'VALIDATION_ERROR');
  });

  test('a rate-limited Action request still answers with the Action headers and message', async () => {
    const limited = await apps.start({ env: { RATE_LIMIT_ENABLED: 'true' } });
    const s = await seed();
    const stranger = createTestWallet();
    let res: LightMyRequestResponse | undefined;
    for (let i = 0; i < 25 && res?.statusCode !== 429; i++) {
      res = await limited.app.inject({
        method: 'POST',
        url: `${s.url}/approve`,
        payload: { account: stranger.address },
      });
    }
    assertActionError(res!, 429, 'RATE_LIMIT_EXCEEDED');
  });

  test('POST responses are never cached', async () => {
    const s = await seed();
    const res = await post(`${s.url}/reject`, { account: s.owner.address });
    assert.equal(res.headers['cache-control'], 'no-store');
  });
});
