// One test file's world: a database for the file (reset before each test), optionally the fake validator
// for the file, and apps on them that are closed with their caches after each test (or, for a file app,
// after the file). Call useTestApps() at the top of a file, outside describe.
import { after, afterEach, before, beforeEach } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type FakeValidator, startFakeValidator } from '../../dev/validator/index.js';
import type { AppDeps } from '../../src/app-deps.js';
import type { Cache } from '../../src/cache/index.js';
import type { DatabaseConfig } from '../../src/config.js';
import type { Clock } from '../../src/lib/clock.js';
import type { Database, Storage } from '../../src/storage/database.js';
import { createTestApp, createTestCache, type LogCapture } from './app.js';
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
  /** Captures the app's log lines (at trace level) instead of discarding them. */
  logs?: LogCapture;
}

/** The file app's own set-up, for files that read what one app answers (documents, headers, health). */
export interface FileAppOptions {
  /** Extra routes, registered before the app is ready. */
  routes?: (app: FastifyInstance) => void;
  /** Runs once the app is ready, before the first test: the file's rows, requests whose traces it reads. */
  setUp?: (app: FastifyInstance, apps: TestApps) => Promise<unknown>;
}

export interface TestAppsOptions extends TestAppOptions {
  /**
   * The fake validator for the whole file, as `chain`: every app's SOLANA_RPC_URL and SOLANA_WS_URL name it.
   * After each test its outage, latency and prioritization fees are back to none.
   */
  chain?: boolean;
  /**
   * One app with the defaults for the whole file, as `app` and `deps`: started before the first test,
   * closed with its cache after the last. For files whose tests need no app of their own.
   */
  fileApp?: boolean | FileAppOptions;
  /** Empty every table before each test (default true); false keeps what the file's set-up wrote. */
  emptyEachTest?: boolean;
}

export interface TestApps {
  /** The file's storage (PGlite, or PostgreSQL when DATABASE_URL is set) and its Drizzle database. */
  readonly storage: Storage;
  readonly db: Database;
  /** How the file's database was opened (PGlite directory, memory, or the PostgreSQL URL). */
  readonly databaseConfig: DatabaseConfig;
  /** The file's fake validator (with `chain: true`). */
  readonly chain: FakeValidator;
  /** The file's app and its dependencies (with `fileApp: true`). */
  readonly app: FastifyInstance;
  readonly deps: AppDeps;
  /** An app on the file's database, with `defaults` under `options`; closed after the test. */
  start(options?: TestAppOptions): Promise<TestApp>;
  /** Closes an app the test built itself (and its cache) after the test, like those of start. */
  closeAfterTest(started: TestApp): void;
  /** The apps the running test started, in order. */
  readonly running: readonly TestApp[];
}

export function useTestApps(defaults: TestAppsOptions = {}): TestApps {
  const {
    chain: withChain = false,
    fileApp: fileAppOptions = false,
    emptyEachTest = true,
    ...appDefaults
  } = defaults;
  let storage: TestStorage | undefined;
  let chain: FakeValidator | undefined;
  let fileApp: TestApp | undefined;
  let running: TestApp[] = [];

  const opened = (): TestStorage => {
    if (storage === undefined) throw new Error('useTestApps: the database opens in before()');
    return storage;
  };
  const build = async (options: TestAppOptions, routes?: FileAppOptions['routes']): Promise<TestApp> => {
    const clock = options.clock ?? appDefaults.clock;
    const logs = options.logs ?? appDefaults.logs;
    const chainEnv: Record<string, string> = chain
      ? { SOLANA_RPC_URL: chain.rpcUrl, SOLANA_WS_URL: chain.wsUrl }
      : {};
    return createTestApp(
      {
        storage: opened().storage,
        cache: options.cache ?? appDefaults.cache ?? createTestCache(),
        env: { ...chainEnv, ...appDefaults.env, ...options.env },
        ...(clock ? { clock } : {}),
        ...(logs ? { logs } : {}),
      },
      routes,
    );
  };

  before(async () => {
    [storage, chain] = await Promise.all([
      createTestStorage(),
      withChain ? startFakeValidator() : Promise.resolve(undefined),
    ]);
    if (fileAppOptions === false) return;
    const { routes, setUp } = fileAppOptions === true ? {} : fileAppOptions;
    fileApp = await build({}, routes);
    await setUp?.(fileApp.app, apps);
  });
  after(async () => {
    await fileApp?.app.close();
    await fileApp?.deps.cache.close();
    await chain?.close();
    await storage?.close();
  });
  beforeEach(() => (emptyEachTest ? opened().reset() : undefined));
  afterEach(async () => {
    // Apps may share a cache: each is closed once, and never the file app's.
    const caches = new Set(running.map(({ deps }) => deps.cache));
    caches.delete(fileApp?.deps.cache as Cache);
    for (const { app } of running) await app.close();
    for (const cache of caches) await cache.close();
    running = [];
    chain?.setOutage(false);
    chain?.setLatency(0);
    chain?.setPrioritizationFees([]);
  });

  const apps: TestApps = {
    get storage() {
      return opened().storage;
    },
    get db() {
      return opened().storage.db;
    },
    get databaseConfig() {
      return opened().config;
    },
    get chain() {
      if (chain === undefined) throw new Error('useTestApps: the fake validator needs `chain: true`');
      return chain;
    },
    get app() {
      if (fileApp === undefined) throw new Error('useTestApps: the file app needs `fileApp: true`');
      return fileApp.app;
    },
    get deps() {
      if (fileApp === undefined) throw new Error('useTestApps: the file app needs `fileApp: true`');
      return fileApp.deps;
    },
    get running() {
      return running;
    },
    closeAfterTest(started) {
      running.push(started);
    },
    async start(options = {}) {
      const started = await build(options);
      running.push(started);
      return started;
    },
  };
  return apps;
}

/** GET through app.inject: the status, the headers and the parsed JSON body. */
export async function getJson(app: FastifyInstance, url: string) {
  const response = await app.inject(url);
  return { status: response.statusCode, headers: response.headers, body: response.json() };
}
