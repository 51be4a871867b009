import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { evictVaults } from '../../src/cache/tags.js';
import { overrides } from '../../src/storage/schema/index.js';
import { createOverride, createVault, randomAddress } from '../support/factories.js';
import { getJson, useTestApps } from '../support/test-apps.js';

let now = new Date('2026-11-22T12:00:00.000Z');
const BASE = 'https://vk.example';
const apps = useTestApps({ clock: { now: () => now }, env: { PUBLIC_BASE_URL: BASE } });
const start = () => apps.start();
beforeEach(() => {
  now = new Date('2026-11-22T12:00:00.000Z');
});

const at = (iso: string) => new Date(iso);
const ids = (body: { overrides: { id: string }[] }) => body.overrides.map((o) => o.id);

describe('GET /api/overrides/:vault/:nonce', () => {
  test('returns every field of the override, with vault address, block reason, expired and links', async () => {
    const { app } = await start();
    const vault = await createVault(apps.db);
    const override = await createOverride(apps.db, {
      vault,
      nonce: 18_446_744_073_709_551_615n,
      amount: 7_500_000_000n,
      createdAt: at('2026-11-22T11:30:00.250Z'),
      expiresAt: at('2026-11-22T12:30:00.250Z'),
    });
    const { status, headers, body } = await getJson(
      app,
      `/api/overrides/${vault.address}/18446744073709551615`,
    );
    assert.equal(status, 200);
    assert.equal(headers['cache-control'], 'public, max-age=30');
    assert.deepEqual(body, {
      id: override.id,
      vaultId: vault.id,
      vault: vault.address,
      nonce: '18446744073709551615',
      transferSignature: null,
      chainNonce: null,
      destination: override.destination,
      amount: '7500000000',
      blockReason: 'exceeded_daily_limit',
      status: 'pending',
      expiresAt: '2026-11-22T12:30:00.250Z',
      createdAt: '2026-11-22T11:30:00.250Z',
      decidedAt: null,
      expired: false,
      blinkUrl: `${BASE}/api/actions/${vault.address}/18446744073709551615`,
      approvalUrl: `${BASE}/overrides/${vault.address}/18446744073709551615`,
    });
  });

  test('reports a pending override as expired once its expiry passes, even while cached', async () => {
    const { app } = await start();
    const vault = await createVault(apps.db);
    await createOverride(apps.db, { vault, nonce: 1n, expiresAt: at('2026-11-22T12:00:10.000Z') });
    const url = `/api/overrides/${vault.address}/1`;
    assert.equal((await getJson(app, url)).body.expired, false);
    assert.equal(
      (await getJson(app, `/api/overrides?vault=${vault.address}`)).body.overrides[0].expired,
      false,
    );
    now = new Date('2026-11-22T12:00:10.000Z');
    const after = await getJson(app, url);
    assert.equal(after.body.expired, true);
    assert.equal(after.body.status, 'pending');
    assert.equal(
      (await getJson(app, `/api/overrides?vault=${vault.address}`)).body.overrides[0].expired,
      true,
    );
  });

  test('never reports an approved, executed or rejected override as expired', async () => {
    const { app } = await start();
    const vault = await createVault(apps.db);
    const past = at('2026-11-01T00:00:00.000Z');
    for (const [nonce, status] of [
      [1n, 'approved'],
      [2n, 'executed'],
      [3n, 'rejected'],
    ] as const) {
      await createOverride(apps.db, { vault, nonce, status, expiresAt: past });
      const { body } = await getJson(app, `/api/overrides/${vault.address}/${nonce}`);
      assert.equal(body.status, status);
      assert.equal(body.expired, false);
    }
  });

  test('answers OVERRIDE_NOT_FOUND for an unknown nonce and VAULT_NOT_FOUND for an unknown vault', async () => {
    const { app } = await start();
    const vault = await createVault(apps.db);
    const missing = await getJson(app, `/api/overrides/${vault.address}/42`);
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, {
      error: 'Override not found',
      code: 'OVERRIDE_NOT_FOUND',
      details: { vault: vault.address, nonce: '42' },
    });
    const unknown = randomAddress();
    const noVault = await getJson(app, `/api/overrides/${unknown}/1`);
    assert.equal(noVault.status, 404);
    assert.equal(noVault.body.code, 'VAULT_NOT_FOUND');
  });

  test('rejects a malformed vault or nonce with VALIDATION_ERROR', async () => {
    const { app } = await start();
    const vault = randomAddress();
    for (const [url, path] of [
      [`/api/overrides/not-a-vault/1`, 'params.vault'],
      [`/api/overrides/${vault}/-1`, 'params.nonce'],
      [`/api/overrides/${vault}/abc`, 'params.nonce'],
      [`/api/overrides/${vault}/18446744073709551616`, 'params.nonce'],
      [`/api/overrides/${vault}/123456789012345678901`, 'params.nonce'],
    ] as const) {
      const { status, body } = await getJson(app, url);
      assert.equal(status, 400, url);
      assert.equal(body.code, 'VALIDATION_ERROR', url);
      assert.equal(body.details.issues[0].path, path, url);
    }
  });
});

describe('GET /api/overrides', () => {
  test('lists overrides newest first, then by id, filtered by vault and status, with page arithmetic', async () => {
    const { app } = await start();
    const a = await createVault(apps.db);
    const b = await createVault(apps.db);
    const o1 = await createOverride(apps.db, { vault: a, createdAt: at('2026-11-22T01:00:00.000Z') });
    const o2 = await createOverride(apps.db, {
      vault: a,
      status: 'approved',
      createdAt: at('2026-11-22T02:00:00.000Z'),
    });
    const o3 = await createOverride(apps.db, { vault: b, createdAt: at('2026-11-22T03:00:00.000Z') });
    const tie = at('2026-11-22T04:00:00.000Z');
    const t1 = await createOverride(apps.db, { vault: b, status: 'rejected', createdAt: tie });
    const t2 = await createOverride(apps.db, { vault: a, status: 'executed', createdAt: tie });
    const ties = [t1.id, t2.id].sort();

    const all = await getJson(app, '/api/overrides');
    assert.equal(all.headers['cache-control'], 'public, max-age=30');
    assert.deepEqual(ids(all.body), [...ties, o3.id, o2.id, o1.id]);
    assert.deepEqual(all.body.pagination, { page: 1, limit: 50, total: 5, pages: 1 });

    const cases: [string, string[]][] = [
      [`vault=${a.address}`, [t2.id, o2.id, o1.id]],
      ['status=pending', [o3.id, o1.id]],
      [`vault=${b.address}&status=rejected`, [t1.id]],
      [`vault=${b.address}&status=approved`, []],
    ];
    for (const [query, expected] of cases) {
      const { body } = await getJson(app, `/api/overrides?${query}`);
      assert.deepEqual(ids(body), expected, query);
      assert.equal(body.pagination.total, expected.length, query);
    }

    const page2 = await getJson(app, '/api/overrides?page=2&limit=2');
    assert.deepEqual(ids(page2.body), [o3.id, o2.id]);
    assert.deepEqual(page2.body.pagination, { page: 2, limit: 2, total: 5, pages: 3 });
    const past = await getJson(app, '/api/overrides?page=4&limit=2');
    assert.deepEqual(past.body, { overrides: [], pagination: { page: 4, limit: 2, total: 5, pages: 3 } });
  });

  test("lists an owner's pending overrides across their vaults: pending, unexpired, as of each request", async () => {
    const { app } = await start();
    const owner = randomAddress();
    const a = await createVault(apps.db, { authority: owner });
    const b = await createVault(apps.db, { authority: owner });
    const other = await createVault(apps.db);
    const open1 = await createOverride(apps.db, {
      vault: a,
      createdAt: at('2026-11-22T11:30:00.000Z'),
    });
    const open2 = await createOverride(apps.db, {
      vault: b,
      createdAt: at('2026-11-22T11:45:00.000Z'),
    });
    const expired = await createOverride(apps.db, {
      vault: a,
      createdAt: at('2026-11-22T10:00:00.000Z'),
    });
    const approved = await createOverride(apps.db, {
      vault: b,
      status: 'approved',
      createdAt: at('2026-11-22T11:50:00.000Z'),
    });
    await createOverride(apps.db, { vault: other, createdAt: at('2026-11-22T11:55:00.000Z') });

    const pending = await getJson(app, `/api/overrides?owner=${owner}&status=pending`);
    assert.equal(pending.status, 200);
    assert.deepEqual(ids(pending.body), [open2.id, open1.id]);
    assert.deepEqual(pending.body.pagination, { page: 1, limit: 50, total: 2, pages: 1 });
    assert.deepEqual(
      pending.body.overrides.map((o: { vault: string; approvalUrl: string }) => [o.vault, o.approvalUrl]),
      [
        [b.address, `${BASE}/overrides/${b.address}/${open2.nonce}`],
        [a.address, `${BASE}/overrides/${a.address}/${open1.nonce}`],
      ],
    );
    const second = await getJson(app, `/api/overrides?owner=${owner}&status=pending&limit=1&page=2`);
    assert.deepEqual(ids(second.body), [open1.id]);
    assert.deepEqual(second.body.pagination, { page: 2, limit: 1, total: 2, pages: 2 });
    // Without status: every override of the owner's vaults, expired and decided ones included.
    const all = await getJson(app, `/api/overrides?owner=${owner}`);
    assert.deepEqual(ids(all.body), [approved.id, open2.id, open1.id, expired.id]);
    const ofVault = await getJson(app, `/api/overrides?owner=${owner}&vault=${a.address}&status=pending`);
    assert.deepEqual(ids(ofVault.body), [open1.id]);
    const nobody = await getJson(app, `/api/overrides?owner=${randomAddress()}&status=pending`);
    assert.deepEqual(nobody.body, { overrides: [], pagination: { page: 1, limit: 50, total: 0, pages: 0 } });

    // open1 expires at 12:30: from then on it is no longer listed, without waiting for a cache.
    now = at('2026-11-22T12:30:00.000Z');
    const later = await getJson(app, `/api/overrides?owner=${owner}&status=pending`);
    assert.deepEqual(ids(later.body), [open2.id]);
    assert.equal(later.body.pagination.total, 1);
  });

  test('rejects an owner that is not an address with VALIDATION_ERROR naming it', async () => {
    const { app } = await start();
    for (const owner of ['xyz', '0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl']) {
      const { status, body } = await getJson(app, `/api/overrides?owner=${owner}&status=pending`);
      assert.equal(status, 400, owner);
      assert.equal(body.code, 'VALIDATION_ERROR');
      assert.ok(body.details.issues.length > 0);
      for (const issue of body.details.issues) assert.equal(issue.path, 'query.owner');
      assert.match(body.error, /^owner: /);
    }
  });

  test('answers VAULT_NOT_FOUND when filtering by an unknown vault', async () => {
    const { app } = await start();
    const { status, body } = await getJson(app, `/api/overrides?vault=${randomAddress()}`);
    assert.equal(status, 404);
    assert.equal(body.code, 'VAULT_NOT_FOUND');
  });

  for (const [query, path] of [
    ['status=expired', 'query.status'],
    ['vault=xyz', 'query.vault'],
    ['page=0', 'query.page'],
    ['limit=101', 'query.limit'],
    ['nonce=1', 'query.nonce'],
  ] as const) {
    test(`rejects ?${query} with VALIDATION_ERROR naming ${path}`, async () => {
      const { app } = await start();
      const { status, body } = await getJson(app, `/api/overrides?${query}`);
      assert.equal(status, 400);
      assert.equal(body.code, 'VALIDATION_ERROR');
      for (const issue of body.details.issues) assert.equal(issue.path, path);
    });
  }

  test('shows a status change once ingestion (or a reject) evicts the vault', async () => {
    const { app, deps } = await start();
    const vault = await createVault(apps.db);
    const override = await createOverride(apps.db, { vault, nonce: 5n });
    const url = `/api/overrides/${vault.address}/5`;
    assert.equal((await getJson(app, url)).body.status, 'pending');
    assert.equal((await getJson(app, '/api/overrides?status=pending')).body.pagination.total, 1);

    await apps.db.update(overrides).set({ status: 'approved' }).where(eq(overrides.id, override.id));
    assert.equal((await getJson(app, url)).body.status, 'pending', 'still cached before eviction');

    await evictVaults(deps.cache, [vault.address]);
    assert.equal((await getJson(app, url)).body.status, 'approved');
    assert.equal((await getJson(app, '/api/overrides?status=pending')).body.pagination.total, 0);
  });
});
