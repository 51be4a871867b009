// One app for a whole test file, on the file's own database, for tests that read what an app answers
// (documents, headers, the error envelope, health) and share it: built in before(), closed in after().
// Tests that need an app of their own per test use useTestApps (test-apps.ts).
import { after, before } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createTestDeps, type LogCapture } from './app.js';
import { createTestStorage, type TestStorage } from './database.js';

export interface FileAppOptions {
  env?: Record<string, string>;
  logs?: LogCapture;
  /** Extra routes, registered before the app is ready. */
  routes?: (app: FastifyInstance) => void;
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
  let app: FastifyInstance | undefined;
  // Hooks run in the order they are registered: the app closes before its database, opens after it.
  after(async () => {
    await app?.close();
  });
  const file = useFileStorage();
  before(async () => {
    const storage = file.storage;
    app = await buildApp(
      createTestDeps({
        storage: storage.storage,
        ...(options.env ? { env: options.env } : {}),
        ...(options.logs ? { logs: options.logs } : {}),
      }),
    );
    options.routes?.(app);
    await app.ready();
  });
  return {
    get app() {
      return opened(app, 'the file app');
    },
    get storage() {
      return file.storage;
    },
  };
}
