// Cost of the rate limiter per request: the same cheap limited route (the Blink icon) with limits off,
// with in-process counters, and with Redis counters, from 10 000 client addresses (X-Forwarded-For).
// Measured in CPU time of this process (app.inject, no sockets), which other load on a shared machine
// disturbs far less than wall-clock throughput.
//   npx tsx bench/rate-limit.bench.ts [--requests 20000]
// Redis runs only when REDIS_URL is reachable (default redis://127.0.0.1:6379).
// Then the in-process counters alone under churn: a steady stream of new addresses (20 000 a second of
// the mocked clock) through a store that is full, as on a busy public service; each spend must stay
// O(1) however many addresses came before.
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { type Cache, createMemoryCache, createRedisCache } from '../src/cache/index.js';
import { createLocalCounters } from '../src/http/plugins/rate-limit-local-counters.js';
import { createTestDeps } from '../test/support/app.js';
import { createTestStorage } from '../test/support/database.js';

const { values: args } = parseArgs({ options: { requests: { type: 'string', default: '20000' } } });
const REQUESTS = Number(args.requests);
const CLIENTS = 10_000;
const CONCURRENCY = 20;
// Informal targets: CPU the limiter adds to one request (µs); Redis includes the client's two commands.
const TARGET_EXTRA_US = { memory: 25, redis: 150 } as const;
/** Informal target: CPU of one spend of the in-process counters under churn, worst second (µs; a
 * second carries whatever garbage collection falls in it). */
const TARGET_CHURN_SPEND_US = 10;

delete process.env.DATABASE_URL;
const storage = await createTestStorage();

async function cpuMicrosPerRequest(
  label: string,
  env: Record<string, string>,
  cache: Cache,
): Promise<number> {
  const app = await buildApp(
    createTestDeps({ storage: storage.storage, cache, env: { TRUST_PROXY: 'true', ...env } }),
  );
  await app.ready();
  let sent = 0;
  let failed = 0;
  const worker = async () => {
    while (sent < REQUESTS) {
      const i = sent++ % CLIENTS;
      const response = await app.inject({
        url: '/api/actions/icon.svg',
        headers: { 'x-forwarded-for': `10.0.${i >> 8}.${i & 255}` },
      });
      if (response.statusCode !== 200) failed += 1;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker)); // warm-up
  sent = 0;
  const started = process.cpuUsage();
  const wallStarted = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const cpu = process.cpuUsage(started);
  const wallMs = performance.now() - wallStarted;
  await app.close();
  const perRequest = (cpu.user + cpu.system) / REQUESTS;
  console.log(
    `${label.padEnd(22)} ${perRequest.toFixed(1).padStart(7)} µs CPU/request   ${Math.round((REQUESTS / wallMs) * 1000)} req/s wall   non-200 ${failed}`,
  );
  return perRequest;
}

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const redis = createRedisCache(redisUrl, { prefix: `vk-bench-${process.pid}:` });
const deadline = Date.now() + 3_000;
while (!(await redis.ping()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
const withRedis = await redis.ping();
if (!withRedis) console.log(`Redis at ${redisUrl} unreachable: skipped`);

// One unmeasured round warms the JIT; then rounds alternate so drift hits every configuration alike.
const ROUNDS = 3;
const runs: Record<'off' | 'memory' | 'redis', number[]> = { off: [], memory: [], redis: [] };
for (let round = 0; round <= ROUNDS; round += 1) {
  const keep = (key: keyof typeof runs, value: number) => round > 0 && runs[key].push(value);
  keep('off', await cpuMicrosPerRequest('limits off', { RATE_LIMIT_ENABLED: 'false' }, createMemoryCache()));
  keep('memory', await cpuMicrosPerRequest('in-process counters', {}, createMemoryCache()));
  if (withRedis) keep('redis', await cpuMicrosPerRequest('Redis counters', {}, redis));
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const off = median(runs.off);
console.log(`\nmedian of ${ROUNDS} rounds: limits off ${off.toFixed(1)} µs CPU/request`);
console.log(
  `in-process limiter: +${(median(runs.memory) - off).toFixed(1)} µs/request (target ≤ ${TARGET_EXTRA_US.memory})`,
);
if (withRedis) {
  console.log(
    `Redis limiter: +${(median(runs.redis) - off).toFixed(1)} µs/request (target ≤ ${TARGET_EXTRA_US.redis})`,
  );
  await redis.client.eval(
    "for _, k in ipairs(redis.call('keys', ARGV[1])) do redis.call('del', k) end",
    0,
    `${redis.prefix}*`,
  );
}
await redis.close();
await storage.close();

/**
 * µs of CPU per spend while new addresses keep arriving, at the worst second of `seconds` (a clock
 * advanced by hand, so the store is full within seconds and the windows roll over as in an hour).
 */
function churnSpendMicros(seconds: number, newClientsPerSecond: number): number {
  const counters = createLocalCounters();
  const realNow = Date.now;
  let clock = realNow();
  Date.now = () => clock;
  let worst = 0;
  try {
    let client = 0;
    for (let second = 0; second < seconds; second += 1) {
      const started = process.cpuUsage();
      for (let i = 0; i < newClientsPerSecond; i += 1) {
        clock += 1_000 / newClientsPerSecond;
        client += 1;
        counters.spend(0, `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client & 255}`, 60_000);
      }
      const cpu = process.cpuUsage(started);
      if (second >= 2) worst = Math.max(worst, (cpu.user + cpu.system) / newClientsPerSecond);
    }
  } finally {
    Date.now = realNow;
  }
  return worst;
}
const churn = churnSpendMicros(40, 20_000);
console.log(
  `in-process counters under churn (20 000 new addresses/s, store full): worst second ${churn.toFixed(2)} µs/spend (target ≤ ${TARGET_CHURN_SPEND_US})`,
);
