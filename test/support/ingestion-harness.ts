// The ingestion tests' world, over useTestApps: the file's database, a fresh fake validator for each
// test, and the real ingestor on demand (stopped after the test).
import assert from 'node:assert/strict';
import { beforeEach } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import type { FakeValidator } from '../../dev/validator/index.js';
import type { AppDeps } from '../../src/app-deps.js';
import type { IngestorOptions } from '../../src/chain/ingestor.js';
import type { DatabaseConfig } from '../../src/config.js';
import type { Storage } from '../../src/storage/database.js';
import { vaults } from '../../src/storage/schema/index.js';
import type { LogCapture } from './app.js';
import { type RunningIngestor, type TestApps, useTestApps } from './test-apps.js';
import { waitForSubscription } from './wait.js';

export const BASE_URL = 'https://vaultkeeper.test';
export const SOL = 1_000_000_000n;

export interface IngestionHarness {
  /** The world it runs in (apps on the same database and validator, dependencies for other roles). */
  readonly world: TestApps;
  readonly storage: { readonly storage: Storage; readonly config: DatabaseConfig; reset(): Promise<void> };
  readonly fake: FakeValidator;
  readonly deps: AppDeps;
  /** Starts the ingestor (env added to the test config) and waits until its subscription is up. */
  startLive(env?: Record<string, string>): Promise<void>;
  /** Starts the ingestor without waiting for anything (logs: capture its log lines). */
  start(env?: Record<string, string>, options?: IngestorOptions & { logs?: LogCapture }): void;
  stop(): Promise<void>;
  vaultRow(address: string): Promise<typeof vaults.$inferSelect>;
  blockTimeOf(signature: string): Date;
  countOf(table: 'transactions' | 'overrides' | 'chain_events' | 'vaults'): Promise<number>;
}

/** Registers the hooks of the calling test file (useTestApps with a validator per test) and returns the harness. */
export function useIngestionHarness(): IngestionHarness {
  const world = useTestApps({ chain: { eachTest: true }, env: { PUBLIC_BASE_URL: BASE_URL } });
  let deps: AppDeps;
  let ingestor: Promise<RunningIngestor> | undefined;
  beforeEach(() => {
    deps = world.createDeps();
    ingestor = undefined;
  });

  const harness: IngestionHarness = {
    world,
    get storage() {
      return { storage: world.storage, config: world.databaseConfig, reset: () => world.reset() };
    },
    get fake() {
      return world.chain;
    },
    get deps() {
      return deps;
    },
    start(env = {}, options = {}) {
      const { logs, ...ingestorOptions } = options;
      if (Object.keys(env).length > 0 || logs) deps = world.createDeps({ env, ...(logs ? { logs } : {}) });
      ingestor = world.startIngestor({ ...ingestorOptions, deps });
    },
    async startLive(env = {}) {
      harness.start(env);
      await waitForSubscription(world.storage);
    },
    async stop() {
      await (await ingestor)?.stop();
      ingestor = undefined;
    },
    async vaultRow(address) {
      const [row] = await world.db.select().from(vaults).where(eq(vaults.address, address));
      assert.ok(row, `vault ${address} stored`);
      return row;
    },
    blockTimeOf(signature) {
      const entry = world.chain.ledger().find((e) => e.signature === signature);
      assert.ok(entry, `${signature} on the ledger`);
      return new Date(entry.blockTime * 1000);
    },
    async countOf(table) {
      const [row] = await world.storage.rows<{ n: number }>(
        sql`select count(*)::int as n from ${sql.raw(table)}`,
      );
      return Number(row?.n);
    },
  };
  return harness;
}
