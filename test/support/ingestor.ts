// The real ingestor, in process, against the fake validator: start, wait until it caught up, stop.
import { sql } from 'drizzle-orm';
import type { AppDeps } from '../../src/app-deps.js';
import { type IngestorOptions, runIngestor } from '../../src/chain/ingestor.js';
import type { Storage } from '../../src/storage/database.js';
import { waitFor } from './wait.js';

export interface TestIngestor {
  stop(): Promise<void>;
}

export function startTestIngestor(deps: AppDeps, options: IngestorOptions = {}): TestIngestor {
  const controller = new AbortController();
  const task = runIngestor(deps, controller.signal, { heartbeatMs: 100, ...options });
  return {
    async stop() {
      controller.abort();
      await task;
    },
  };
}

/** Waits until every one of these signatures is applied (marked in chain_signatures). */
export async function waitForSignatures(
  storage: Storage,
  signatures: readonly string[],
  timeoutMs = 20_000,
): Promise<void> {
  const wanted = new Set(signatures);
  await waitFor(
    async () => {
      const rows = await storage.rows<{ signature: string }>(sql`select signature from chain_signatures`);
      return rows.filter((r) => wanted.has(r.signature)).length === wanted.size;
    },
    { timeoutMs, intervalMs: 25, message: `${wanted.size} signatures applied` },
  );
}

/** Waits until the ingestor's log subscription is up (its heartbeat says so). */
export async function waitForSubscription(storage: Storage, timeoutMs = 10_000): Promise<void> {
  await waitFor(
    async () => {
      const [row] = await storage.rows<{ status: string }>(
        sql`select status from chain_heartbeats where name = 'ingestor'`,
      );
      return row?.status === 'connected';
    },
    { timeoutMs, message: 'log subscription connected' },
  );
}
