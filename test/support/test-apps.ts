// One test file's world: a database for the file (reset before each test), and apps on it that are
// closed with their caches after each test. Call useTestApps() at the top of a file, outside describe.
import { after, afterEach, before, beforeEach } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../src/app-deps.js';
import type { Cache } from '../../src/cache/index.js';
import type { Clock } from '../../src/lib/clock.js';
import type { Database, Storage } from '../../src/storage/database.js';
import { createTestApp, createTestCache } from './app.js';
import { createTestStorage, type TestStorage } from './database.js';

export interface TestApp {
  app: FastifyInstance;
  deps: AppDeps;
}

export interface TestAppOptions {
  /** Default: a fresh cache of the kind CI asks for (Redis when REDIS_URL is set, else memory). */
  cache?: Cache;
  env?: Record<string, string>;
  clock?: Clock;
}

export interface TestApps {
  /** The file's storage (PGlite, or PostgreSQL when DATABASE_URL is set) and its Drizzle database. */
  readonly storage: Storage;
  readonly db: Database;
  /** An app on the file's database, with `defaults` under `options`; closed after the test. */
  start(options?: TestAppOptions): Promise<TestApp>;
  /** Closes an app the test built itself (and its cache) after the test, like those of start. */
  closeAfterTest(started: TestApp): void;
  /** The apps the running test started, in order. */
  readonly running: readonly TestApp[];
}

export function useTestApps(defaults: TestAppOptions = {}): TestApps {
  let storage: TestStorage | undefined;
  let running: TestApp[] = [];
  before(async () => {
    storage = await createTestStorage();
  });
  after(async () => {
    await storage?.close();
  });
  beforeEach(() => storage!.reset());
  afterEach(async () => {
    for (const { app, deps } of running) {
      await app.close();
      await deps.cache.close();
    }
    running = [];
  });
  const opened = (): TestStorage => {
    if (storage === undefined) throw new Error('useTestApps: the database opens in before()');
    return storage;
  };
  return {
    get storage() {
      return opened().storage;
    },
    get db() {
      return opened().storage.db;
    },
    get running() {
      return running;
    },
    closeAfterTest(started) {
      running.push(started);
    },
    async start(options = {}) {
      const clock = options.clock ?? defaults.clock;
      const started = await createTestApp({
        storage: opened().storage,
        cache: options.cache ?? defaults.cache ?? createTestCache(),
        env: { ...defaults.env, ...options.env },
        ...(clock ? { clock } : {}),
      });
      running.push(started);
      return started;
    },
  };
}

/** GET through app.inject: the status, the headers and the parsed JSON body. */
export async function getJson(app: FastifyInstance, url: string) {
  const response = await app.inject(url);
  return { status: response.statusCode, headers: response.headers, body: response.json() };
}
