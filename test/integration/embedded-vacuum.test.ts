// The embedded database's upkeep job: PGlite has no autovacuum, so the service vacuums and analyzes it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createEmbeddedVacuumJob } from '../../src/jobs/embedded-vacuum.js';
import { createTransaction, createVault } from '../support/factories.js';
import { useTestApps } from '../support/test-apps.js';

const testStorage = useTestApps();

test('the upkeep job vacuums what deletes left behind and gives the planner statistics', async () => {
  const { storage } = testStorage;
  const vault = await createVault(storage.db);
  for (let i = 0; i < 40; i++) {
    await createTransaction(storage.db, {
      vault,
      amount: 1n,
      timestamp: new Date(Date.UTC(2026, 11, 1, 0, i)),
    });
  }
  await storage.db.execute(sql`insert into daily_metrics_dirty (vault_key, day)
    select ${vault.id}, '2026-01-01'::date + g from generate_series(0, 299) g`);
  await storage.db.execute(sql`delete from daily_metrics_dirty`);
  const [before] = await storage.rows<{ now: string }>(sql`select clock_timestamp()::text as now`);

  await createEmbeddedVacuumJob({ storage }).run(new AbortController().signal);

  const tables = await storage.rows<{ relname: string; vacuumed: boolean; analyzed: boolean }>(sql`
    select relname, last_vacuum >= ${before!.now}::timestamptz as vacuumed,
      last_analyze >= ${before!.now}::timestamptz as analyzed
    from pg_stat_user_tables where relname in ('daily_metrics_dirty', 'transactions') order by relname`);
  assert.deepEqual(tables, [
    { relname: 'daily_metrics_dirty', vacuumed: true, analyzed: true },
    { relname: 'transactions', vacuumed: true, analyzed: true },
  ]);
  const [planned] = await storage.rows<{ reltuples: number }>(
    sql`select reltuples::int as reltuples from pg_class where relname = 'transactions'`,
  );
  assert.equal(planned?.reltuples, 40, 'the planner knows how many transactions there are');
});
