// SIGKILL during ingestion sends no budget alert twice and loses none: a real ingestor process is
// killed while transfers stream in, restarted, killed again; each threshold is crossed exactly once.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Address } from '@solana/kit';
import { sql } from 'drizzle-orm';
import { startFakeValidator } from '../../dev/validator/index.js';
import { createDatabase, type Storage } from '../../src/storage/database.js';
import { createTestStorage, type TestStorage } from '../support/database.js';
import { type ServiceProcess, startService } from '../support/service-process.js';
import { waitFor } from '../support/wait.js';

const SOL = 1_000_000_000n;
const VAULTS = 3;
const ROUNDS = 4;
const PER_ROUND = 5;
const usePostgres = /^postgres(ql)?:/.test(process.env.DATABASE_URL ?? '');

let shared: TestStorage | null = null;
const dataDir = mkdtempSync(join(tmpdir(), 'vk-alerts-crash-'));
after(async () => {
  await shared?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The service applied signatures (live, or by a backfill) since its output line `from`. */
function appliedSince(service: ServiceProcess, from: number): boolean {
  return service.output.slice(from).some((text) => {
    if (!text.startsWith('{')) return false;
    const line = JSON.parse(text) as { msg?: string; applied?: number };
    return (
      line.msg === 'applied live signatures' || (line.msg === 'backfill done' && (line.applied ?? 0) > 0)
    );
  });
}

test('budget thresholds crossed while the ingestor is SIGKILLed and restarted are each sent exactly once', async () => {
  const fake = await startFakeValidator();
  if (usePostgres) shared = await createTestStorage();
  const databaseEnv: Record<string, string> =
    shared !== null && shared.config.kind === 'postgres'
      ? { DATABASE_URL: shared.config.url }
      : { DATA_DIR: dataDir };
  const env = {
    ROLES: 'ingestor',
    ...databaseEnv,
    SOLANA_RPC_URL: fake.rpcUrl,
    SOLANA_WS_URL: fake.wsUrl,
    LOG_LEVEL: 'debug',
  };
  try {
    const vaults: Address[] = [];
    for (let i = 0; i < VAULTS; i++) {
      // Default settings: 80 % and 100 %. 20 transfers of 5 SOL reach 80 at the 16th and 100 at the 20th.
      const created = await fake.createVault({ dailyLimit: 100n * SOL });
      await fake.deposit(created.vault, 1000n * SOL);
      vaults.push(created.vault);
    }
    for (let round = 0; round < ROUNDS; round++) {
      const service = await startService(env, { waitForListen: false });
      try {
        await waitFor(() => service.output.some((l) => l.includes('"msg":"ingestor lock held')), {
          timeoutMs: 90_000,
          message: 'the ingestor holds the lock',
        });
        const from = service.output.length;
        for (let i = 0; i < PER_ROUND; i++) {
          for (const vault of vaults) {
            const { err } = await fake.execute(vault, { amount: 5n * SOL, enforcePolicy: true });
            assert.equal(err, null);
          }
          // Killed as soon as this round's transfers begin to be applied; the rest land while it is down.
          if (i === 1) {
            await waitFor(() => appliedSince(service, from), {
              timeoutMs: 60_000,
              message: 'signatures applied',
            });
            await service.stop('SIGKILL');
          }
        }
      } finally {
        await service.stop('SIGKILL');
      }
    }
    // A last start catches up by backfill, then stops cleanly.
    const last = await startService(env, { waitForListen: false });
    try {
      await waitFor(() => last.output.some((l) => l.includes('"msg":"backfill done"')), {
        timeoutMs: 90_000,
        message: 'the backfill after the last restart',
      });
    } finally {
      await last.stop('SIGTERM');
    }

    const storage: Storage = shared?.storage ?? (await createDatabase({ kind: 'pglite', dataDir }));
    try {
      const [applied] = await storage.rows<{ n: number }>(
        sql`select count(*)::int as n from transactions where status = 'executed'`,
      );
      assert.equal(applied?.n, VAULTS * ROUNDS * PER_ROUND, 'every transfer was ingested');
      const alerts = await storage.rows<{ vault: string; threshold: number; n: number }>(sql`
        select vault_address as vault, (data->>'threshold')::int as threshold, count(*)::int as n
        from alert_events where name = 'budget.threshold' group by 1, 2`);
      assert.deepEqual(
        alerts.map((a) => [a.vault, a.threshold, a.n]).sort(),
        vaults
          .flatMap((v) => [
            [v, 80, 1],
            [v, 100, 1],
          ])
          .sort(),
      );
    } finally {
      if (shared === null) await storage.close();
    }
  } finally {
    await fake.close();
  }
});
