import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Type } from '@fastify/type-provider-typebox';
import { is, sql } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import type { FastifyInstance } from 'fastify';
import { startTcpProxy } from '../../dev/support/tcp-proxy.js';
import { buildApp } from '../../src/app.js';
import { createRedisCache } from '../../src/cache/index.js';
import { createDatabase, migrationsFolder } from '../../src/storage/database.js';
import * as schema from '../../src/storage/schema/index.js';
import { createLogCapture, createTestDeps } from '../support/app.js';
import { createTestStorage, type TestStorage } from '../support/database.js';
import { waitFor } from '../support/wait.js';

// Every table the schema declares, read from the schema itself.
const TABLES = Object.values(schema)
  .filter((value) => is(value, PgTable))
  .map((table) => getTableConfig(table as PgTable).name)
  .sort();

let testStorage: TestStorage;
let app: FastifyInstance;
const logs = createLogCapture();

before(async () => {
  testStorage = await createTestStorage();
  app = await buildApp(createTestDeps({ storage: testStorage.storage, logs }));
  // Routes that exist only to exercise the error handler.
  app.post(
    '/test/echo',
    {
      schema: {
        body: Type.Object(
          { name: Type.String({ minLength: 1 }), count: Type.Integer() },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => request.body,
  );
  app.get('/test/boom', async () => {
    throw new Error('database password is hunter2');
  });
  await app.ready();
});
after(async () => {
  await app.close();
  await testStorage.close();
});

describe('migrations', () => {
  test('create every table of the schema', async () => {
    assert.ok(TABLES.includes('vaults') && TABLES.includes('webhook_deliveries'));
    const rows = await testStorage.storage.rows<{ name: string }>(
      sql`select tablename as name from pg_tables where schemaname = 'public' order by 1`,
    );
    assert.deepEqual(
      rows.map((r) => r.name),
      TABLES,
    );
  });

  test('opening an already migrated database applies nothing twice', async () => {
    const { readFileSync } = await import('node:fs');
    const journal = JSON.parse(readFileSync(`${migrationsFolder()}/meta/_journal.json`, 'utf8')) as {
      entries: unknown[];
    };
    const migrations = journal.entries.length;
    if (testStorage.config.kind !== 'postgres') {
      // PGlite in memory is new at each open: migrate a fresh one twice over a data directory instead.
      const { mkdtempSync, rmSync } = await import('node:fs');
      const { join } = await import('node:path');
      const { tmpdir } = await import('node:os');
      const dataDir = mkdtempSync(join(tmpdir(), 'vk-pglite-'));
      try {
        const first = await createDatabase({ kind: 'pglite', dataDir });
        await first.close();
        const second = await createDatabase({ kind: 'pglite', dataDir });
        const [row] = await second.rows<{ n: number }>(
          sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
        );
        assert.equal(row?.n, migrations);
        await second.close();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
      return;
    }
    const again = await createDatabase(testStorage.config);
    const [row] = await again.rows<{ n: number }>(
      sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
    );
    assert.equal(row?.n, migrations);
    await again.close();
  });
});

describe('connection pool', () => {
  test('DATABASE_POOL_SIZE caps the PostgreSQL connections of a process; further queries wait their turn', async (t) => {
    if (testStorage.config.kind !== 'postgres') {
      t.skip('PostgreSQL only: PGlite has one connection');
      return;
    }
    const LOCK = 7_267_999;
    const storage = await createDatabase({ ...testStorage.config, poolSize: 4 });
    const holder = await testStorage.storage.pool!.connect();
    try {
      await holder.query('select pg_advisory_lock($1)', [LOCK]);
      // Each query waits on the lock, so each holds its connection until the lock goes.
      const queries = Array.from({ length: 12 }, () =>
        storage.pool!.query('select pg_advisory_lock_shared($1), pg_advisory_unlock_shared($1)', [LOCK]),
      );
      const pool = storage.pool!;
      await waitFor(() => pool.totalCount === 4 && pool.waitingCount === 8, {
        message: `4 connections open and 8 queries waiting (${pool.totalCount}, ${pool.waitingCount})`,
      });
      await holder.query('select pg_advisory_unlock($1)', [LOCK]);
      assert.equal((await Promise.all(queries)).length, 12);
      assert.ok(pool.totalCount <= 4);
    } finally {
      holder.release();
      await storage.close();
    }
  });
});

describe('error envelope', () => {
  test('unknown route is 404 NOT_FOUND', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/nothing-here' });
    assert.equal(res.statusCode, 404);
    assert.match(res.headers['content-type'] as string, /application\/json/);
    const body = res.json();
    assert.equal(body.code, 'NOT_FOUND');
    assert.equal(typeof body.error, 'string');
    assert.equal(typeof body.details, 'object');
  });

  test('malformed JSON is 400 VALIDATION_ERROR with issues', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'VALIDATION_ERROR');
    assert.ok(res.json().details.issues.length > 0);
  });

  test('schema failures name each bad field', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/test/echo',
      payload: { name: '', count: 'x', extra: true },
    });
    assert.equal(res.statusCode, 400);
    const body = res.json();
    assert.equal(body.code, 'VALIDATION_ERROR');
    const paths = body.details.issues.map((i: { path: string }) => i.path);
    assert.ok(paths.includes('body.name'), paths.join());
    assert.ok(paths.includes('body.count'), paths.join());
    assert.ok(paths.includes('body.extra'), paths.join());
    for (const issue of body.details.issues) assert.equal(typeof issue.message, 'string');
  });

  test('a missing required field is named', async () => {
    const res = await app.inject({ method: 'POST', url: '/test/echo', payload: { name: 'a' } });
    assert.equal(res.statusCode, 400);
    assert.ok(res.json().details.issues.some((i: { path: string }) => i.path === 'body.count'));
  });

  test('a body over 64 KiB is 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(70_000), count: 1 }),
    });
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().code, 'PAYLOAD_TOO_LARGE');
  });

  test('a body that is not JSON is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await app.inject({
        method: 'POST',
        url: '/test/echo',
        headers: { 'content-type': type },
        payload: 'name=a',
      });
      assert.equal(res.statusCode, 415, type);
      assert.equal(res.json().code, 'UNSUPPORTED_MEDIA_TYPE');
    }
  });

  test('prototype-pollution keys are refused', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name":"a","count":1,"__proto__":{"admin":true}}',
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'VALIDATION_ERROR');
  });

  test('an unexpected error is a generic 500 and its cause goes only to the log', async () => {
    const res = await app.inject({ method: 'GET', url: '/test/boom' });
    assert.equal(res.statusCode, 500);
    assert.deepEqual(res.json(), { error: 'Internal server error', code: 'INTERNAL_ERROR', details: {} });
    assert.doesNotMatch(res.body, /hunter2/);
    assert.ok(logs.lines.some((line) => line.includes('hunter2') && line.includes('"level":"error"')));
  });

  test('every response carries a request id, and a sane given one is echoed', async () => {
    const generated = await app.inject({ method: 'GET', url: '/api/health' });
    assert.match(generated.headers['x-request-id'] as string, /^[0-9a-f-]{36}$/);
    const echoed = await app.inject({
      method: 'GET',
      url: '/api/health',
      headers: { 'x-request-id': 'trace-abc.1' },
    });
    assert.equal(echoed.headers['x-request-id'], 'trace-abc.1');
    const hostile = await app.inject({
      method: 'GET',
      url: '/api/health',
      headers: { 'x-request-id': 'a b<script>' },
    });
    assert.notEqual(hostile.headers['x-request-id'], 'a b<script>');
  });
});

describe('health', () => {
  test('reports database, cache, uptime, version, chain and latency figures', async () => {
    await app.inject({ method: 'GET', url: '/api/nothing-here' });
    const res = await app.inject({ method: 'GET', url: '/api/health' });
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
      ...testStorage.storage,
      ping: (timeoutMs?: number) => {
        pings += 1;
        return testStorage.storage.ping(timeoutMs);
      },
    };
    const localApp = await buildApp(createTestDeps({ storage }));
    try {
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
    } finally {
      await localApp.close();
    }
  });
});

describe('health of the cache', () => {
  test('a configured Redis that does not answer reads as disconnected and degraded, not an error', async () => {
    const cache = createRedisCache('redis://127.0.0.1:1');
    const localApp = await buildApp(createTestDeps({ storage: testStorage.storage, cache }));
    try {
      const res = await localApp.inject({ method: 'GET', url: '/api/health' });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().redis, 'disconnected');
      assert.equal(res.json().status, 'degraded');
    } finally {
      await localApp.close();
      await cache.close();
    }
  });

  test('a reachable Redis reads as connected', async (t) => {
    const url = process.env.REDIS_URL;
    if (url === undefined) {
      t.diagnostic('REDIS_URL unset: the Redis run of the suite checks this');
      return;
    }
    const cache = createRedisCache(url);
    const localApp = await buildApp(createTestDeps({ storage: testStorage.storage, cache }));
    try {
      await waitFor(
        async () =>
          (await localApp.inject({ method: 'GET', url: '/api/health' })).json().redis === 'connected',
      );
    } finally {
      await localApp.close();
      await cache.close();
    }
  });
});

describe('health when the database goes away', () => {
  test('answers 503 unhealthy while PostgreSQL is unreachable and recovers when it is back', async (t) => {
    const url = process.env.DATABASE_URL;
    if (url === undefined) {
      // Embedded PGlite cannot be cut off from outside; a closed one must read as down.
      const local = await createTestStorage();
      const localApp = await buildApp(createTestDeps({ storage: local.storage }));
      await local.storage.close();
      const res = await localApp.inject({ method: 'GET', url: '/api/health' });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().status, 'unhealthy');
      assert.equal(res.json().database, 'disconnected');
      await localApp.close();
      t.diagnostic('PGlite run: checked the down case; the PostgreSQL run checks down and back');
      return;
    }
    const target = new URL(testStorage.config.kind === 'postgres' ? testStorage.config.url : url);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(target);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const storage = await createDatabase({ kind: 'postgres', url: viaProxy.toString() });
    const proxiedApp = await buildApp(createTestDeps({ storage }));
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
