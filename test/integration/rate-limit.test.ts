// Per-IP budgets (docs/API.md, Rate limits) through the real app, on the memory store or Redis (REDIS_URL).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, mock, test } from 'node:test';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { type Cache, createMemoryCache, createRedisCache } from '../../src/cache/index.js';
import type { Metrics } from '../../src/lib/metrics.js';
import { createLogCapture, createTestCache, type LogCapture } from '../support/app.js';
import { useTestApps } from '../support/test-apps.js';
import { waitFor } from '../support/wait.js';

const VAULT = '11111111111111111111111111111111';
const READ = { method: 'GET', url: '/api/vaults' } as const;
const WRITE = { method: 'POST', url: '/api/vaults' } as const;
const ANALYTICS = { method: 'GET', url: '/api/analytics' } as const;

const apps = useTestApps();

interface StartOptions {
  env?: Record<string, string>;
  cache?: Cache;
  logs?: LogCapture;
  /** Wait until the cache answers (Redis counters only count once connected; before, requests pass). */
  waitForCache?: boolean;
}

async function start(options: StartOptions = {}): Promise<{ app: FastifyInstance; metrics: Metrics }> {
  const cache = options.cache ?? createTestCache();
  if (options.waitForCache !== false) await waitFor(() => cache.ping(), { message: 'cache not ready' });
  const { app, deps } = await apps.start({
    cache,
    env: { SOLANA_RPC_URL: 'http://127.0.0.1:9', ...options.env },
    ...(options.logs ? { logs: options.logs } : {}),
  });
  return { app, metrics: deps.metrics };
}

async function repeat(
  app: FastifyInstance,
  count: number,
  request: InjectOptions,
): Promise<LightMyRequestResponse[]> {
  const responses: LightMyRequestResponse[] = [];
  for (let i = 0; i < count; i += 1) responses.push(await app.inject(request));
  return responses;
}

function assertLimited(response: LightMyRequestResponse, limit: number, remaining: number): void {
  assert.notEqual(response.statusCode, 429, `unexpected 429 with ${remaining} remaining`);
  assert.equal(response.headers['x-ratelimit-limit'], String(limit));
  assert.equal(response.headers['x-ratelimit-remaining'], String(remaining));
  const reset = Number(response.headers['x-ratelimit-reset']);
  assert.ok(reset >= 1 && reset <= 60, `reset ${reset} s`);
}

function assertRejected(response: LightMyRequestResponse, limit: number): void {
  assert.equal(response.statusCode, 429);
  assert.equal(response.headers['x-ratelimit-limit'], String(limit));
  assert.equal(response.headers['x-ratelimit-remaining'], '0');
  const retryAfter = Number(response.headers['retry-after']);
  assert.ok(retryAfter >= 1 && retryAfter <= 60, `retry-after ${retryAfter} s`);
  assert.equal(response.headers['x-ratelimit-reset'], String(retryAfter));
  assert.match(String(response.headers['content-type']), /^application\/json/);
  assert.equal(response.headers['x-content-type-options'], 'nosniff');
  assert.ok(response.headers['x-request-id']);
  const body = response.json();
  assert.equal(body.code, 'RATE_LIMIT_EXCEEDED');
  assert.equal(typeof body.error, 'string');
  assert.deepEqual(body.details, { limit, retryAfter });
}

async function rejections(metrics: Metrics): Promise<Record<string, number>> {
  const { values } = await metrics.rateLimitRejections.get();
  return Object.fromEntries(values.map((v) => [String(v.labels.category), v.value]));
}

describe('category budgets', () => {
  test('reads allow 100 requests a minute, then answer 429 with Retry-After and the envelope', async () => {
    const { app, metrics } = await start();
    const responses = await repeat(app, 100, READ);
    responses.forEach((response, i) => {
      assert.equal(response.statusCode, 200);
      assertLimited(response, 100, 99 - i);
    });
    assertRejected(await app.inject(READ), 100);
    assert.deepEqual(await rejections(metrics), { read: 1 });
  });

  test('a 429 on a Solana Action route also carries `message`', async () => {
    const { app } = await start();
    await repeat(app, 100, READ);
    const response = await app.inject({ method: 'GET', url: `/api/actions/${VAULT}/1` });
    assertRejected(response, 100);
    assert.equal(response.json().message, response.json().error);
  });

  test('writes allow 20 requests a minute, counted before authentication', async () => {
    const { app, metrics } = await start();
    const responses = await repeat(app, 20, WRITE);
    responses.forEach((response, i) => {
      assert.equal(response.statusCode, 401);
      assertLimited(response, 20, 19 - i);
    });
    assertRejected(await app.inject(WRITE), 20);
    // Reads have their own budget: the write limit does not block them.
    assert.equal((await app.inject(READ)).statusCode, 200);
    assert.deepEqual(await rejections(metrics), { write: 1 });
  });

  test('analytics allow 30 requests a minute across both analytics routes', async () => {
    const { app, metrics } = await start();
    const responses = [
      ...(await repeat(app, 15, ANALYTICS)),
      ...(await repeat(app, 15, { method: 'GET', url: '/api/analytics/realtime' })),
    ];
    responses.forEach((response, i) => {
      assert.equal(response.statusCode, i < 15 ? 200 : 400);
      assertLimited(response, 30, 29 - i);
    });
    assertRejected(await app.inject(ANALYTICS), 30);
    assert.deepEqual(await rejections(metrics), { analytics: 1 });
  });

  test('unknown routes spend the budget of their method, so route scanning is limited too', async () => {
    const { app } = await start();
    const responses = await repeat(app, 20, { method: 'DELETE', url: '/api/no-such-route' });
    responses.forEach((response, i) => {
      assert.equal(response.statusCode, 404);
      assertLimited(response, 20, 19 - i);
    });
    assertRejected(await app.inject({ method: 'DELETE', url: '/api/no-such-route' }), 20);
  });
});

describe('overall budget', () => {
  test('every category spends the overall 100 requests a minute; the tighter budget sets the headers', async () => {
    const { app, metrics } = await start();
    await repeat(app, 20, WRITE);
    await repeat(app, 30, ANALYTICS);
    // Reads: own budget 99 left, overall 49 left, so the overall one is reported.
    const reads = await repeat(app, 50, READ);
    reads.forEach((response, i) => {
      assert.equal(response.statusCode, 200);
      assertLimited(response, 100, 49 - i);
    });
    assertRejected(await app.inject(READ), 100);
    assert.deepEqual(await rejections(metrics), { overall: 1 });
  });
});

describe('exempt routes', () => {
  test('health, metrics, OpenAPI and docs are never limited and send no rate-limit headers', async () => {
    const { app } = await start();
    await repeat(app, 101, READ);
    for (const url of ['/api/health', '/metrics', '/api/openapi.json', '/docs', '/docs/json']) {
      for (const response of await repeat(app, 3, { method: 'GET', url })) {
        assert.ok(response.statusCode < 400, `${url} answered ${response.statusCode}`);
        assert.equal(response.headers['x-ratelimit-limit'], undefined, url);
      }
    }
  });

  test('RATE_LIMIT_ENABLED=false turns every limit off', async () => {
    const { app } = await start({ env: { RATE_LIMIT_ENABLED: 'false' } });
    const responses = await repeat(app, 25, WRITE);
    assert.ok(responses.every((r) => r.statusCode === 401 && r.headers['x-ratelimit-limit'] === undefined));
  });
});

describe('client identity', () => {
  test('each client IP has its own budget', async () => {
    const { app } = await start();
    await repeat(app, 21, { ...WRITE, remoteAddress: '198.51.100.7' });
    const other = await app.inject({ ...WRITE, remoteAddress: '198.51.100.8' });
    assertLimited(other, 20, 19);
    assertRejected(await app.inject({ ...WRITE, remoteAddress: '198.51.100.7' }), 20);
  });

  test('without TRUST_PROXY, X-Forwarded-For is ignored: rotating it does not buy a new budget', async () => {
    const { app } = await start();
    for (let i = 0; i < 20; i += 1) {
      await app.inject({ ...WRITE, headers: { 'x-forwarded-for': `203.0.113.${i}` } });
    }
    assertRejected(await app.inject({ ...WRITE, headers: { 'x-forwarded-for': '203.0.113.99' } }), 20);
  });

  test('with TRUST_PROXY=true, the X-Forwarded-For client is the one counted', async () => {
    const { app } = await start({ env: { TRUST_PROXY: 'true' } });
    await repeat(app, 21, { ...WRITE, headers: { 'x-forwarded-for': '203.0.113.1' } });
    assertLimited(await app.inject({ ...WRITE, headers: { 'x-forwarded-for': '203.0.113.2' } }), 20, 19);
    assertRejected(await app.inject({ ...WRITE, headers: { 'x-forwarded-for': '203.0.113.1' } }), 20);
  });

  test('with TRUST_PROXY=1, only the address our proxy appended counts, not one the client wrote', async () => {
    const { app } = await start({ env: { TRUST_PROXY: '1' } });
    for (let i = 0; i < 20; i += 1) {
      const headers = { 'x-forwarded-for': `10.9.9.${i}, 203.0.113.1` };
      assertLimited(await app.inject({ ...WRITE, headers }), 20, 19 - i);
    }
    const spoofed = { 'x-forwarded-for': '10.9.9.250, 203.0.113.1' };
    assertRejected(await app.inject({ ...WRITE, headers: spoofed }), 20);
  });
  test('IPv6 clients are counted by /64, a mapped IPv4 client as its IPv4 address, malformed ones together', async () => {
    const { app } = await start({ env: { TRUST_PROXY: '1' } });
    const via = (client: string) => ({ ...WRITE, headers: { 'x-forwarded-for': client } });
    // One /64, written four ways: one budget.
    const forms = ['2001:db8:1:2::1', '2001:DB8:1:2:0:0:0:2', '2001:0db8:0001:0002:ffff::3', 'fe80::1%eth0'];
    for (let i = 0; i < 20; i += 1) assertLimited(await app.inject(via(forms[i % 3]!)), 20, 19 - i);
    assertRejected(await app.inject(via('2001:db8:1:2:abcd::9')), 20);
    assertLimited(await app.inject(via('2001:db8:1:3::1')), 20, 19);
    assertLimited(await app.inject(via(forms[3]!)), 20, 19);
    // ::ffff:198.51.100.9 and 198.51.100.9 are one client.
    await repeat(app, 20, via('::ffff:198.51.100.9'));
    assertRejected(await app.inject(via('198.51.100.9')), 20);
    // Whatever a forged header holds that is not an address, it is one client.
    await repeat(app, 20, via('not-an-address'));
    assertRejected(await app.inject(via('2001:db8::1::2')), 20);
  });

  test('CLIENT_IPV6_PREFIX sets the subnet an IPv6 client is counted by', async () => {
    const { app } = await start({ env: { TRUST_PROXY: '1', CLIENT_IPV6_PREFIX: '48' } });
    const via = (client: string) => ({ ...WRITE, headers: { 'x-forwarded-for': client } });
    await repeat(app, 20, via('2001:db8:1:2::1'));
    assertRejected(await app.inject(via('2001:db8:1:ffff::1')), 20);
    assertLimited(await app.inject(via('2001:db8:2::1')), 20, 19);
  });
  test('a request’s log lines name the client key the limits count it by', async () => {
    const logs = createLogCapture();
    const { app } = await start({ env: { TRUST_PROXY: '1', LOG_LEVEL: 'debug' }, logs });
    await app.inject({ ...READ, headers: { 'x-forwarded-for': '2001:db8:7:8:9::1' } });
    const line = logs.lines
      .map((l) => JSON.parse(l))
      .find((l) => l.msg === 'request' && l.route === '/api/vaults');
    assert.equal(line?.client, '2001:db8:7:8::/64');
  });
});

describe('the operations guide', () => {
  test('its TRUST_PROXY is a hop count: 130 reads rotating the leftmost X-Forwarded-For entry get 100 × 200, 30 × 429', async () => {
    const guide = await readFile(new URL('../../docs/OPERATIONS.md', import.meta.url), 'utf8');
    const value = /TRUST_PROXY=(\S+)/.exec(guide)?.[1] ?? '';
    assert.match(value, /^[1-9]\d?$/, `the guide sets TRUST_PROXY=${value}, not a hop count`);
    const { app } = await start({ env: { TRUST_PROXY: value } });
    const statuses: number[] = [];
    for (let i = 0; i < 130; i += 1) {
      const headers = { 'x-forwarded-for': `203.0.113.${i}, 192.0.2.77` };
      statuses.push((await app.inject({ ...READ, headers })).statusCode);
    }
    assert.equal(statuses.filter((s) => s === 200).length, 100);
    assert.equal(statuses.filter((s) => s === 429).length, 30);
  });

  test('TRUST_PROXY=true warns at start that it trusts every X-Forwarded-For entry; a hop count does not', async () => {
    const trusting = createLogCapture();
    await start({ env: { TRUST_PROXY: 'true' }, logs: trusting });
    const warnings = trusting.lines.filter((line) => line.includes('TRUST_PROXY=true'));
    assert.equal(warnings.length, 1);
    assert.equal(JSON.parse(warnings[0]!).level, 'warn');
    assert.match(warnings[0]!, /every X-Forwarded-For entry/);
    assert.match(warnings[0]!, /leftmost/);
    const counted = createLogCapture();
    await start({ env: { TRUST_PROXY: '1' }, logs: counted });
    assert.equal(counted.lines.filter((line) => line.includes('TRUST_PROXY')).length, 0);
  });
});

describe('shared counters', () => {
  const shared = process.env.REDIS_URL
    ? 'two instances on one Redis share one budget'
    : 'two apps on one in-process store share one budget (set REDIS_URL to run this on Redis)';
  test(shared, async () => {
    const prefix = `vk-test-shared-${process.pid}-${Date.now()}:`;
    const memory = createMemoryCache();
    const cacheFor = () => (process.env.REDIS_URL ? createTestCache(prefix) : memory);
    const first = await start({ cache: cacheFor() });
    const second = await start({ cache: cacheFor() });
    for (let i = 0; i < 20; i += 1) {
      const response = await (i % 2 === 0 ? first : second).app.inject(WRITE);
      assertLimited(response, 20, 19 - i);
    }
    assertRejected(await second.app.inject(WRITE), 20);
    assertRejected(await first.app.inject(WRITE), 20);
  });

  test('a full window later the budget is whole again', async () => {
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    try {
      const { app } = await start({ cache: createMemoryCache() });
      await repeat(app, 21, WRITE);
      mock.timers.tick(59_000);
      assertRejected(await app.inject(WRITE), 20);
      mock.timers.tick(1_001);
      assertLimited(await app.inject(WRITE), 20, 19);
    } finally {
      mock.timers.reset();
    }
  });
});

describe('counter store outage', () => {
  test('an unreachable Redis leaves per-process budgets, with their headers; counted, one warning', async () => {
    const logs = createLogCapture();
    const broken = createRedisCache('redis://127.0.0.1:1', { prefix: 'vk-test-down:' });
    const { app, metrics } = await start({ cache: broken, logs, waitForCache: false });
    const responses = await repeat(app, 25, WRITE);
    for (const [i, response] of responses.slice(0, 20).entries()) {
      assert.equal(response.statusCode, 401);
      assertLimited(response, 20, 19 - i);
    }
    for (const response of responses.slice(20)) assertRejected(response, 20);
    // Reads spend their own budget and the overall one, as they do on Redis.
    assertLimited(await app.inject(READ), 100, 74);
    const { values } = await metrics.rateLimitStoreErrors.get();
    assert.equal(values[0]?.value, 52, 'each request spends two budgets, each a store error');
    const warnings = logs.lines.filter((line) => line.includes('rate-limit store unavailable'));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /per-process budgets apply/);
  });

  test('two apps on one unreachable Redis each keep their own budget (per process)', async () => {
    const first = await start({ cache: createRedisCache('redis://127.0.0.1:1'), waitForCache: false });
    const second = await start({ cache: createRedisCache('redis://127.0.0.1:1'), waitForCache: false });
    await repeat(first.app, 20, WRITE);
    assertRejected(await first.app.inject(WRITE), 20);
    assertLimited(await second.app.inject(WRITE), 20, 19);
  });
});
