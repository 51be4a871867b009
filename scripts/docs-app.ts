// The app as the documentation generators read it (npm run openapi, npm run docs:limits): default
// settings on an in-memory database, independent of the caller's environment.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { createAppDeps } from '../src/app-deps.js';
import { loadConfig } from '../src/config.js';
import { createDisconnectedChainStatus } from '../src/domain/health/chain-status.js';
import { createDatabase } from '../src/storage/database.js';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Builds the app, waits until it is ready, hands it to `read`, then closes it and its database. */
export async function runWithDocsApp<T>(read: (app: FastifyInstance) => T | Promise<T>): Promise<T> {
  const config = loadConfig({
    DATABASE_URL: 'memory://',
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: 'http://localhost:3000',
  });
  const storage = await createDatabase(config.database);
  const deps = createAppDeps({ config, storage, chainStatus: createDisconnectedChainStatus(config.cluster) });
  const app = await buildApp(deps);
  try {
    await app.ready();
    return await read(app);
  } finally {
    await app.close();
    await storage.close();
  }
}
