// One database per test file, a fresh fake validator per test, and the real ingestor on demand.
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { type FakeValidator, startFakeValidator } from '../../dev/validator/index.js';
import type { AppDeps } from '../../src/app-deps.js';
import type { IngestorOptions } from '../../src/chain/ingestor.js';
import { vaults } from '../../src/storage/schema/index.js';
import { createTestDeps, type LogCapture } from './app.js';
import { createTestStorage, type TestStorage } from './database.js';
import { startTestIngestor, type TestIngestor, waitForSubscription } from './ingestor.js';

export const BASE_URL = 'https://vaultkeeper.test';
export const SOL = 1_000_000_000n;

export interface IngestionHarness {
  readonly storage: TestStorage;
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

/** Registers the hooks of the calling test file and returns the harness they keep up to date. */
export function useIngestionHarness(): IngestionHarness {
  let storage: TestStorage;
  let fake: FakeValidator;
  let deps: AppDeps;
  let ingestor: TestIngestor | undefined;
  const depsFor = (env: Record<string, string> = {}, logs?: LogCapture) =>
    createTestDeps({
      storage: storage.storage,
      env: { SOLANA_RPC_URL: fake.rpcUrl, SOLANA_WS_URL: fake.wsUrl, PUBLIC_BASE_URL: BASE_URL, ...env },
      ...(logs ? { logs } : {}),
    });

  before(async () => {
    storage = await createTestStorage();
  });
  after(async () => {
    await storage.close();
  });
  beforeEach(async () => {
    await storage.reset();
    fake = await startFakeValidator();
    deps = depsFor();
  });
  afterEach(async () => {
    await ingestor?.stop();
    ingestor = undefined;
    await fake.close();
  });

  const harness: IngestionHarness = {
    get storage() {
      return storage;
    },
    get fake() {
      return fake;
    },
    get deps() {
      return deps;
    },
    start(env = {}, options = {}) {
      const { logs, ...ingestorOptions } = options;
      if (Object.keys(env).length > 0 || logs) deps = depsFor(env, logs);
      ingestor = startTestIngestor(deps, ingestorOptions);
    },
    async startLive(env = {}) {
      harness.start(env);
      await waitForSubscription(storage.storage);
    },
    async stop() {
      await ingestor?.stop();
      ingestor = undefined;
    },
    async vaultRow(address) {
      const [row] = await storage.storage.db.select().from(vaults).where(eq(vaults.address, address));
      assert.ok(row, `vault ${address} stored`);
      return row;
    },
    blockTimeOf(signature) {
      const entry = fake.ledger().find((e) => e.signature === signature);
      assert.ok(entry, `${signature} on the ledger`);
      return new Date(entry.blockTime * 1000);
    },
    async countOf(table) {
      const [row] = await storage.storage.rows<{ n: number }>(
        sql`select count(*)::int as n from ${sql.raw(table)}`,
      );
      return Number(row?.n);
    },
  };
  return harness;
}
