// One test file's world, the only set-up a test file calls: a database for the file (reset before each
// test), optionally the fake validator (for the file, or a fresh one for each test), apps on them (inject
// only, or listening on a port of 127.0.0.1) closed with their caches after each test or after the file,
// dependencies for the roles a test runs itself, and the real ingestor. Call useTestApps() at the top of a
// file, outside describe.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, beforeEach } from 'node:test';
import { createSolanaRpcFromTransport } from '@solana/kit';
import type { FastifyInstance } from 'fastify';
import { type FakeValidator, startFakeValidator } from '../../dev/validator/index.js';
import type { AppDeps } from '../../src/app-deps.js';
import type { Cache } from '../../src/cache/index.js';
import type { IngestorOptions } from '../../src/chain/ingestor.js';
import type { DatabaseConfig } from '../../src/config.js';
import type { Clock } from '../../src/lib/clock.js';
import type { Database, Storage } from '../../src/storage/database.js';
import { createTestApp, createTestCache, createTestDeps, type LogCapture } from './app.js';
import { createTestStorage, type TestStorage } from './database.js';
import { startTestIngestor } from './ingestor.js';
import { waitForSubscription } from './wait.js';

export interface TestApp {
  app: FastifyInstance;
  deps: AppDeps;
}

/** An app listening on 127.0.0.1 (a port the system chose): `url` is its origin, http://127.0.0.1:port. */
export interface ListeningTestApp extends TestApp {
  url: string;
  port: number;
}

export interface TestAppOptions {
  /** Default: a fresh cache of the kind CI asks for (Redis when REDIS_URL is set, else memory). */
  cache?: Cache;
  env?: Record<string, string>;
  clock?: Clock;
  /** Captures the app's log lines (at trace level) instead of discarding them. */
  logs?: LogCapture;
  /** Dependencies the test replaces (an RPC client, a chain status…), over the file's. */
  overrides?: Partial<AppDeps>;
  /** Extra routes, registered before the app is ready (paths the API has no reason to offer). */
  routes?: (app: FastifyInstance) => void;
}

export interface ListenOptions extends TestAppOptions {
  /**
   * PUBLIC_BASE_URL names the app's own origin (signed requests, links and the SDK need it): a server
   * opens on a free port first and hands its requests to the app.
   */
  ownBaseUrl?: boolean;
}

/** The file app's own set-up, for files that read what one app answers (documents, headers, health). */
export interface FileAppOptions extends TestAppOptions {
  /** Runs once the app is ready, before the first test: the file's rows, requests whose traces it reads. */
  setUp?: (app: FastifyInstance, apps: TestApps) => Promise<unknown>;
}

export interface ChainOptions {
  /** A fresh validator (empty ledger) for each test, closed after it; default one for the file. */
  eachTest?: boolean;
  /** The validator's clock (unix seconds), set when it starts. */
  time?: number;
  /** The apps' RPC calls reach the validator in process, not over HTTP (their subscriptions still do). */
  inProcessRpc?: boolean;
}

export interface TestAppsOptions extends TestAppOptions {
  /**
   * The fake validator, as `chain`: every app's SOLANA_RPC_URL and SOLANA_WS_URL name it. One for the
   * file (`true`; after each test its outage, latency and prioritization fees are back to none) or, with
   * `{ eachTest: true }`, a fresh one for each test.
   */
  chain?: boolean | ChainOptions;
  /**
   * One app with the defaults for the whole file, as `app` and `deps`: started before the first test,
   * closed with its cache after the last. For files whose tests need no app of their own.
   */
  fileApp?: boolean | FileAppOptions;
  /** Empty every table before each test (default true); false keeps what the file's set-up wrote. */
  emptyEachTest?: boolean;
  /**
   * Open the file's database (default true); false for files whose services run as processes with a
   * database of their own and that need only the validator here.
   */
  database?: boolean;
}

export interface TestIngestorOptions extends IngestorOptions {
  /** The dependencies it runs on; default those of `createDeps()` with the file's defaults. */
  deps?: AppDeps;
  /** Resolve once its log subscription is up (its heartbeat says so). */
  live?: boolean;
}

export interface RunningIngestor {
  readonly deps: AppDeps;
  /** Stops it now (it is stopped after the test anyway). */
  stop(): Promise<void>;
}

export interface TestApps {
  /** The file's storage (PGlite, or PostgreSQL when DATABASE_URL is set) and its Drizzle database. */
  readonly storage: Storage;
  readonly db: Database;
  /** How the file's database was opened (PGlite directory, memory, or the PostgreSQL URL). */
  readonly databaseConfig: DatabaseConfig;
  /** The fake validator (with `chain`): the file's, or the running test's with `eachTest`. */
  readonly chain: FakeValidator;
  /** The file's app and its dependencies (with `fileApp: true`). */
  readonly app: FastifyInstance;
  readonly deps: AppDeps;
  /** An app on the file's database, with `defaults` under `options`; closed after the test. */
  start(options?: TestAppOptions): Promise<TestApp>;
  /** Like start, and listening on a free port of 127.0.0.1; closed after the test. */
  listen(options?: ListenOptions): Promise<ListeningTestApp>;
  /** An app for the rest of the file (call it in a `before` hook); closed after the last test. */
  startForFile(options?: FileAppOptions): Promise<TestApp>;
  /** Like startForFile, and listening on a free port of 127.0.0.1. */
  listenForFile(options?: ListenOptions): Promise<ListeningTestApp>;
  /**
   * A server on a free port of 127.0.0.1 for an app the test builds itself once it knows the origin
   * (on the dependencies of an ingestor it started with that PUBLIC_BASE_URL); closed after the test.
   */
  openOrigin(): Promise<TestOrigin>;
  /** The dependencies of a role the test runs itself (a worker, a job), in a test: its cache closed after it. */
  createDeps(options?: TestAppOptions): AppDeps;
  /** The real ingestor in this process, on the file's database and chain; stopped after the test. */
  startIngestor(options?: TestIngestorOptions): Promise<RunningIngestor>;
  /** Another empty test database (of the file's kind), closed after the test. */
  openDatabase(): Promise<Storage>;
  /** Empties every table now. */
  reset(): Promise<void>;
  /** Closes an app the test built itself (and its cache) after the test, like those of start. */
  closeAfterTest(started: TestApp): void;
  /** The apps the running test started, in order. */
  readonly running: readonly TestApp[];
}

/** What a test (or the file) started, stopped in reverse kind order: ingestors, apps, caches, databases. */
interface Started {
  ingestors: RunningIngestor[];
  apps: TestApp[];
  /** Servers in front of apps (ownBaseUrl), closed after them. */
  servers: Server[];
  caches: Set<Cache>;
  databases: TestStorage[];
}

const nothingStarted = (): Started => ({
  ingestors: [],
  apps: [],
  servers: [],
  caches: new Set(),
  databases: [],
});

/** A server on a free port of 127.0.0.1 whose origin is known before the app it hands requests to exists. */
export interface TestOrigin {
  /** http://127.0.0.1:port, for PUBLIC_BASE_URL. */
  readonly url: string;
  readonly port: number;
  /**
   * Hands the server's requests to `started` from now on (503 before), and closes the app after the
   * test with the server; `intercept` sees each request first and answers it itself by returning true.
   */
  serve(started: TestApp, intercept?: (req: IncomingMessage, res: ServerResponse) => boolean): void;
}

async function openOrigin(started: Started): Promise<TestOrigin> {
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.writeHead(503).end();
  };
  const server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  started.servers.push(server);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    serve(app, intercept) {
      started.apps.push(app);
      handle = (req, res) => {
        if (intercept?.(req, res)) return;
        app.app.server.emit('request', req, res);
      };
    },
  };
}

/** An app listening on 127.0.0.1 (or behind an origin opened first, with `ownBaseUrl`); `started` records both. */
async function listening(
  build: (options: TestAppOptions) => Promise<TestApp>,
  { ownBaseUrl = false, ...options }: ListenOptions,
  started: Started,
): Promise<ListeningTestApp> {
  if (!ownBaseUrl) {
    const app = await build(options);
    started.apps.push(app);
    await app.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.app.server.address() as AddressInfo;
    return { ...app, port, url: `http://127.0.0.1:${port}` };
  }
  const origin = await openOrigin(started);
  const app = await build({ ...options, env: { PUBLIC_BASE_URL: origin.url, ...options.env } });
  origin.serve(app);
  return { ...app, port: origin.port, url: origin.url };
}

async function stopAll(started: Started, keep: ReadonlySet<Cache> = new Set()): Promise<void> {
  for (const ingestor of started.ingestors) await ingestor.stop();
  // Apps may share a cache: each is closed once.
  for (const { app, deps } of started.apps) {
    await app.close();
    started.caches.add(deps.cache);
  }
  for (const server of started.servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  for (const cache of started.caches) if (!keep.has(cache)) await cache.close();
  for (const database of started.databases) await database.close();
}

function chainOptionsOf(chain: TestAppsOptions['chain']): ChainOptions | undefined {
  if (chain === undefined || chain === false) return undefined;
  return chain === true ? {} : chain;
}

export function useTestApps(defaults: TestAppsOptions = {}): TestApps {
  const {
    chain: chainOption,
    fileApp: fileAppOptions = false,
    emptyEachTest = true,
    database: withDatabase = true,
    ...appDefaults
  } = defaults;
  const chainOptions = chainOptionsOf(chainOption);
  if (chainOptions?.eachTest && fileAppOptions !== false)
    throw new Error('useTestApps: a file app needs the file’s chain, not one for each test');
  /** Settles once the database (and the file's validator) are open; set when the file's hooks start. */
  let opening: Promise<void> | undefined;
  let opened: TestStorage | undefined;
  let chain: FakeValidator | undefined;
  let fileApp: TestApp | undefined;
  const forFile = nothingStarted();
  let forTest = nothingStarted();

  const database = (): TestStorage => {
    if (opened === undefined)
      throw new Error(
        withDatabase
          ? 'useTestApps: the database opens in before()'
          : 'useTestApps: this file has `database: false`',
      );
    return opened;
  };
  const startChain = async () => {
    if (chainOptions === undefined) return undefined;
    const started = await startFakeValidator();
    if (chainOptions.time !== undefined) started.setTime(chainOptions.time);
    return started;
  };
  const depsOptions = (options: TestAppOptions, storage: Storage) => {
    const chainEnv: Record<string, string> = chain
      ? { SOLANA_RPC_URL: chain.rpcUrl, SOLANA_WS_URL: chain.wsUrl }
      : {};
    const chainRpc =
      chain && chainOptions?.inProcessRpc ? { rpc: createSolanaRpcFromTransport(chain.transport) } : {};
    const clock = options.clock ?? appDefaults.clock;
    const logs = options.logs ?? appDefaults.logs;
    return {
      storage,
      cache: options.cache ?? appDefaults.cache ?? createTestCache(),
      env: { ...chainEnv, ...appDefaults.env, ...options.env },
      overrides: { ...chainRpc, ...appDefaults.overrides, ...options.overrides },
      ...(clock ? { clock } : {}),
      ...(logs ? { logs } : {}),
    };
  };
  const build = async ({ routes, ...options }: TestAppOptions): Promise<TestApp> => {
    // A file's top-level before hooks run side by side: one may start an app while the world still opens.
    if (opening === undefined) throw new Error('useTestApps: apps start in hooks and tests');
    await opening;
    const deps = depsOptions(options, database().storage);
    try {
      return await createTestApp(deps, routes);
    } catch (error) {
      // A start refused (a test may expect that) leaves no open cache behind: a Redis one would keep
      // the file's process alive after its last test.
      if (options.cache === undefined && appDefaults.cache === undefined) await deps.cache.close();
      throw error;
    }
  };

  before(async () => {
    opening = Promise.all([
      withDatabase ? createTestStorage() : undefined,
      chainOptions?.eachTest ? undefined : startChain(),
    ]).then(([storage, started]) => {
      [opened, chain] = [storage, started];
    });
    await opening;
    if (fileAppOptions === false) return;
    const { setUp, ...options } = fileAppOptions === true ? {} : fileAppOptions;
    fileApp = await build(options);
    forFile.apps.push(fileApp);
    await setUp?.(fileApp.app, apps);
  });
  after(async () => {
    if (appDefaults.cache) forFile.caches.add(appDefaults.cache);
    await stopAll(forFile);
    await chain?.close();
    await opened?.close();
  });
  beforeEach(async () => {
    await Promise.all([
      emptyEachTest && withDatabase ? database().reset() : undefined,
      chainOptions?.eachTest ? startChain().then((started) => (chain = started)) : undefined,
    ]);
  });
  afterEach(async () => {
    const started = forTest;
    forTest = nothingStarted();
    // Never the file's cache or those of the file's apps, which outlive the test.
    const kept = new Set([appDefaults.cache, ...forFile.apps.map(({ deps }) => deps.cache)]);
    await stopAll(started, kept as Set<Cache>);
    if (chainOptions?.eachTest) {
      await chain?.close();
      chain = undefined;
      return;
    }
    chain?.setOutage(false);
    chain?.setLatency(0);
    chain?.setPrioritizationFees([]);
  });

  const apps: TestApps = {
    get storage() {
      return database().storage;
    },
    get db() {
      return database().storage.db;
    },
    get databaseConfig() {
      return database().config;
    },
    get chain() {
      if (chain === undefined) throw new Error('useTestApps: the fake validator needs `chain`');
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
      return forTest.apps;
    },
    closeAfterTest(started) {
      forTest.apps.push(started);
    },
    async start(options = {}) {
      const started = await build(options);
      forTest.apps.push(started);
      return started;
    },
    listen: (options = {}) => listening((each) => build(each), options, forTest),
    listenForFile: (options = {}) => listening((each) => build(each), options, forFile),
    openOrigin: () => openOrigin(forTest),
    async startForFile({ setUp, ...options } = {}) {
      const started = await build(options);
      forFile.apps.push(started);
      await setUp?.(started.app, apps);
      return started;
    },
    createDeps(options = {}) {
      const deps = createTestDeps(depsOptions(options, database().storage));
      forTest.caches.add(deps.cache);
      return deps;
    },
    async startIngestor({ deps = apps.createDeps(), live = false, ...options } = {}) {
      const ingestor = { deps, ...startTestIngestor(deps, options) };
      let stopped: Promise<void> | undefined;
      const running: RunningIngestor = {
        deps,
        stop: () => {
          stopped ??= ingestor.stop();
          return stopped;
        },
      };
      forTest.ingestors.push(running);
      if (live) await waitForSubscription(deps.storage);
      return running;
    },
    async openDatabase() {
      const another = await createTestStorage();
      forTest.databases.push(another);
      return another.storage;
    },
    reset: () => database().reset(),
  };
  return apps;
}

/** GET through app.inject: the status, the headers and the parsed JSON body. */
export async function getJson(app: FastifyInstance, url: string) {
  const response = await app.inject(url);
  return { status: response.statusCode, headers: response.headers, body: response.json() };
}
