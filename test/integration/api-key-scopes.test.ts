// Scoped, expiring API keys: each scope lets a key through on its routes and nowhere else, a key
// limited to some vaults stays on them, an expired key is refused, and keys made before scopes hold all.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { beforeEach, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import { API_KEY_SCOPES, routeScopePlugin } from '../../src/http/plugins/route-scope.js';
import type { VaultRow } from '../../src/storage/schema/index.js';
import { createVault } from '../support/factories.js';
import { seedOwnedVault } from '../support/owned-vault.js';
import { useTestApps } from '../support/test-apps.js';

const apps = useTestApps({
  env: { RATE_LIMIT_ENABLED: 'false', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
  fileApp: {
    // No route of this checkout needs `exports` yet: one stands in for them.
    routes: (app) => {
      app.get('/api/test-exports', { config: { auth: 'required', scope: 'exports' } }, async () => ({
        ok: true,
      }));
    },
  },
});
let owner: TestWallet;
let vault: VaultRow;
beforeEach(async () => {
  ({ owner, vault } = await seedOwnedVault(apps.db));
});

interface KeyOptions {
  scopes?: string[];
  vaults?: string[];
  expiresAt?: string;
}

async function postKey(app: FastifyInstance, options: KeyOptions) {
  const body = { name: 'scoped', ...options };
  return app.inject({
    method: 'POST',
    url: '/api/api-keys',
    headers: owner.authHeaders({ request: { method: 'POST', path: '/api/api-keys', body } }),
    payload: body,
  });
}

async function createKey(options: KeyOptions = {}, app = apps.app): Promise<string> {
  const response = await postKey(app, options);
  assert.equal(response.statusCode, 201, response.body);
  return response.json().key;
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

function assertScopeRefused(response: LightMyRequestResponse, scope: string, reason = 'scope') {
  assert.equal(response.statusCode, 403, response.body);
  const body = response.json();
  assert.equal(body.code, 'INSUFFICIENT_SCOPE');
  assert.equal(body.details.scope, scope);
  assert.equal(body.details.reason, reason);
  assert.match(body.error, new RegExp(scope));
}

/** One route of each scope, and a request a key of that scope may make there. */
const ROUTE_OF_SCOPE: Record<string, (key: string) => Promise<LightMyRequestResponse>> = {
  read: (key) => apps.app.inject({ url: `/api/vaults/${vault.address}/alerts`, headers: bearer(key) }),
  webhooks: (key) => apps.app.inject({ url: '/api/webhooks', headers: bearer(key) }),
  'vaults:write': (key) =>
    apps.app.inject({
      method: 'PATCH',
      url: `/api/vaults/${vault.address}`,
      headers: bearer(key),
      payload: { name: 'Renamed' },
    }),
  exports: (key) => apps.app.inject({ url: '/api/test-exports', headers: bearer(key) }),
  audit: (key) => apps.app.inject({ url: '/api/audit', headers: bearer(key) }),
};

describe('scopes', () => {
  for (const scope of API_KEY_SCOPES) {
    test(`a key with \`${scope}\` is let through on its route; a key with every other scope is refused there`, async () => {
      const others = API_KEY_SCOPES.filter((s) => s !== scope);
      const without = await createKey({ scopes: others });
      assertScopeRefused(await ROUTE_OF_SCOPE[scope]!(without), scope);
      const withIt = await createKey({ scopes: [scope] });
      const allowed = await ROUTE_OF_SCOPE[scope]!(withIt);
      assert.equal(allowed.statusCode, 200, allowed.body);
    });
  }

  test('a key made without scopes holds all five; the list shows scopes, vaults, expiry and last use, never the key', async () => {
    const key = await createKey();
    for (const scope of API_KEY_SCOPES) {
      assert.equal((await ROUTE_OF_SCOPE[scope]!(key)).statusCode, 200, scope);
    }
    const listed = await apps.app.inject({ url: '/api/api-keys', headers: bearer(key) });
    assert.ok(!listed.body.includes(key.slice(3)));
    const [shown] = listed.json().apiKeys;
    assert.deepEqual(shown.scopes, [...API_KEY_SCOPES]);
    assert.equal(shown.vaults, null);
    assert.equal(shown.expiresAt, null);
    assert.equal(typeof shown.lastUsedAt, 'string');
  });

  test('a key stored before scopes existed (the column default) holds every scope', async () => {
    const key = `vk_${'B'.repeat(43)}`;
    const hash = createHash('sha256').update(key).digest('hex');
    await apps.storage.rows(
      sql`insert into api_keys (owner, name, prefix, key_hash) values (${owner.address}, 'old', ${key.slice(0, 10)}, ${hash})`,
    );
    for (const scope of API_KEY_SCOPES) {
      assert.equal((await ROUTE_OF_SCOPE[scope]!(key)).statusCode, 200, scope);
    }
  });

  test('a wallet signature holds every scope', async () => {
    const path = '/api/test-exports';
    const response = await apps.app.inject({
      url: path,
      headers: owner.authHeaders({ request: { method: 'GET', path } }),
    });
    assert.equal(response.statusCode, 200, response.body);
  });

  test('unknown or repeated scopes and an empty list are refused (400)', async () => {
    for (const scopes of [['admin'], [], ['read', 'read']]) {
      const response = await postKey(apps.app, { scopes });
      assert.equal(response.statusCode, 400, response.body);
    }
  });

  test('a route that takes API keys but declares no scope stops the app from starting', async () => {
    const app = Fastify();
    await app.register(routeScopePlugin, {
      resolver: { vaultAddressOf: async () => undefined, webhookVaultOf: async () => undefined },
    });
    await assert.rejects(async () => {
      app.get('/api/unscoped', { config: { auth: 'required' } }, async () => ({}));
      await app.ready();
    }, /GET \/api\/unscoped accepts API keys but declares no config\.scope/);
    await app.close();
  });
});

describe('vaults', () => {
  test('a key limited to one vault acts on it, and is refused on another vault of the same owner', async () => {
    const other = await createVault(apps.db, { authority: owner.address, name: 'Other' });
    const key = await createKey({ vaults: [vault.address] });
    const rename = (target: string) =>
      apps.app.inject({
        method: 'PATCH',
        url: `/api/vaults/${target}`,
        headers: bearer(key),
        payload: { name: 'Renamed' },
      });
    assert.equal((await rename(vault.address)).statusCode, 200);
    assert.equal((await rename(vault.id)).statusCode, 200, 'named by its record id');
    assertScopeRefused(await rename(other.address), 'vaults:write', 'vault');
    assertScopeRefused(await rename(other.id), 'vaults:write', 'vault');
    const otherAlerts = await apps.app.inject({
      url: `/api/vaults/${other.address}/alerts`,
      headers: bearer(key),
    });
    assertScopeRefused(otherAlerts, 'read', 'vault');
    assert.equal((await apps.storage.rows(sql`select 1 from vaults where name = 'Other'`)).length, 1);
  });

  test('a limited key reaches only subscriptions of its vaults, and no owner-wide route', async () => {
    const other = await createVault(apps.db, { authority: owner.address });
    const key = await createKey({ vaults: [vault.address] });
    const subscribe = (body: Record<string, unknown>) =>
      apps.app.inject({
        method: 'POST',
        url: '/api/webhooks',
        headers: bearer(key),
        payload: { url: 'http://127.0.0.1:9/hook', events: ['transaction.blocked'], ...body },
      });
    const mine = await subscribe({ vault: vault.address });
    assert.equal(mine.statusCode, 201, mine.body);
    assertScopeRefused(await subscribe({ vault: other.address }), 'webhooks', 'vault');
    assertScopeRefused(await subscribe({}), 'webhooks', 'vault');
    const id = mine.json().id;
    assert.equal(
      (await apps.app.inject({ url: `/api/webhooks/${id}`, headers: bearer(key) })).statusCode,
      200,
    );
    assertScopeRefused(
      await apps.app.inject({ url: '/api/webhooks', headers: bearer(key) }),
      'webhooks',
      'vault',
    );
    assertScopeRefused(await apps.app.inject({ url: '/api/audit', headers: bearer(key) }), 'audit', 'vault');
    const audit = await apps.app.inject({ url: `/api/audit?vault=${vault.address}`, headers: bearer(key) });
    assert.equal(audit.statusCode, 200, audit.body);
    const otherAudit = await apps.app.inject({
      url: `/api/audit?vault=${other.address}`,
      headers: bearer(key),
    });
    assertScopeRefused(otherAudit, 'audit', 'vault');
  });

  test("a key's vaults must be the wallet's own (400 naming the others)", async () => {
    const theirs = await createVault(apps.db, { authority: createTestWallet().address });
    const response = await postKey(apps.app, { vaults: [vault.address, theirs.address] });
    assert.equal(response.statusCode, 400, response.body);
    assert.match(response.json().error, new RegExp(theirs.address));
  });
});

describe('expiry', () => {
  test('an expiring key works until expiresAt, then 401 expired_key; the list shows the expiry', async () => {
    // Near the real time: the wallet signs with the real clock.
    let now = Date.now();
    const { app } = await apps.start({ clock: { now: () => new Date(now) } });
    const expiresAt = new Date(now + 3_600_000).toISOString();
    const key = await createKey({ expiresAt }, app);
    const read = () => app.inject({ url: '/api/api-keys', headers: bearer(key) });
    const listed = await read();
    assert.equal(listed.statusCode, 200, listed.body);
    assert.equal(listed.json().apiKeys[0].expiresAt, expiresAt);
    now += 3_600_000;
    const expired = await read();
    assert.equal(expired.statusCode, 401, expired.body);
    assert.equal(expired.json().code, 'UNAUTHORIZED');
    assert.equal(expired.json().details.reason, 'expired_key');
  });

  test('expiresAt must be in the future and at most a year away', async () => {
    const day = 24 * 60 * 60 * 1000;
    for (const at of [Date.now() - 1_000, Date.now() + 366 * day]) {
      const response = await postKey(apps.app, { expiresAt: new Date(at).toISOString() });
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(response.json().details.issues[0].path, 'body.expiresAt');
    }
    await createKey({ expiresAt: new Date(Date.now() + 364 * day).toISOString() });
  });
});
