import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { sql } from 'drizzle-orm';
import { createIngestorLock } from '../../src/chain/ingestor-lock.js';
import { createLogger } from '../../src/lib/logger.js';
import { createDatabase, type Storage } from '../../src/storage/database.js';
import { createLogCapture } from '../support/app.js';
import { useIngestionHarness } from '../support/ingestion-harness.js';
import { type ServiceProcess, startService } from '../support/service-process.js';
import { waitFor, waitForSignatures } from '../support/wait.js';

const children: ServiceProcess[] = [];
// Service processes a test started, killed after it.
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.stop('SIGKILL')));
});
const h = useIngestionHarness();

const programSignatures = () => h.fake.ledger().map((entry) => entry.signature);

/** What the ledger says must be stored: every program signature once, every transfer attempt once. */
async function assertMatchesLedger(db: Storage): Promise<void> {
  const ledger = h.fake.ledger();
  const expected = new Set(ledger.map((e) => e.signature));
  const applied = new Set(
    (await db.rows<{ signature: string }>(sql`select signature from chain_signatures`)).map(
      (r) => r.signature,
    ),
  );
  const missing = [...expected].filter((s) => !applied.has(s));
  const unknown = [...applied].filter((s) => !expected.has(s));
  assert.deepEqual({ missing, unknown }, { missing: [], unknown: [] }, 'every program signature applied');
  const executed = ledger
    .filter((e) => e.err === null)
    .flatMap((e) => e.events.filter((v) => v.name === 'TransactionExecuted'));
  const blocked = ledger.flatMap((e) => e.events.filter((v) => v.name === 'TransactionBlocked'));
  const [counts] = await db.rows<{
    executed: number;
    blocked: number;
    distinct_keys: number;
    total: number;
  }>(sql`
    select count(*) filter (where status = 'executed')::int as executed,
           count(*) filter (where status = 'blocked')::int as blocked,
           count(distinct (signature, event_index))::int as distinct_keys,
           count(*)::int as total
    from transactions`);
  assert.equal(counts?.executed, executed.length, 'executed transfers');
  assert.equal(counts?.blocked, blocked.length, 'blocked attempts');
  assert.equal(counts?.distinct_keys, counts?.total, 'no transfer stored twice');
  const [vault] = await db.rows<{ transaction_count: number; executed_count: number; blocked_count: number }>(
    sql`select transaction_count, executed_count, blocked_count from vaults`,
  );
  assert.equal(Number(vault?.transaction_count), executed.length + blocked.length, 'vault counter');
  assert.equal(Number(vault?.executed_count), executed.length);
  assert.equal(Number(vault?.blocked_count), blocked.length);
}

/** A burst in small steps that yield to timers, so a kill can land anywhere inside it. */
async function burstSlowly(vault: Address, count: number): Promise<void> {
  for (let done = 0; done < count; done += 10) {
    await h.fake.burst(10, { vault, blockEvery: 7, perSlot: 2 });
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

describe('ingestion under failure', () => {
  test('sockets dropped in the middle of a 2 000-transaction burst: every transaction ingested once', async () => {
    const logs = createLogCapture();
    const subscribed = () => logs.lines.filter((l) => l.includes('"msg":"log subscription up on ')).length;
    h.start({}, { logs });
    await waitFor(() => subscribed() === 1, { message: 'subscribed' });
    const { vault } = await h.fake.burst(500, { blockEvery: 10, perSlot: 3 });
    for (let drop = 1; drop <= 3; drop++) {
      h.fake.dropSockets(); // notifications still buffered on the dropped socket are lost with it
      await h.fake.burst(500, { vault, blockEvery: 10, perSlot: 3 });
      await waitFor(() => subscribed() >= drop + 1, { message: `resubscribed after drop ${drop}` });
    }
    assert.equal(h.fake.ledger().filter((e) => e.events.length > 0).length, 2_001);
    await waitForSignatures(h.storage.storage, programSignatures(), 60_000);
    await assertMatchesLedger(h.storage.storage);
    const metrics = await h.deps.metrics.registry.metrics();
    const reconnects = Number(/vaultkeeper_ingestion_reconnects_total (\d+)/.exec(metrics)?.[1]);
    assert.ok(reconnects >= 3, `a reconnect after every drop (${reconnects})`);
  });

  test('killed with SIGKILL at random moments during a burst and restarted: nothing lost, nothing doubled', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vk-ingest-'));
    const env: Record<string, string> = {
      ROLES: 'ingestor',
      LOG_LEVEL: 'debug',
      SOLANA_RPC_URL: h.fake.rpcUrl,
      SOLANA_WS_URL: h.fake.wsUrl,
      BACKFILL_INTERVAL_SECONDS: '1',
      ...(h.storage.config.kind === 'postgres'
        ? { DATABASE_URL: h.storage.config.url }
        : { DATA_DIR: dataDir }),
    };
    const start = async () => {
      const child = await startService(env, { waitForListen: false });
      children.push(child);
      await waitFor(() => child.output.some((l) => l.includes('log subscription up')), {
        timeoutMs: 60_000,
        message: 'child ingesting',
      });
      return child;
    };
    try {
      let child = await start();
      const { vault } = await h.fake.burst(100, { blockEvery: 7 });
      for (let round = 0; round < 4; round++) {
        // A random moment of the burst: once the ledger has grown by a random number of transactions.
        const target = h.fake.ledger().length + 30 + Math.floor(Math.random() * 240);
        const chunk = burstSlowly(vault, 300);
        await waitFor(() => h.fake.ledger().length >= target, { timeoutMs: 30_000 });
        await child.stop('SIGKILL');
        await chunk;
        child = await start();
      }
      await h.fake.burst(300, { vault, blockEvery: 7, perSlot: 2 });
      // The second backfill to finish from now started after the burst ended: then the child has it all.
      const seen = child.output.length;
      const backfills = () => child.output.slice(seen).filter((l) => l.includes('"msg":"backfill done"'));
      await waitFor(() => backfills().length >= 2, {
        timeoutMs: 60_000,
        message: 'caught up',
      });
      const { code } = await child.stop('SIGTERM');
      assert.equal(code, 0);
      const db =
        h.storage.config.kind === 'postgres'
          ? h.storage.storage
          : await createDatabase({ kind: 'pglite', dataDir });
      try {
        await assertMatchesLedger(db);
      } finally {
        if (db !== h.storage.storage) await db.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('on PGlite the one process holds the ingestor lock, at once, alone', async (t) => {
    if (h.storage.config.kind === 'postgres') {
      t.skip('PostgreSQL run: the next test runs two ingestors against each other');
      return;
    }
    // PGlite is one process's embedded database: that process holds the lock, at once, alone.
    const lock = createIngestorLock({
      storage: h.storage.storage,
      logger: createLogger({ level: 'silent' }),
    });
    assert.equal(await lock.acquire(new AbortController().signal), true);
    await h.storage.storage.db.transaction((tx) => lock.fence(tx));
    await lock.release();
  });

  test('only one ingestor is active; when it dies another takes over within seconds', async (t) => {
    if (h.storage.config.kind !== 'postgres') {
      t.skip('PGlite run: one process holds an embedded database (the previous test checks its lock)');
      return;
    }
    const env = {
      ROLES: 'ingestor',
      DATABASE_URL: h.storage.config.url,
      SOLANA_RPC_URL: h.fake.rpcUrl,
      SOLANA_WS_URL: h.fake.wsUrl,
    };
    const [a, b] = await Promise.all([
      startService(env, { waitForListen: false }),
      startService(env, { waitForListen: false }),
    ]);
    children.push(a, b);
    const holder = async () => {
      const [row] = await h.storage.storage.rows<{ instance: string; status: string }>(
        sql`select instance, status from chain_heartbeats`,
      );
      return row?.status === 'connected' ? Number(row.instance.split(':').at(-1)) : null;
    };
    const first = await waitFor(holder, {
      timeoutMs: 60_000,
      message: 'an ingestor holds the lock',
    });
    const [active, standby] = first === a.child.pid ? [a, b] : [b, a];
    assert.equal(first, active.child.pid);
    const created = await h.fake.createVault({ dailyLimit: 1000 });
    await waitForSignatures(h.storage.storage, [created.signature]);
    assert.ok(
      !standby.output.some((l) => l.includes('ingestor lock held')),
      'the standby does not ingest while the active one lives',
    );

    await active.stop('SIGKILL');
    const killedAt = Date.now();
    const spend = await h.fake.pause(created.vault);
    await waitFor(async () => (await holder()) === standby.child.pid, {
      timeoutMs: 15_000,
      message: 'takeover',
    });
    await waitForSignatures(h.storage.storage, [spend.signature], 15_000);
    assert.ok(Date.now() - killedAt < 15_000);
  });
});
