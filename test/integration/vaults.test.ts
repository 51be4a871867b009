import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { buildApp } from '../../src/app.js';
import { type Cache, createMemoryCache } from '../../src/cache/index.js';
import { evictVaults } from '../../src/cache/tags.js';
import { rebuildVaultStats } from '../../src/domain/vaults/vault-stats.js';
import { createServices } from '../../src/services.js';
import { vaults } from '../../src/storage/schema/index.js';
import {
  createOverride,
  createTransaction,
  createVault,
  executePendingTransaction,
  randomAddress,
} from '../support/factories.js';
import { getJson, useTestApps } from '../support/test-apps.js';

const apps = useTestApps({ env: { PUBLIC_BASE_URL: 'https://vk.example' } });
const start = (options: { cache?: Cache; env?: Record<string, string> } = {}) => apps.start(options);

const at = (iso: string) => new Date(iso);
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('GET /api/vaults', () => {
  test('lists every field of a vault list item with its type, and nothing more', async () => {
    const { app } = await start();
    const vault = await createVault(apps.db, {
      name: 'Ops budget',
      dailyLimit: 5_000_000_000n,
      createdAt: at('2026-11-01T10:00:00.123Z'),
    });
    await createTransaction(apps.db, { vault, status: 'executed', amount: 1_500_000_000n });
    await createTransaction(apps.db, { vault, status: 'blocked', amount: 9_000_000_000n });

    const { status, headers, body } = await getJson(app, '/api/vaults');
    assert.equal(status, 200);
    assert.equal(headers['cache-control'], 'public, max-age=300');
    assert.deepEqual(body, {
      vaults: [
        {
          id: vault.id,
          address: vault.address,
          authority: vault.authority,
          agentSigner: vault.agentSigner,
          dailyLimit: '5000000000',
          name: 'Ops budget',
          createdAt: '2026-11-01T10:00:00.123Z',
          transactionCount: 2,
          totalVolume: '1500000000',
        },
      ],
      pagination: { page: 1, limit: 50, total: 1, pages: 1 },
    });
  });

  test('orders vaults newest first, then by id, and pages through them', async () => {
    const { app } = await start();
    const created = [];
    for (let day = 1; day <= 5; day += 1) {
      created.push(await createVault(apps.db, { createdAt: at(`2026-10-0${day}T00:00:00.000Z`) }));
    }
    const twinA = await createVault(apps.db, { createdAt: at('2026-10-09T00:00:00.000Z') });
    const twinB = await createVault(apps.db, { createdAt: at('2026-10-09T00:00:00.000Z') });
    const twins = [twinA.id, twinB.id].sort();
    const expected = [...twins, ...created.reverse().map((v) => v.id)];

    const all = await getJson(app, '/api/vaults?limit=100');
    assert.deepEqual(
      all.body.vaults.map((v: { id: string }) => v.id),
      expected,
    );

    const pages = [];
    for (let page = 1; page <= 4; page += 1)
      pages.push((await getJson(app, `/api/vaults?page=${page}&limit=3`)).body);
    assert.deepEqual(
      pages.map((p) => p.pagination),
      [1, 2, 3, 4].map((page) => ({ page, limit: 3, total: 7, pages: 3 })),
    );
    assert.deepEqual(
      pages.flatMap((p) => p.vaults.map((v: { id: string }) => v.id)),
      expected,
    );
    assert.deepEqual(pages[3].vaults, []);
  });

  test('reports zero pages when there are no vaults', async () => {
    const { app } = await start();
    const { body } = await getJson(app, '/api/vaults?limit=10');
    assert.deepEqual(body, { vaults: [], pagination: { page: 1, limit: 10, total: 0, pages: 0 } });
  });

  test('filters by owner', async () => {
    const { app } = await start();
    const owner = randomAddress();
    const mine = [
      await createVault(apps.db, { authority: owner }),
      await createVault(apps.db, { authority: owner }),
    ];
    await createVault(apps.db);
    const { body } = await getJson(app, `/api/vaults?owner=${owner}`);
    assert.deepEqual(body.vaults.map((v: { id: string }) => v.id).sort(), mine.map((v) => v.id).sort());
    assert.equal(body.pagination.total, 2);
    const nobody = await getJson(app, `/api/vaults?owner=${randomAddress()}`);
    assert.deepEqual(nobody.body, { vaults: [], pagination: { page: 1, limit: 50, total: 0, pages: 0 } });
  });

  for (const [query, path] of [
    ['page=abc', 'query.page'],
    ['page=0', 'query.page'],
    ['page=1.5', 'query.page'],
    ['page=0x10', 'query.page'],
    ['page=1&page=2', 'query.page'],
    ['limit=0', 'query.limit'],
    ['limit=101', 'query.limit'],
    ['limit=', 'query.limit'],
    ['owner=not-an-address', 'query.owner'],
    ['owner=1111111111111111111111111111111111111111111', 'query.owner'],
    ['sort=name', 'query.sort'],
  ] as const) {
    test(`rejects ?${query} with VALIDATION_ERROR naming ${path}`, async () => {
      const { app } = await start();
      const { status, headers, body } = await getJson(app, `/api/vaults?${query}`);
      assert.equal(status, 400);
      assert.equal(body.code, 'VALIDATION_ERROR');
      assert.equal(typeof body.error, 'string');
      assert.ok(body.details.issues.length >= 1);
      for (const issue of body.details.issues) assert.equal(issue.path, path);
      assert.notEqual(headers['cache-control'], 'public, max-age=300');
    });
  }
});

describe('GET /api/vaults/:address', () => {
  test('returns every field of the vault detail, by address and by record uuid', async () => {
    const { app } = await start();
    const whitelisted = [randomAddress(), randomAddress()];
    const vault = await createVault(apps.db, {
      name: 'Treasury',
      dailyLimit: 3_000_000_000n,
      spentToday: 1_200_000_000n,
      lastReset: at('2026-11-21T08:00:00.000Z'),
      paused: true,
      whitelist: whitelisted,
      whitelistCount: 2,
      tier: 2,
      createdAt: at('2026-11-01T00:00:00.000Z'),
      updatedAt: at('2026-11-21T08:00:00.500Z'),
    });
    const expected = {
      id: vault.id,
      address: vault.address,
      depositAddress: vault.depositAddress,
      authority: vault.authority,
      agentSigner: vault.agentSigner,
      dailyLimit: '3000000000',
      spentToday: '1200000000',
      lastReset: '2026-11-21T08:00:00.000Z',
      name: 'Treasury',
      paused: true,
      whitelist: whitelisted,
      whitelistCount: 2,
      tier: 'enterprise',
      createdAt: '2026-11-01T00:00:00.000Z',
      updatedAt: '2026-11-21T08:00:00.500Z',
      stats: { transactionCount: 0, totalVolume: '0', blockedCount: 0, avgTransactionSize: '0' },
    };
    const byAddress = await getJson(app, `/api/vaults/${vault.address}`);
    assert.equal(byAddress.status, 200);
    assert.equal(byAddress.headers['cache-control'], 'public, max-age=300');
    assert.deepEqual(byAddress.body, expected);
    assert.deepEqual((await getJson(app, `/api/vaults/${vault.id}`)).body, expected);
    assert.deepEqual((await getJson(app, `/api/vaults/${vault.id.toUpperCase()}`)).body, expected);
  });

  test('reports lastReset as null until the vault account has been read', async () => {
    const { app } = await start();
    const vault = await createVault(apps.db, { lastReset: null, tier: 1 });
    const { body } = await getJson(app, `/api/vaults/${vault.address}`);
    assert.equal(body.lastReset, null);
    assert.equal(body.tier, 'team');
    assert.match(body.createdAt, ISO_MS);
  });

  test('computes stats over every status: count all, volume and average of executed, blocked count', async () => {
    const { app } = await start();
    const vault = await createVault(apps.db);
    const other = await createVault(apps.db);
    await createTransaction(apps.db, { vault, status: 'executed', amount: 1_000_000_000n });
    await createTransaction(apps.db, { vault, status: 'executed', amount: 2_000_000_001n });
    await createTransaction(apps.db, { vault, status: 'blocked', amount: 50_000_000_000n });
    const override = await createOverride(apps.db, { vault, status: 'approved' });
    const pending = await createTransaction(apps.db, {
      vault,
      status: 'pending',
      amount: 7n,
      override,
    });
    await createTransaction(apps.db, { vault: other, status: 'executed', amount: 99n });

    let { body } = await getJson(app, `/api/vaults/${vault.address}`);
    assert.deepEqual(body.stats, {
      transactionCount: 4,
      totalVolume: '3000000001',
      blockedCount: 1,
      avgTransactionSize: '1500000000',
    });

    await executePendingTransaction(apps.db, pending);
    await evictVaults(apps.running[0]!.deps.cache, [vault.address]);
    ({ body } = await getJson(app, `/api/vaults/${vault.address}`));
    assert.deepEqual(body.stats, {
      transactionCount: 4,
      totalVolume: '3000000008',
      blockedCount: 1,
      avgTransactionSize: '1000000002',
    });
    const list = await getJson(app, '/api/vaults');
    const item = list.body.vaults.find((v: { id: string }) => v.id === vault.id);
    assert.equal(item.transactionCount, 4);
    assert.equal(item.totalVolume, '3000000008');
  });

  test('keeps u64 amounts exact beyond 2^53 and sums past 2^64', async () => {
    const { app } = await start();
    const vault = await createVault(apps.db, { dailyLimit: 18_446_744_073_709_551_615n });
    await createTransaction(apps.db, { vault, amount: 18_446_744_073_709_551_615n });
    await createTransaction(apps.db, { vault, amount: 18_446_744_073_709_551_615n });
    const { body } = await getJson(app, `/api/vaults/${vault.address}`);
    assert.equal(body.dailyLimit, '18446744073709551615');
    assert.equal(body.stats.totalVolume, '36893488147419103230');
    assert.equal(body.stats.avgTransactionSize, '18446744073709551615');
  });

  test('maintained counters agree with an aggregate over the transactions table', async () => {
    await start();
    const vault = await createVault(apps.db);
    for (const [status, amount] of [
      ['executed', 10n],
      ['executed', 31n],
      ['blocked', 500n],
      ['pending', 7n],
    ] as const) {
      await createTransaction(apps.db, { vault, status, amount });
    }
    const read = async () => (await apps.db.select().from(vaults).where(sql`${vaults.id} = ${vault.id}`))[0]!;
    const maintained = await read();
    await apps.db.execute(
      sql`update vaults set transaction_count = 0, executed_count = 0, blocked_count = 0, total_volume = 0`,
    );
    await rebuildVaultStats(apps.db, [vault.id]);
    const rebuilt = await read();
    const pick = (v: typeof maintained) => [
      v.transactionCount,
      v.executedCount,
      v.blockedCount,
      v.totalVolume,
    ];
    assert.deepEqual(pick(maintained), [4, 2, 1, 41n]);
    assert.deepEqual(pick(rebuilt), pick(maintained));
  });

  test('answers VAULT_NOT_FOUND for an unknown address or uuid', async () => {
    const { app } = await start();
    for (const id of [randomAddress(), '9b2f3c1e-4d5a-4b6c-8d7e-0f1a2b3c4d5e']) {
      const { status, headers, body } = await getJson(app, `/api/vaults/${id}`);
      assert.equal(status, 404);
      assert.deepEqual(body, { error: 'Vault not found', code: 'VAULT_NOT_FOUND', details: { vault: id } });
      assert.notEqual(headers['cache-control'], 'public, max-age=300');
    }
  });

  test('rejects a malformed address with VALIDATION_ERROR', async () => {
    const { app } = await start();
    for (const bad of [
      'abc',
      '0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl',
      '9b2f3c1e-4d5a-4b6c-8d7e-0f1a2b3c4d5',
    ]) {
      const { status, body } = await getJson(app, `/api/vaults/${bad}`);
      assert.equal(status, 400, bad);
      assert.equal(body.code, 'VALIDATION_ERROR');
      assert.equal(body.details.issues[0].path, 'params.address');
    }
  });
});

describe('vault caching', () => {
  test('serves cached vault data, and shows an ingested change as soon as ingestion evicts the vault', async () => {
    const { app, deps } = await start();
    const vault = await createVault(apps.db, { name: 'before' });
    assert.equal((await getJson(app, `/api/vaults/${vault.address}`)).body.name, 'before');
    assert.equal((await getJson(app, '/api/vaults')).body.vaults[0].transactionCount, 0);

    // Ingestion writes the rows, commits, then evicts the vault (src/cache/tags.ts).
    await apps.db.update(vaults).set({ name: 'after', paused: true }).where(sql`${vaults.id} = ${vault.id}`);
    await createTransaction(apps.db, { vault, amount: 5n });
    assert.equal(
      (await getJson(app, `/api/vaults/${vault.address}`)).body.name,
      'before',
      'served from cache',
    );
    assert.equal(
      (await getJson(app, `/api/vaults/${vault.id}`)).body.name,
      'after',
      'uuid key was not cached yet',
    );

    await evictVaults(deps.cache, [vault.address]);
    const detail = (await getJson(app, `/api/vaults/${vault.address}`)).body;
    assert.equal(detail.name, 'after');
    assert.equal(detail.paused, true);
    assert.equal(detail.stats.transactionCount, 1);
    assert.equal((await getJson(app, '/api/vaults')).body.vaults[0].transactionCount, 1);
  });

  test('counts cache hits and misses', async () => {
    const { app, deps } = await start();
    const vault = await createVault(apps.db);
    await app.inject(`/api/vaults/${vault.address}`);
    await app.inject(`/api/vaults/${vault.address}`);
    await app.inject(`/api/vaults/${vault.address}`);
    const counts = Object.fromEntries(
      (await deps.metrics.cacheRequests.get()).values.map((v) => [v.labels.result, v.value]),
    );
    assert.deepEqual(counts, { hit: 2, miss: 1 });
  });

  test('expires vault data after five minutes even without an eviction', async () => {
    let now = Date.parse('2026-11-22T00:00:00.000Z');
    const { app } = await start({ cache: createMemoryCache({ now: () => now }) });
    const vault = await createVault(apps.db, { name: 'before' });
    await app.inject(`/api/vaults/${vault.address}`);
    await apps.db.update(vaults).set({ name: 'after' }).where(sql`${vaults.id} = ${vault.id}`);
    now += 299_000;
    assert.equal((await getJson(app, `/api/vaults/${vault.address}`)).body.name, 'before');
    now += 2_000;
    assert.equal((await getJson(app, `/api/vaults/${vault.address}`)).body.name, 'after');
  });

  test('reads straight from the database when READ_CACHE=false', async () => {
    const { app, deps } = await start({ env: { READ_CACHE: 'false' } });
    const vault = await createVault(apps.db, { name: 'before' });
    await app.inject(`/api/vaults/${vault.address}`);
    await apps.db.update(vaults).set({ name: 'after' }).where(sql`${vaults.id} = ${vault.id}`);
    const response = await getJson(app, `/api/vaults/${vault.address}`);
    assert.equal(response.body.name, 'after');
    assert.equal(response.headers['cache-control'], 'public, max-age=300');
    assert.deepEqual((await deps.metrics.cacheRequests.get()).values, []);
  });
});

describe('composition', () => {
  test('the app serves the services it is given: every cached read goes through their one read cache', async () => {
    const deps = apps.createDeps();
    const services = createServices(deps);
    let reads = 0;
    const { read, readBody } = services.readCache;
    services.readCache.read = (...args) => {
      reads += 1;
      return read(...args);
    };
    services.readCache.readBody = (...args) => {
      reads += 1;
      return readBody(...args);
    };
    const app = await buildApp(deps, services);
    apps.closeAfterTest({ app, deps });
    const vault = await createVault(apps.db);
    for (const url of [
      `/api/vaults/${vault.address}`,
      '/api/vaults',
      `/api/transactions?vault=${vault.address}`,
      `/api/overrides?vault=${vault.address}`,
      `/api/analytics?vault=${vault.address}`,
    ]) {
      const before = reads;
      assert.equal((await app.inject(url)).statusCode, 200, url);
      assert.ok(reads > before, `${url} read through the shared read cache`);
    }
  });
});

describe('OpenAPI', () => {
  test('documents the read routes with their parameters and response schemas', async () => {
    const { app } = await start();
    const document = (await getJson(app, '/api/openapi.json')).body;
    const reads = {
      '/api/vaults': ['owner', 'page', 'limit'],
      '/api/vaults/{address}': ['address'],
      '/api/transactions': ['vault', 'status', 'page', 'limit'],
      '/api/transactions/{key}': ['key', 'index'],
      '/api/overrides': ['vault', 'owner', 'status', 'page', 'limit'],
      '/api/overrides/{vault}/{nonce}': ['vault', 'nonce', 'transfer'],
    };
    for (const [path, parameters] of Object.entries(reads)) {
      const get = document.paths[path]?.get;
      assert.ok(get, path);
      assert.ok(get.summary && get.tags.length === 1, path);
      assert.deepEqual(
        get.parameters.map((p: { name: string }) => p.name).sort(),
        [...parameters].sort(),
        path,
      );
      // Named resources are components, referenced by $ref.
      const schema = get.responses['200'].content['application/json'].schema;
      const resolved = schema.$ref
        ? document.components.schemas[schema.$ref.replace('#/components/schemas/', '')]
        : schema;
      assert.ok(resolved?.properties, path);
      assert.ok(get.responses['400'], path);
    }
  });
});
