// API keys: created with a request-bound wallet signature, shown once, kept hashed, listed and deleted;
// a key acts as its wallet on every protected route but key creation and Blink POSTs.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { beforeEach, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import type { VaultRow } from '../../src/storage/schema/index.js';
import { createLogCapture } from '../support/app.js';
import { createOverride, createVault } from '../support/factories.js';
import { seedOwnedVault } from '../support/owned-vault.js';
import { type TestAppOptions, useTestApps } from '../support/test-apps.js';

const KEY = /^vk_[A-Za-z0-9_-]{43}$/;

const apps = useTestApps({ env: { RATE_LIMIT_ENABLED: 'false', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
const start = async (options: TestAppOptions = {}) => (await apps.start(options)).app;
let owner: TestWallet;
let vault: VaultRow;
beforeEach(async () => {
  ({ owner, vault } = await seedOwnedVault(apps.db));
});

/** Wallet headers bound to exactly this request. */
function signed(wallet: TestWallet, method: string, path: string, body?: unknown) {
  return wallet.authHeaders({ request: { method, path, ...(body === undefined ? {} : { body }) } });
}

async function createKey(app: FastifyInstance, wallet: TestWallet, name = 'CI') {
  const body = { name };
  const response = await app.inject({
    method: 'POST',
    url: '/api/api-keys',
    headers: signed(wallet, 'POST', '/api/api-keys', body),
    payload: body,
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json() as { id: string; key: string; prefix: string; name: string };
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

function assertRefused(response: LightMyRequestResponse, status: number, code: string, reason?: string) {
  assert.equal(response.statusCode, status, response.body);
  const body = response.json() as { code: string; details: { reason?: string } };
  assert.equal(body.code, code);
  if (reason !== undefined) assert.equal(body.details.reason, reason);
}

const rename = (
  app: FastifyInstance,
  headers: Record<string, string>,
  name: string,
  address = vault.address,
) => app.inject({ method: 'PATCH', url: `/api/vaults/${address}`, headers, payload: { name } });

describe('creating, listing and deleting keys', () => {
  test('a wallet signature creates a key shown once: vk_ + 43 base64url characters, its prefix, a hash at rest', async () => {
    const app = await start();
    const body = { name: 'Deploy bot' };
    const response = await app.inject({
      method: 'POST',
      url: '/api/api-keys',
      headers: signed(owner, 'POST', '/api/api-keys', body),
      payload: body,
    });
    assert.equal(response.statusCode, 201, response.body);
    assert.equal(response.headers['cache-control'], 'no-store');
    const created = response.json();
    assert.deepEqual(Object.keys(created).sort(), [
      'createdAt',
      'expiresAt',
      'id',
      'key',
      'lastUsedAt',
      'name',
      'prefix',
      'scopes',
      'vaults',
    ]);
    assert.match(created.key, KEY);
    assert.equal(Buffer.from(created.key.slice(3), 'base64url').length, 32);
    assert.equal(created.prefix, created.key.slice(0, 10));
    assert.equal(created.name, 'Deploy bot');
    assert.equal(created.lastUsedAt, null);
    const rows = await apps.storage.rows<Record<string, unknown>>(sql`select * from api_keys`);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.key_hash, createHash('sha256').update(created.key).digest('hex'));
    assert.ok(!JSON.stringify(rows).includes(created.key), 'the key itself is not stored');
    const listed = await app.inject({ url: '/api/api-keys', headers: bearer(created.key) });
    assert.equal(listed.statusCode, 200, listed.body);
    assert.ok(!listed.body.includes(created.key), 'a list never shows the key');
    assert.deepEqual(Object.keys(listed.json().apiKeys[0]).sort(), [
      'createdAt',
      'expiresAt',
      'id',
      'lastUsedAt',
      'name',
      'prefix',
      'scopes',
      'vaults',
    ]);
  });

  test('creating needs a wallet signature bound to the request: not a key, not an unbound message', async () => {
    const app = await start();
    const { key } = await createKey(app, owner);
    const body = { name: 'Second' };
    assertRefused(
      await app.inject({ method: 'POST', url: '/api/api-keys', headers: bearer(key), payload: body }),
      401,
      'UNAUTHORIZED',
      'wallet_required',
    );
    assertRefused(
      await app.inject({ method: 'POST', url: '/api/api-keys', headers: owner.authHeaders(), payload: body }),
      401,
      'UNAUTHORIZED',
      'unbound_message',
    );
    assertRefused(
      await app.inject({ method: 'POST', url: '/api/api-keys', payload: body }),
      401,
      'UNAUTHORIZED',
      'missing_headers',
    );
    const list = await app.inject({ url: '/api/api-keys', headers: bearer(key) });
    assert.equal(list.json().apiKeys.length, 1);
  });

  test('a name is 1 to 64 characters, not only spaces; unknown fields are refused', async () => {
    const app = await start();
    for (const body of [
      { name: '' },
      { name: 'x'.repeat(65) },
      { name: '   ' },
      {},
      { name: 'ok', scope: 'all' },
    ]) {
      const response = await app.inject({
        method: 'POST',
        url: '/api/api-keys',
        headers: signed(owner, 'POST', '/api/api-keys', body),
        payload: body,
      });
      assertRefused(response, 400, 'VALIDATION_ERROR');
    }
    assert.equal((await createKey(app, owner, 'x'.repeat(64))).name.length, 64);
  });

  test('at most 20 live keys per wallet (409); deleting one makes room; other wallets are not counted', async () => {
    const app = await start();
    const keys = [];
    for (let i = 0; i < 20; i += 1) keys.push(await createKey(app, owner, `key ${i}`));
    const body = { name: 'one too many' };
    const refused = await app.inject({
      method: 'POST',
      url: '/api/api-keys',
      headers: signed(owner, 'POST', '/api/api-keys', body),
      payload: body,
    });
    assertRefused(refused, 409, 'API_KEY_LIMIT_REACHED');
    assert.equal(refused.json().details.limit, 20);
    await createKey(app, createTestWallet(), 'another wallet');
    const deleted = await app.inject({
      method: 'DELETE',
      url: `/api/api-keys/${keys[0]!.id}`,
      headers: bearer(keys[1]!.key),
    });
    assert.equal(deleted.statusCode, 204, deleted.body);
    await createKey(app, owner, 'room again');
    const listed = await app.inject({ url: '/api/api-keys', headers: bearer(keys[1]!.key) });
    assert.equal(listed.json().apiKeys.length, 20);
  });

  test("a wallet lists and deletes only its own keys: another wallet's key is not found", async () => {
    const app = await start();
    const mine = await createKey(app, owner, 'mine');
    const stranger = createTestWallet();
    const theirs = await createKey(app, stranger, 'theirs');
    const listed = await app.inject({ url: '/api/api-keys', headers: signed(owner, 'GET', '/api/api-keys') });
    assert.deepEqual(
      listed.json().apiKeys.map((k: { name: string }) => k.name),
      ['mine'],
    );
    const path = `/api/api-keys/${theirs.id}`;
    assertRefused(
      await app.inject({ method: 'DELETE', url: path, headers: bearer(mine.key) }),
      404,
      'API_KEY_NOT_FOUND',
    );
    assert.equal((await app.inject({ url: '/api/api-keys', headers: bearer(theirs.key) })).statusCode, 200);
    const own = `/api/api-keys/${mine.id}`;
    assert.equal(
      (await app.inject({ method: 'DELETE', url: own, headers: signed(owner, 'DELETE', own) })).statusCode,
      204,
    );
    assertRefused(
      await app.inject({ method: 'DELETE', url: own, headers: signed(owner, 'DELETE', own) }),
      404,
      'API_KEY_NOT_FOUND',
    );
    assertRefused(
      await app.inject({ method: 'DELETE', url: '/api/api-keys/not-a-uuid', headers: bearer(theirs.key) }),
      400,
      'VALIDATION_ERROR',
    );
  });
});

describe('a key acts as its wallet', () => {
  test('on protected routes, with the same ownership rules as a signature', async () => {
    const app = await start();
    const { key } = await createKey(app, owner);
    const renamed = await rename(app, bearer(key), 'Through a key');
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.equal(renamed.json().vault.name, 'Through a key');
    const verify = await app.inject({ method: 'POST', url: '/api/auth/verify', headers: bearer(key) });
    assert.equal(verify.json().wallet, owner.address);
    const other = await createVault(apps.db, { authority: createTestWallet().address, name: 'Theirs' });
    assertRefused(await rename(app, bearer(key), 'Hijacked', other.address), 403, 'FORBIDDEN');
    const hook = await app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: bearer(key),
      payload: { url: 'http://127.0.0.1:9/hook', events: ['transaction.blocked'] },
    });
    assert.equal(hook.statusCode, 201, hook.body);
    const hooks = await app.inject({ url: '/api/webhooks', headers: signed(owner, 'GET', '/api/webhooks') });
    assert.equal(hooks.json().webhooks[0].id, hook.json().id);
  });

  test('a key and signature headers together are 400, and change nothing', async () => {
    const app = await start();
    const { key } = await createKey(app, owner);
    const path = `/api/vaults/${vault.address}`;
    const both = { ...signed(owner, 'PATCH', path, { name: 'Both' }), ...bearer(key) };
    const response = await rename(app, both, 'Both');
    assertRefused(response, 400, 'VALIDATION_ERROR');
    assert.match(response.json().error, /not both/);
    assert.equal((await app.inject({ url: path })).json().name, 'Before');
  });

  test('unknown key: 401 invalid_key; deleted key: 401 revoked_key; other Authorization schemes are not keys', async () => {
    const app = await start();
    const { id, key } = await createKey(app, owner);
    const unknown = `vk_${'A'.repeat(43)}`;
    for (const given of [unknown, 'vk_short', 'not-a-key', `${key}x`]) {
      assertRefused(await rename(app, bearer(given), 'Nope'), 401, 'UNAUTHORIZED', 'invalid_key');
    }
    const path = `/api/api-keys/${id}`;
    assert.equal((await app.inject({ method: 'DELETE', url: path, headers: bearer(key) })).statusCode, 204);
    assertRefused(await rename(app, bearer(key), 'Nope'), 401, 'UNAUTHORIZED', 'revoked_key');
    assertRefused(
      await app.inject({ url: '/api/api-keys', headers: bearer(key) }),
      401,
      'UNAUTHORIZED',
      'revoked_key',
    );
    // A proxy's Basic credentials are not an API key: the request is simply unauthenticated.
    const basic = await rename(app, { authorization: 'Basic dXNlcjpwYXNz' }, 'Nope');
    assertRefused(basic, 401, 'UNAUTHORIZED', 'missing_headers');
    assert.equal((await app.inject({ url: `/api/vaults/${vault.address}` })).json().name, 'Before');
  });

  test('lastUsedAt is written when a key is used, at most once a minute', async () => {
    // Near the real time: the wallet signs with the real clock.
    const start0 = Date.now();
    let now = start0;
    const at = (ms: number) => new Date(ms).toISOString();
    const app = await start({ clock: { now: () => new Date(now) } });
    const { key } = await createKey(app, owner);
    const lastUsed = async () =>
      (await app.inject({ url: '/api/api-keys', headers: signed(owner, 'GET', '/api/api-keys') })).json()
        .apiKeys[0].lastUsedAt;
    assert.equal(await lastUsed(), null);
    await app.inject({ url: '/api/webhooks', headers: bearer(key) });
    assert.equal(await lastUsed(), at(start0));
    now += 59_000;
    await app.inject({ url: '/api/webhooks', headers: bearer(key) });
    assert.equal(await lastUsed(), at(start0));
    now += 2_000;
    await app.inject({ url: '/api/webhooks', headers: bearer(key) });
    assert.equal(await lastUsed(), at(start0 + 61_000));
  });

  test('a 401 without credentials names every way in the route accepts, and which wallet headers are missing', async () => {
    const app = await start();
    const messageOf = (response: LightMyRequestResponse) => {
      assertRefused(response, 401, 'UNAUTHORIZED', 'missing_headers');
      return response.json().error as string;
    };
    // Key or wallet: both named.
    assert.equal(
      messageOf(await rename(app, {}, 'Nope')),
      'Authentication required: send an API key (Authorization: Bearer vk_…) or a wallet signature (X-Wallet-Address, X-Signature and X-Message)',
    );
    assert.equal(
      messageOf(await app.inject({ url: '/api/webhooks', headers: { 'x-wallet-address': owner.address } })),
      'Authentication required: send an API key (Authorization: Bearer vk_…) or a wallet signature (X-Wallet-Address, X-Signature and X-Message; X-Signature and X-Message missing)',
    );
    // Creating a key: the wallet signature only.
    assert.equal(
      messageOf(await app.inject({ method: 'POST', url: '/api/api-keys', payload: { name: 'CI' } })),
      'Authentication required: send a wallet signature (X-Wallet-Address, X-Signature and X-Message); API keys are not accepted on this route',
    );
    // A Blink POST: the headers are optional, but go together, and keys are not taken.
    const override = await createOverride(apps.db, { vault });
    const blink = await app.inject({
      method: 'POST',
      url: `/api/actions/${vault.address}/${override.nonce}/approve`,
      headers: { 'x-wallet-address': owner.address, 'x-message': 'm' },
      payload: { account: owner.address },
    });
    assert.equal(
      messageOf(blink),
      'Wallet signature headers are optional here, but when sent they must make a wallet signature (X-Wallet-Address, X-Signature and X-Message; X-Signature missing); API keys are not accepted on this route',
    );
    assert.equal(blink.json().message, blink.json().error);
  });

  test('Blink POSTs take no key: 401 wallet_required, while the wallet flow is unchanged', async () => {
    const app = await start();
    const { key } = await createKey(app, owner);
    const override = await createOverride(apps.db, { vault });
    const base = `/api/actions/${vault.address}/${override.nonce}`;
    for (const action of ['approve', 'reject']) {
      const response = await app.inject({
        method: 'POST',
        url: `${base}/${action}`,
        headers: bearer(key),
        payload: { account: owner.address },
      });
      assertRefused(response, 401, 'UNAUTHORIZED', 'wallet_required');
      assert.equal(typeof response.json().message, 'string', 'Action errors carry message');
    }
    const reject = await app.inject({
      method: 'POST',
      url: `${base}/reject`,
      payload: { account: owner.address },
    });
    assert.equal(reject.statusCode, 200, reject.body);
    assert.equal(reject.json().type, 'message');
  });
});

test('keys never reach a log line, used, refused or revoked', async () => {
  const logs = createLogCapture();
  const app = await start({ logs });
  const { id, key } = await createKey(app, owner);
  await app.inject({ url: '/api/webhooks', headers: bearer(key) });
  await rename(app, { ...bearer(key), ...signed(owner, 'PATCH', `/api/vaults/${vault.address}`) }, 'x');
  await app.inject({ url: '/api/webhooks', headers: bearer(`${key.slice(0, -1)}A`) });
  await app.inject({ method: 'DELETE', url: `/api/api-keys/${id}`, headers: bearer(key) });
  await app.inject({ url: '/api/webhooks', headers: bearer(key) });
  // A handler that logs the raw headers (as a debugging session might) still leaks nothing.
  app.log.info({ headers: { authorization: `Bearer ${key}` } }, 'headers');
  app.log.info(`a message that quotes ${key}`);
  assert.ok(logs.lines.length > 0, 'something was logged');
  for (const line of logs.lines) {
    assert.ok(!line.includes(key.slice(3)), `a log line holds the key: ${line.slice(0, 200)}`);
  }
  assert.ok(logs.lines.some((line) => line.includes('vk_[redacted]')));
});

test('OpenAPI: a bearer scheme for keys, wallet-only key creation, operation ids and the ApiKey schema', async () => {
  const app = await start();
  const spec = (await app.inject('/api/openapi.json')).json();
  assert.deepEqual(
    {
      type: spec.components.securitySchemes.apiKey.type,
      scheme: spec.components.securitySchemes.apiKey.scheme,
    },
    { type: 'http', scheme: 'bearer' },
  );
  const wallet = { walletAddress: [], walletSignature: [], walletMessage: [] };
  const keys = spec.paths['/api/api-keys'];
  assert.deepEqual(keys.post.security, [wallet]);
  assert.deepEqual(keys.get.security, [{ apiKey: [] }, wallet]);
  assert.deepEqual(spec.paths['/api/api-keys/{id}'].delete.security, [{ apiKey: [] }, wallet]);
  assert.deepEqual(spec.paths['/api/webhooks'].post.security, [{ apiKey: [] }, wallet]);
  assert.deepEqual(
    [keys.post.operationId, keys.get.operationId, spec.paths['/api/api-keys/{id}'].delete.operationId],
    ['createApiKey', 'listApiKeys', 'deleteApiKey'],
  );
  assert.deepEqual(Object.keys(spec.components.schemas.ApiKey.properties).sort(), [
    'createdAt',
    'expiresAt',
    'id',
    'lastUsedAt',
    'name',
    'prefix',
    'scopes',
    'vaults',
  ]);
  assert.equal(
    keys.get.responses['200'].content['application/json'].schema.$ref,
    '#/components/schemas/ApiKeyList',
  );
  assert.equal(
    spec.components.schemas.ApiKeyList.properties.apiKeys.items.$ref,
    '#/components/schemas/ApiKey',
  );
  for (const [status, response] of Object.entries(keys.post.responses) as [
    string,
    { description: string },
  ][]) {
    assert.notEqual(response.description, 'Default Response', `createApiKey ${status}`);
  }
  // Blink POSTs stay wallet-only (or no headers at all: wallets cannot send them).
  assert.deepEqual(spec.paths['/api/actions/{vault}/{nonce}/approve'].post.security, [{}, wallet]);
});
