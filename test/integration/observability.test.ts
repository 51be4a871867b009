// Metrics exposition, health latency/error figures, request ids on responses and log lines, and
// proof that signature headers, webhook secrets and private keys never reach a log line.
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { createTestWallet } from '../../dev/support/wallet.js';
import { createRollingWindow } from '../../src/lib/rolling-window.js';
import { createLogCapture, createTestCache } from '../support/app.js';
import { createVault } from '../support/factories.js';
import { assertPrometheusText } from '../support/prometheus-text.js';
import { type TestApp, type TestAppOptions, useTestApps } from '../support/test-apps.js';
import { waitFor } from '../support/wait.js';

const apps = useTestApps();

async function start(options: Omit<TestAppOptions, 'cache'> = {}): Promise<TestApp> {
  const cache = createTestCache();
  await waitFor(() => cache.ping(), { message: 'cache not ready' });
  return apps.start({ ...options, cache, env: { SOLANA_RPC_URL: 'http://127.0.0.1:9', ...options.env } });
}

describe('GET /metrics', () => {
  test('serves valid Prometheus text with HELP and TYPE for every family, unlimited', async () => {
    const { app } = await start();
    await app.inject({ url: '/api/vaults' });
    await app.inject({ url: `/api/vaults/${'1'.repeat(32)}` });
    await app.inject({ url: '/no/such/route' });
    const response = await app.inject({ url: '/metrics' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    assert.equal(response.headers['x-ratelimit-limit'], undefined);
    const families = assertPrometheusText(response.body);
    for (const name of [
      'vaultkeeper_http_request_duration_seconds',
      'vaultkeeper_cache_requests_total',
      'vaultkeeper_rate_limit_rejections_total',
      'vaultkeeper_rate_limit_store_errors_total',
      'vaultkeeper_events_ingested_total',
      'vaultkeeper_delivery_attempts_total',
      'vaultkeeper_delivery_latency_seconds',
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds',
      'process_resident_memory_bytes',
    ]) {
      assert.ok(families.has(name), `${name} is exposed`);
    }
    const latency = families.get('vaultkeeper_http_request_duration_seconds')!;
    assert.equal(latency.type, 'histogram');
    // Routes are labelled by template, never by the raw path (bounded label values).
    const routes = new Set(latency.samples.map((s) => s.labels.route));
    assert.ok(routes.has('/api/vaults'));
    assert.ok(routes.has('/api/vaults/:address'));
    assert.ok(routes.has('unmatched'));
    assert.ok(!routes.has('/no/such/route'));
  });

  test('with METRICS_TOKEN, answers only its bearer: anything else is a 401 in the envelope', async () => {
    const token = randomBytes(24).toString('base64url');
    const { app } = await start({ env: { METRICS_TOKEN: token } });
    for (const authorization of [undefined, 'Bearer ', `Bearer ${token}x`, `Basic ${token}`, token]) {
      const response = await app.inject({ url: '/metrics', headers: authorization ? { authorization } : {} });
      assert.equal(response.statusCode, 401, `${authorization}`);
      const body = response.json() as { code: string; error: string };
      assert.equal(body.code, 'UNAUTHORIZED');
      assert.match(body.error, /Authorization: Bearer <METRICS_TOKEN>/);
      assert.doesNotMatch(response.body, /vaultkeeper_|process_cpu/);
    }
    const allowed = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${token}` } });
    assert.equal(allowed.statusCode, 200);
    assertPrometheusText(allowed.body);
  });

  test('counts rate-limit rejections by the budget that refused', async () => {
    const { app } = await start();
    for (let i = 0; i < 21; i += 1) await app.inject({ method: 'POST', url: '/api/vaults' });
    const families = assertPrometheusText((await app.inject({ url: '/metrics' })).body);
    const rejected = families.get('vaultkeeper_rate_limit_rejections_total')!.samples;
    assert.deepEqual(
      rejected.map((s) => [s.labels.category, s.value]),
      [['write', 1]],
    );
  });
});

describe('in-process sizes', () => {
  test('the gauge counts rate-limit clients, cached entries, open event streams and approval work as they change', async () => {
    const { app, deps } = await start({ env: { TRUST_PROXY: '1' } });
    const sizes = async () => {
      const families = assertPrometheusText((await app.inject({ url: '/metrics' })).body);
      const samples = families.get('vaultkeeper_in_process_entries')!.samples;
      return Object.fromEntries(samples.map((s) => [s.labels.structure, s.value]));
    };
    const before = await sizes();
    assert.deepEqual(Object.keys(before).sort(), [
      'approval_confirms',
      'approval_simulations',
      'approval_waits',
      'cache_entries',
      'event_streams',
      'live_feed_listeners',
      'live_vaults',
      'rate_limit_clients',
    ]);
    assert.equal(before.rate_limit_clients, 0);
    const vault = await createVault(apps.db);
    for (const client of ['198.51.100.1', '198.51.100.2', '2001:db8::1', '2001:db8::2']) {
      await app.inject({ url: `/api/vaults/${vault.address}`, headers: { 'x-forwarded-for': client } });
    }
    const after = await sizes();
    // With Redis the counters live there and the process holds none.
    const inProcess = deps.cache.kind === 'memory';
    assert.equal(after.rate_limit_clients, inProcess ? 3 : 0, 'two IPv4 clients and one /64');
    if (deps.cache.kind === 'memory')
      assert.ok(after.cache_entries! > before.cache_entries!, 'a detail was cached');
    assert.equal(after.event_streams, 0);
    assert.equal(after.approval_confirms, 0);
    assert.equal(after.approval_simulations, 0);
  });
});

describe('health figures', () => {
  test('responseTime percentiles and errorRate cover the last five minutes of requests', async () => {
    let now = Date.parse('2026-11-22T10:00:00.000Z');
    const requestStats = createRollingWindow({ now: () => now });
    const { app } = await start({
      overrides: { requestStats },
      routes: (app) =>
        app.get('/test/boom', { config: { rateLimit: false } }, async () => {
          throw new Error('boom');
        }),
      env: { RATE_LIMIT_ENABLED: 'false' },
    });
    const idle = (await app.inject({ url: '/api/health' })).json();
    assert.deepEqual(idle.responseTime, { p50: 0, p95: 0, p99: 0 });
    assert.equal(idle.errorRate, 0);

    for (let i = 0; i < 7; i += 1) await app.inject({ url: '/api/vaults' });
    await app.inject({ url: '/api/vaults?page=0' }); // 400: client errors are not errors of ours
    await app.inject({ url: '/test/boom' });
    await app.inject({ url: '/test/boom' });
    // Probes and monitoring polls are not callers' requests: a not-ready 503 is not an API error.
    for (let i = 0; i < 5; i += 1) {
      assert.equal((await app.inject({ url: '/readyz' })).statusCode, 503);
      await app.inject({ url: '/livez' });
      await app.inject({ url: '/metrics' });
    }
    const busy = (await app.inject({ url: '/api/health' })).json();
    // 7 + 1 + 2 = 10 requests, 2 of them 5xx; health's own calls are not counted either.
    assert.equal(busy.errorRate, 0.2);
    const { p50, p95, p99 } = busy.responseTime;
    assert.ok(p50 > 0 && p50 <= p95 && p95 <= p99, JSON.stringify(busy.responseTime));

    now += 5 * 60_000 + 10_000;
    const later = (await app.inject({ url: '/api/health' })).json();
    assert.equal(later.errorRate, 0);
    assert.deepEqual(later.responseTime, { p50: 0, p95: 0, p99: 0 });
  });
});

describe('request ids', () => {
  test('every response carries X-Request-Id: a well-formed one is echoed, anything else replaced', async () => {
    const { app } = await start();
    const echoed = await app.inject({ url: '/api/vaults', headers: { 'x-request-id': 'trace-42.a:b_c' } });
    assert.equal(echoed.headers['x-request-id'], 'trace-42.a:b_c');
    for (const given of ['has spaces', 'x'.repeat(101), '<script>', '']) {
      const response = await app.inject({ url: '/no/such', headers: { 'x-request-id': given } });
      assert.match(String(response.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    }
    const ids = new Set<string>();
    for (const url of ['/api/health', '/metrics', '/docs/json', '/api/vaults?limit=0', '/nowhere']) {
      const id = (await app.inject({ url })).headers['x-request-id'];
      assert.ok(typeof id === 'string' && id.length > 0, url);
      ids.add(id);
    }
    assert.equal(ids.size, 5);
  });

  test('every log line written while serving a request carries its reqId', async () => {
    const logs = createLogCapture();
    const { app } = await start({
      logs,
      routes: (app) =>
        app.get('/test/noisy', async (request) => {
          request.log.info({ step: 1 }, 'handler log line');
          throw new Error('boom');
        }),
    });
    const before = logs.lines.length;
    await app.inject({ url: '/test/noisy', headers: { 'x-request-id': 'req-obs-1' } });
    const lines = logs.lines.slice(before).map((line) => JSON.parse(line) as Record<string, unknown>);
    const messages = lines.map((l) => l.msg);
    assert.ok(messages.includes('handler log line'));
    assert.ok(messages.includes('unhandled error'));
    assert.ok(messages.includes('request'));
    for (const line of lines) assert.equal(line.reqId, 'req-obs-1', JSON.stringify(line));
  });
});

describe('secrets never reach a log line', () => {
  test('signature headers, signed messages, webhook secrets and private keys are redacted everywhere', async () => {
    const logs = createLogCapture();
    const wallet = createTestWallet();
    const webhookSecret = `whsec_${randomBytes(32).toString('base64')}`;
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const jwkD = String(wallet.privateKey.export({ format: 'jwk' }).d);
    const pemBody = pem.split('\n')[1]!;
    const { app, deps } = await start({
      logs,
      env: { RATE_LIMIT_ENABLED: 'false' },
      routes: (app) => {
        // A careless handler logging whole headers, nested secrets and keys: redaction must still hold.
        app.post('/test/careless', { config: { auth: 'optional', scope: 'read' } }, async (request) => {
          request.log.info({ headers: request.headers, request: { headers: request.headers } }, 'headers');
          request.log.info({ webhook: { secret: webhookSecret, url: 'https://user:pa55@example.com/hook' } });
          request.log.info({ delivery: { attempt: { body: `secret=${webhookSecret}` } } }, 'deep');
          request.log.warn({ signing: { privateKey: pem } }, 'key material');
          request.log.debug(`key ${pem}`);
          throw new Error(`delivery failed for ${webhookSecret} with ${pem}`);
        });
      },
    });
    const vault = await createVault(deps.storage.db, { authority: wallet.address });
    const signatures: string[] = [];
    type Method = 'PATCH' | 'POST';
    /** Headers signed for this very request; every signature is remembered for the leak check. */
    const signed = (method: Method, url: string, payload?: object) => {
      const headers = wallet.authHeaders({ request: { method, path: url, body: payload } });
      signatures.push(headers['x-signature']!);
      return headers;
    };
    const send = (method: Method, url: string, payload?: object, headers = signed(method, url, payload)) =>
      app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });

    const rename = { name: 'Renamed' };
    const first = signed('PATCH', `/api/vaults/${vault.id}`, rename);
    const responses = [
      // Authenticated write that succeeds (name only: no chain needed).
      await send('PATCH', `/api/vaults/${vault.id}`, rename, first),
      // Authenticated write that fails (validation), replayed signature (401), and a build needing the chain.
      await send('PATCH', `/api/vaults/${vault.id}`, {}),
      await send('POST', '/api/vaults', { name: 'New', agentSigner: wallet.address, dailyLimit: '1000' }),
      await send('POST', `/api/actions/${vault.address}/1/approve`, { account: wallet.address }),
      await send('POST', '/test/careless', {}),
    ];
    responses.push(await send('PATCH', `/api/vaults/${vault.id}`, rename, first));
    assert.equal(responses[0]!.statusCode, 200);
    assert.equal(responses.at(-1)!.statusCode, 401);
    assert.equal(responses.at(-1)!.json().details.reason, 'replayed');
    assert.equal(responses[4]!.statusCode, 500);

    // Webhook secrets the service issues: on creation and on rotation.
    const created = await send('POST', '/api/webhooks', {
      url: 'https://hooks.example.com/vk',
      events: ['transaction.blocked'],
      vault: vault.address,
    });
    assert.equal(created.statusCode, 201, created.body);
    const webhook = created.json() as { id: string; secret: string };
    const rotated = await send('POST', `/api/webhooks/${webhook.id}/rotate-secret`);
    assert.equal(rotated.statusCode, 200, rotated.body);
    const issued = [webhook.secret, (rotated.json() as { secret: string }).secret];
    assert.ok(issued.every((secret) => secret.startsWith('whsec_')));
    await send('POST', `/api/webhooks/${webhook.id}/test`);

    const text = logs.lines.join('\n');
    // The careless lines were written (so the absence below means redaction, not silence).
    for (const msg of ['"msg":"headers"', '"msg":"deep"', '"msg":"key material"', 'unhandled error']) {
      assert.ok(text.includes(msg), `${msg} was logged`);
    }
    assert.ok(text.includes('[redacted]'));
    assert.ok(text.includes(wallet.address), 'the wallet address is not a secret and stays visible');
    for (const signature of signatures) assert.ok(!text.includes(signature), 'X-Signature leaked');
    assert.ok(!text.includes('Timestamp: '), 'signed X-Message leaked');
    for (const secret of [webhookSecret, ...issued]) {
      assert.ok(!text.includes(secret.slice('whsec_'.length, 30)), 'webhook secret leaked');
    }
    assert.ok(!text.includes(pemBody), 'PEM private key leaked');
    assert.ok(!text.includes(jwkD), 'wallet private key leaked');
    assert.ok(!text.includes('pa55'), 'URL password leaked');
  });
});
