// One app for a whole test file, on the file's own database, for tests that read what an app answers
// (documents, headers, the error envelope, health) and share it: built in before(), closed in after().
// Tests that need an app of their own per test use useTestApps (test-apps.ts).
import { after, before } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { Clock } from '../../src/lib/clock.js';
import { createTestDeps, type LogCapture } from './app.js';
import { createTestStorage, type TestStorage } from './database.js';

export interface FileAppOptions {
  env?: Record<string, string>;
  logs?: LogCapture;
  /** Extra routes, registered before the app is ready. */
  routes?: (app: FastifyInstance) => void;
  clock?: Clock;
  /** Runs once the app is ready, before the first test: the file's rows, requests whose traces it reads. */
  setUp?: (app: FastifyInstance, storage: TestStorage) => Promise<unknown>;
}

export interface FileApp {
  readonly app: FastifyInstance;
  readonly storage: TestStorage;
}

const opened = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new Error(`${what} opens in before()`);
  return value;
};

/** The file's database alone (PGlite, or PostgreSQL when DATABASE_URL is set), never emptied. */
export function useFileStorage(): { readonly storage: TestStorage } {
  let storage: TestStorage | undefined;
  before(async () => {
    storage = await createTestStorage();
  });
  after(async () => {
    await storage?.close();
  });
  return {
    get storage() {
      return opened(storage, 'the file database');
    },
  };
}

/** Registers the file's hooks; call it at the top of a file, outside describe. */
export function useFileApp(options: FileAppOptions = {}): FileApp {
  // One hook each way: node runs a file's top-level hooks side by side, so the order lives inside them.
  let storage: TestStorage | undefined;
  let app: FastifyInstance | undefined;
  before(async () => {
    storage = await createTestStorage();
    app = await buildApp(
      createTestDeps({
        storage: storage.storage,
        ...(options.env ? { env: options.env } : {}),
        ...(options.logs ? { logs: options.logs } : {}),
        ...(options.clock ? { clock: options.clock } : {}),
      }),
    );
    options.routes?.(app);
    await app.ready();
    await options.setUp?.(app, storage);
  });
  after(async () => {
    await app?.close();
    await storage?.close();
  });
  return {
    get app() {
      return opened(app, 'the file app');
    },
    get storage() {
      return opened(storage, 'the file database');
    },
  };
}
