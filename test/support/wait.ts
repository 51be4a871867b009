import { sql } from 'drizzle-orm';
import type { Storage } from '../../src/storage/database.js';
import { loadFactor } from './load.js';

/**
 * Polls until `check` returns a truthy value or the deadline passes; never a fixed sleep. The deadline
 * is a bound on a condition, not a speed target: it grows with the machine's load (as start-up
 * deadlines do), so a run beside other work waits longer instead of failing.
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  options: { timeoutMs?: number; intervalMs?: number; message?: string } = {},
): Promise<NonNullable<T>> {
  const timeoutMs = Math.round((options.timeoutMs ?? 10_000) * loadFactor());
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`${options.message ?? 'condition not met'} within ${timeoutMs} ms${reason}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 20));
  }
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
