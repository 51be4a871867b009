// GET and PUT /api/vaults/:address/alerts: the owner's alert settings, by wallet signature or API key.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import type { VaultRow } from '../../src/storage/schema/index.js';
import { createVault, randomAddress } from '../support/factories.js';
import { useTestApps } from '../support/test-apps.js';

const apps = useTestApps({ env: { RATE_LIMIT_ENABLED: 'false' } });
let owner: TestWallet;
let vault: VaultRow;

beforeEach(async () => {
  owner = createTestWallet();
  vault = await createVault(apps.db, { authority: owner.address });
});

const start = async (): Promise<FastifyInstance> => (await apps.start()).app;

const path = (address = vault.address) => `/api/vaults/${address}/alerts`;

function signed(wallet: TestWallet, method: string, url: string, body?: unknown) {
  return wallet.authHeaders({ request: { method, path: url, ...(body === undefined ? {} : { body }) } });
}

const put = (app: FastifyInstance, body: unknown, wallet = owner, url = path()) =>
  app.inject({ method: 'PUT', url, headers: signed(wallet, 'PUT', url, body), payload: body as object });

const DEFAULTS = { budgetThresholds: [80, 100], velocity: null, expiryWarningMinutes: 15 };

describe('alert settings', () => {
  test('a vault never set up has the defaults; PUT changes the given fields and answers the whole object', async () => {
    const app = await start();
    const got = await app.inject({ url: path(), headers: signed(owner, 'GET', path()) });
    assert.equal(got.statusCode, 200, got.body);
    assert.deepEqual(got.json(), DEFAULTS);

    const changed = await put(app, {
      budgetThresholds: [90, 50, 75],
      velocity: { windowSeconds: 60, maxTransfers: 20 },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    const expected = {
      budgetThresholds: [50, 75, 90],
      velocity: { windowSeconds: 60, maxTransfers: 20 },
      expiryWarningMinutes: 15,
    };
    assert.deepEqual(changed.json(), expected);
    const byUuid = await put(app, { expiryWarningMinutes: 30 }, owner, path(vault.id));
    assert.deepEqual(byUuid.json(), { ...expected, expiryWarningMinutes: 30 });
    const off = await put(app, { budgetThresholds: [], velocity: null });
    assert.deepEqual(off.json(), { budgetThresholds: [], velocity: null, expiryWarningMinutes: 30 });
    const reread = await app.inject({ url: path(), headers: signed(owner, 'GET', path()) });
    assert.deepEqual(reread.json(), off.json());
  });

  test('an API key of the owner reads and writes them', async () => {
    const app = await start();
    const keyBody = { name: 'alerts' };
    const created = await app.inject({
      method: 'POST',
      url: '/api/api-keys',
      headers: signed(owner, 'POST', '/api/api-keys', keyBody),
      payload: keyBody,
    });
    const { key } = created.json() as { key: string };
    const headers = { authorization: `Bearer ${key}` };
    const changed = await app.inject({
      method: 'PUT',
      url: path(),
      headers,
      payload: { budgetThresholds: [100] },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    const got = await app.inject({ url: path(), headers });
    assert.deepEqual(got.json(), { ...DEFAULTS, budgetThresholds: [100] });
  });

  test('bad settings are a 400 naming the field and change nothing', async () => {
    const app = await start();
    const cases: [unknown, string][] = [
      [{ budgetThresholds: [80, 80] }, 'budgetThresholds'],
      [{ budgetThresholds: [0] }, 'budgetThresholds'],
      [{ budgetThresholds: [101] }, 'budgetThresholds'],
      [{ budgetThresholds: [10, 20, 30, 40, 50, 60] }, 'budgetThresholds'],
      [{ budgetThresholds: [50.5] }, 'budgetThresholds'],
      [{ velocity: { windowSeconds: 59, maxTransfers: 5 } }, 'velocity'],
      [{ velocity: { windowSeconds: 86_401, maxTransfers: 5 } }, 'velocity'],
      [{ velocity: { windowSeconds: 60, maxTransfers: 0 } }, 'velocity'],
      [{ velocity: { windowSeconds: 60, maxTransfers: 10_001 } }, 'velocity'],
      [{ velocity: { windowSeconds: 60 } }, 'velocity'],
      [{ expiryWarningMinutes: 0 }, 'expiryWarningMinutes'],
      [{ expiryWarningMinutes: 60 }, 'expiryWarningMinutes'],
      [{ colour: 'red' }, 'colour'],
    ];
    for (const [body, field] of cases) {
      const response = await put(app, body);
      assert.equal(response.statusCode, 400, `${JSON.stringify(body)}: ${response.body}`);
      const error = response.json() as { code: string; error: string };
      assert.equal(error.code, 'VALIDATION_ERROR');
      assert.match(error.error, new RegExp(`^${field}`), JSON.stringify(body));
    }
    const got = await app.inject({ url: path(), headers: signed(owner, 'GET', path()) });
    assert.deepEqual(got.json(), DEFAULTS);
  });

  test('another wallet gets 403, an unknown vault 404, no credentials 401', async () => {
    const app = await start();
    const stranger = createTestWallet();
    const read = await app.inject({ url: path(), headers: signed(stranger, 'GET', path()) });
    assert.equal(read.statusCode, 403);
    assert.equal((read.json() as { code: string }).code, 'FORBIDDEN');
    const write = await put(app, { budgetThresholds: [] }, stranger);
    assert.equal(write.statusCode, 403);
    const unknown = path(randomAddress());
    const missing = await app.inject({ url: unknown, headers: signed(owner, 'GET', unknown) });
    assert.equal(missing.statusCode, 404);
    assert.equal((missing.json() as { code: string }).code, 'VAULT_NOT_FOUND');
    assert.equal((await app.inject({ url: path() })).statusCode, 401);
    const got = await app.inject({ url: path(), headers: signed(owner, 'GET', path()) });
    assert.deepEqual(got.json(), DEFAULTS, 'the refused write changed nothing');
  });
  test('a subscription may ask for the four alerts; a misspelt one is refused naming the field', async () => {
    const app = await start();
    const events = ['budget.threshold', 'agent.velocity', 'override.expiring', 'override.expired'];
    const body = { url: 'https://hooks.example.com/in', events, vault: vault.address };
    const created = await app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: signed(owner, 'POST', '/api/webhooks', body),
      payload: body,
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.deepEqual((created.json() as { events: string[] }).events, events);
    const bad = { ...body, events: ['budget.thresholds'] };
    const refused = await app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: signed(owner, 'POST', '/api/webhooks', bad),
      payload: bad,
    });
    assert.equal(refused.statusCode, 400);
    assert.match((refused.json() as { error: string }).error, /^events/);
  });
});
