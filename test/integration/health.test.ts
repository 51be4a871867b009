// GET /api/health: database, cache, uptime, version, chain and latency figures; probes sharing one
// database ping; a Redis that does not answer; and a database that goes away and comes back.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createMemoryCache, createRedisCache } from '../../src/cache/index.js';
import { openThroughProxy } from '../support/database.js';
import { useTestApps } from '../support/test-apps.js';
import { waitFor } from '../support/wait.js';

// The in-process cache: this file reads what health says of it ('in-memory'); the Redis cases build their own app.
const world = useTestApps({
  cache: createMemoryCache(),
  fileApp: {
    routes: (app) => {
      app.get('/test/boom', async () => {
        throw new Error('boom');
      });
    },
    // The app has answered one 500, so its error rate is above 0.
    setUp: (app) => app.inject({ method: 'GET', url: '/test/boom' }),
  },
  emptyEachTest: false,
});

describe('health', () => {
  test('reports database, cache, uptime, version, chain and latency figures', async () => {
    await world.app.inject({ method: 'GET', url: '/api/nothing-here' });
    const res = await world.app.inject({ method: 'GET', url: '/api/health' });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.database, 'connected');
    assert.equal(body.redis, 'in-memory');
    assert.equal(typeof body.uptime, 'number');
    assert.match(body.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(body.version, '0.1.0');
    assert.equal(body.chain.cluster, 'devnet');
    assert.ok(['connected', 'connecting', 'disconnected'].includes(body.chain.status));
    // The chain feed is not running in this test: that degrades, it does not fail.
    assert.equal(body.status, body.chain.status === 'connected' ? 'healthy' : 'degraded');
    assert.ok(body.responseTime.p50 > 0, 'earlier requests were measured');
    assert.ok(body.responseTime.p99 >= body.responseTime.p50);
    assert.ok(body.errorRate > 0 && body.errorRate < 1, 'the 500 above counts as an error');
  });

  test('a flood of health and readiness probes shares one database ping a second', async () => {
    let pings = 0;
    const storage = {
      ...world.storage,
      ping: (timeoutMs?: number) => {
        pings += 1;
        return world.storage.ping(timeoutMs);
      },
    };
    // Its own cache, as the service has: the file app's holds nothing of this test.
    const { app: localApp } = await world.start({ cache: createMemoryCache(), overrides: { storage } });
    const probes = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        localApp.inject({ method: 'GET', url: i % 2 === 0 ? '/api/health' : '/readyz' }),
      ),
    );
    probes.forEach((res, i) => {
      // Readiness also names roles this app does not run; the database check is the subject.
      if (i % 2 === 0) assert.equal(res.json().database, 'connected');
      else assert.equal(res.json().checks.database.ok, true);
    });
    // One for health and one for readiness: the others shared them.
    assert.ok(pings <= 2, `${pings} pings`);
  });
});

describe('health of the cache', () => {
  test('a configured Redis that does not answer reads as disconnected and degraded, not an error', async () => {
    const cache = createRedisCache('redis://127.0.0.1:1');
    const { app: localApp } = await world.start({ cache });
    const res = await localApp.inject({ method: 'GET', url: '/api/health' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().redis, 'disconnected');
    assert.equal(res.json().status, 'degraded');
  });

  test('a reachable Redis reads as connected', async (t) => {
    const url = process.env.REDIS_URL;
    if (url === undefined) {
      t.skip('REDIS_URL unset: the Redis run of the suite checks this');
      return;
    }
    const cache = createRedisCache(url);
    const { app: localApp } = await world.start({ cache });
    await waitFor(
      async () => (await localApp.inject({ method: 'GET', url: '/api/health' })).json().redis === 'connected',
    );
  });
});

describe('health when the database goes away', () => {
  const onPostgres = process.env.DATABASE_URL !== undefined;

  test('answers 503 unhealthy once the embedded database is closed', {
    skip: onPostgres && 'PostgreSQL run: the next test cuts the database off and brings it back',
  }, async () => {
    // Embedded PGlite cannot be cut off from outside; a closed one must read as down.
    const local = await world.openDatabase();
    const { app: localApp } = await world.start({
      cache: createMemoryCache(),
      overrides: { storage: local },
    });
    await local.close();
    const res = await localApp.inject({ method: 'GET', url: '/api/health' });
    assert.equal(res.statusCode, 503);
    assert.equal(res.json().status, 'unhealthy');
    assert.equal(res.json().database, 'disconnected');
  });

  test('answers 503 unhealthy while PostgreSQL is unreachable and recovers when it is back', {
    skip:
      !onPostgres &&
      'PGlite run: an embedded database cannot be cut off from outside (the previous test checks the down case)',
  }, async () => {
    const url = String(process.env.DATABASE_URL);
    const { storage, proxy } = await openThroughProxy(
      world.databaseConfig.kind === 'postgres' ? world.databaseConfig.url : url,
    );
    const { app: proxiedApp } = await world.start({ cache: createMemoryCache(), overrides: { storage } });
    try {
      assert.equal(
        (await proxiedApp.inject({ method: 'GET', url: '/api/health' })).json().database,
        'connected',
      );
      await proxy.cut();
      // Health checks are reused for up to a second.
      const down = await waitFor(async () => {
        const res = await proxiedApp.inject({ method: 'GET', url: '/api/health' });
        return res.statusCode === 503 ? res : null;
      });
      assert.equal(down.statusCode, 503);
      assert.equal(down.json().status, 'unhealthy');
      assert.equal(down.json().database, 'disconnected');
      await proxy.restore();
      await waitFor(
        async () =>
          (await proxiedApp.inject({ method: 'GET', url: '/api/health' })).json().database === 'connected',
        {
          message: 'database reconnected',
        },
      );
    } finally {
      await proxiedApp.close();
      await storage.close();
      await proxy.close();
    }
  });
});
