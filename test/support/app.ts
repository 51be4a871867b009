// Test dependencies: the real database (PGlite or PostgreSQL) and cache (memory or Redis), quiet logs.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type AppDeps, createAppDeps } from '../../src/app-deps.js';
import { type Cache, createMemoryCache, createRedisCache } from '../../src/cache/index.js';
import { rpcUrlReplacements } from '../../src/chain/rpc-endpoints.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { Clock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/lib/logger.js';
import type { Storage } from '../../src/storage/database.js';

/** Log lines a test can read (e.g. to prove secrets never reach them). */
export interface LogCapture {
  readonly lines: string[];
  readonly stream: Writable;
}

export function createLogCapture(): LogCapture {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(
        ...String(chunk)
          .split('\n')
          .filter((l) => l !== ''),
      );
      done();
    },
  });
  return { lines, stream };
}

/** A cache of the kind CI asks for: Redis (isolated key prefix) when REDIS_URL is set, else memory. */
export function createTestCache(prefix = `vk-test-${randomBytes(4).toString('hex')}:`): Cache {
  const url = process.env.REDIS_URL;
  return url ? createRedisCache(url, { prefix }) : createMemoryCache();
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ DATABASE_URL: 'memory://', LOG_LEVEL: 'silent', SOLANA_CLUSTER: 'devnet', ...env });
}

export interface TestDepsOptions {
  storage: Storage;
  env?: Record<string, string>;
  cache?: Cache;
  clock?: Clock;
  logs?: LogCapture;
  overrides?: Partial<AppDeps>;
}

export function createTestDeps(options: TestDepsOptions): AppDeps {
  const config = testConfig(options.env);
  const logger = createLogger({
    level: options.logs ? 'trace' : 'silent',
    ...(options.logs ? { destination: options.logs.stream } : {}),
    // As the service does: RPC URLs' paths and queries (API keys) never reach a line.
    replacements: rpcUrlReplacements(config.rpcEndpoints),
  });
  return createAppDeps({
    config,
    storage: options.storage,
    logger,
    ...(options.cache ? { cache: options.cache } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...options.overrides,
  });
}

/** An app on test dependencies; `routes` adds routes before it is ready. */
export async function createTestApp(
  options: TestDepsOptions,
  routes?: (app: FastifyInstance) => void,
): Promise<{ app: FastifyInstance; deps: AppDeps }> {
  const deps = createTestDeps(options);
  const app = await buildApp(deps);
  routes?.(app);
  await app.ready();
  return { app, deps };
}
