import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { buildProbeApp } from '../../src/probe-app.js';
import { openThroughProxy } from '../support/database.js';
import { useIngestionHarness } from '../support/ingestion-harness.js';
import { assertPrometheusText } from '../support/prometheus-text.js';
import { type ServiceProcess, startService } from '../support/service-process.js';
import { useTestApps } from '../support/test-apps.js';
import { waitFor } from '../support/wait.js';

// The preferred RPC endpoint refuses connections and carries an API key in its path and query.
const KEY_PATH = '/v2/sk-live-9e8d7c6b5a';
const KEY_QUERY = '?api-key=swordfish-77aa';
const keyLeaks = (text: string) => text.includes(KEY_PATH) || text.includes('swordfish');

const ROLE_METRICS: Record<string, readonly string[]> = {
  api: ['vaultkeeper_http_request_duration_seconds'],
  ingestor: [
    'vaultkeeper_ingestor_lock_held',
    'vaultkeeper_ingestion_feed_connected',
    'vaultkeeper_ingestion_lag_seconds',
    'vaultkeeper_rpc_requests_total',
    'vaultkeeper_rpc_endpoint_available',
  ],
  worker: [
    'vaultkeeper_deliveries_in_flight',
    'vaultkeeper_delivery_queue_depth',
    'vaultkeeper_delivery_oldest_due_seconds',
  ],
};

describe('probes of each role, as processes', () => {
  let service: ServiceProcess | undefined;
  // Registered before the world's hooks: the service stops before its validator closes.
  afterEach(async () => {
    await service?.stop('SIGKILL');
    service = undefined;
  });
  // A fresh validator for each test; the services run on their own memory database.
  const world = useTestApps({ chain: { eachTest: true }, database: false });

  for (const role of ['api', 'ingestor', 'worker'] as const) {
    test(`ROLES=${role} serves /livez, /readyz and /metrics, and no RPC key leaks`, async () => {
      service = await startService(
        {
          ROLES: role,
          DATABASE_URL: 'memory://',
          REDIS_URL: '',
          SOLANA_RPC_URL: `http://127.0.0.1:1${KEY_PATH}${KEY_QUERY},${world.chain.rpcUrl}`,
          SOLANA_WS_URL: `ws://127.0.0.1:1${KEY_PATH}${KEY_QUERY},${world.chain.wsUrl}`,
        },
        // A loaded machine starts PGlite slowly.
        { timeoutMs: 60_000 },
      );
      const base = service.baseUrl;
      const live = await fetch(`${base}/livez`);
      assert.equal(live.status, 200);
      assert.equal(((await live.json()) as { status: string }).status, 'alive');

      const ready = await waitFor(
        async () => {
          const res = await fetch(`${base}/readyz`);
          return res.status === 200 ? ((await res.json()) as { roles: string[]; checks: object }) : null;
        },
        { message: `${role} ready`, timeoutMs: 20_000, intervalMs: 100 },
      );
      assert.deepEqual(ready.roles, [role]);
      assert.deepEqual(Object.keys(ready.checks).sort(), ['database', role].sort());

      if (role === 'ingestor') {
        // A transaction after start proves the process ingests while the first endpoint is dead.
        await world.chain.burst(3);
        await waitFor(
          async () =>
            (await (await fetch(`${base}/metrics`)).text()).includes('vaultkeeper_chain_last_slot '),
          {
            message: 'slot metric',
          },
        );
      }
      // Whatever its roles, the process holding the embedded database vacuums it (it has no autovacuum).
      await waitFor(
        async () =>
          /vaultkeeper_job_runs_total\{job="embedded-vacuum",outcome="ok"\} [1-9]/.test(
            await (await fetch(`${base}/metrics`)).text(),
          ),
        { message: `${role} vacuumed the embedded database` },
      );
      const metricsText = await (await fetch(`${base}/metrics`)).text();
      const families = assertPrometheusText(metricsText);
      for (const name of ROLE_METRICS[role] ?? []) assert.ok(families.has(name), `${role} exposes ${name}`);
      if (role === 'ingestor') {
        assert.match(metricsText, /vaultkeeper_ingestor_lock_held 1/);
        assert.match(metricsText, /vaultkeeper_rpc_endpoint_available\{endpoint="http:\/\/127\.0\.0\.1:1"\}/);
      }

      const health = await fetch(`${base}/api/health`);
      if (role === 'api') assert.equal(health.status, 200);
      else assert.equal(health.status, 404, 'a process without the api role serves only the probes');
      const bodies = [metricsText, JSON.stringify(ready), await health.text()];
      assert.deepEqual(bodies.filter(keyLeaks), [], 'no probe, health or metric body carries the key');
      assert.deepEqual(service.output.filter(keyLeaks), [], 'no log line carries the key');
    });
  }
});

describe('readiness follows the feed and the database', () => {
  const h = useIngestionHarness();

  test('an active ingestor is ready while its feed is up, 503 while it is down, ready again after', async () => {
    h.start({ ROLES: 'ingestor' });
    const app = await buildProbeApp(h.deps);
    try {
      const readyz = async () => {
        const res = await app.inject({ method: 'GET', url: '/readyz' });
        return { status: res.statusCode, body: res.json() as { checks: Record<string, { ok: boolean }> } };
      };
      await waitFor(async () => (await readyz()).status === 200, { message: 'ready with the feed up' });
      h.fake.setOutage(true);
      const down = await waitFor(
        async () => {
          const result = await readyz();
          return result.status === 503 ? result : null;
        },
        { message: 'not ready with the feed down' },
      );
      assert.equal(down.body.checks.ingestor?.ok, false);
      assert.equal(down.body.checks.database?.ok, true);
      h.fake.setOutage(false);
      await waitFor(async () => (await readyz()).status === 200, {
        message: 'ready again',
        timeoutMs: 20_000,
      });
    } finally {
      await app.close();
    }
  });

  const onPostgres = process.env.DATABASE_URL !== undefined;
  const readyz = async (app: Awaited<ReturnType<typeof buildProbeApp>>) =>
    app.inject({ method: 'GET', url: '/readyz' });
  // The database ping is reused for up to a second.
  const untilDown = (app: Awaited<ReturnType<typeof buildProbeApp>>) =>
    waitFor(async () => {
      const res = await readyz(app);
      return res.statusCode === 503 ? res : null;
    });

  test('503 once the embedded database is closed', {
    skip: onPostgres && 'PostgreSQL run: the next test cuts the database off and brings it back',
  }, async () => {
    // Embedded PGlite cannot be cut off from outside; a closed one must read as down.
    const deps = h.world.createDeps({
      env: { ROLES: 'api' },
      overrides: { storage: await h.world.openDatabase() },
    });
    deps.roleStatus.api.accepting = true;
    const app = await buildProbeApp(deps);
    assert.equal((await readyz(app)).statusCode, 200);
    await deps.storage.close();
    const down = await untilDown(app);
    assert.equal(down.statusCode, 503);
    assert.equal(down.json().checks.database.ok, false);
    await app.close();
  });

  test('503 while the database is unreachable, 200 when it is back', {
    skip:
      !onPostgres &&
      'PGlite run: an embedded database cannot be cut off from outside (the previous test checks the down case)',
  }, async () => {
    const { storage, proxy } = await openThroughProxy(String(process.env.DATABASE_URL));
    const deps = h.world.createDeps({ env: { ROLES: 'api' }, overrides: { storage } });
    deps.roleStatus.api.accepting = true;
    const app = await buildProbeApp(deps);
    try {
      assert.equal((await readyz(app)).statusCode, 200);
      await proxy.cut();
      const down = await untilDown(app);
      assert.equal(down.statusCode, 503);
      assert.equal(down.json().checks.database.ok, false);
      await proxy.restore();
      await waitFor(async () => (await readyz(app)).statusCode === 200, { message: 'database back' });
    } finally {
      await app.close();
      await storage.close();
      await proxy.close();
    }
  });
});
