import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Address, createSolanaRpc } from '@solana/kit';
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { createWebhookReceiver } from '../../dev/support/webhook-receiver.js';
import { randomAddress } from '../../dev/validator/scenarios.js';
import { randomBase58 } from '../../dev/validator/state.js';
import { buildApp } from '../../src/app.js';
import { createChainReader } from '../../src/chain/chain-reader.js';
import { createFinalityReconciler, DROP_DEPTH, STATUS_BATCH } from '../../src/chain/finality-reconciler.js';
import { runDailyMetricsRollup } from '../../src/domain/analytics/daily-metrics-rollup.js';
import { runDeliveryWorker } from '../../src/jobs/worker.js';
import { chainSignatures, webhookDeliveries, webhooks } from '../../src/storage/schema/index.js';
import { SOL, useIngestionHarness } from '../support/ingestion-harness.js';
import { getJson } from '../support/test-apps.js';
import { waitFor, waitForSignatures, waitForSubscription } from '../support/wait.js';
import { WORKER_ENV } from '../support/webhooks.js';

const h = useIngestionHarness();

/** The ingestor with a fast finality pass; `streamed`: the fake cluster's slot statuses feed it, as gRPC's would. */
async function startIngestor(streamed = false): Promise<void> {
  h.start(
    {},
    {
      finalityIntervalMs: 50,
      ...(streamed ? { slotStatus: (report) => h.fake.finality.onSlotStatus(report) } : {}),
    },
  );
  await waitForSubscription(h.storage.storage);
}

/** The API on the ingestor's own dependencies (one cache, so its evictions show). */
async function startApi(): Promise<FastifyInstance> {
  const app = await buildApp(h.deps);
  await app.ready();
  return app;
}

async function subscribe(owner: string, events: string[], url = 'https://hooks.test/in'): Promise<string> {
  const [hook] = await h.storage.storage.db
    .insert(webhooks)
    .values({ owner, url, events, secret: 'whsec_x' })
    .returning();
  return hook!.id;
}

async function deliveries(webhookId: string, event: string): Promise<Record<string, unknown>[]> {
  const rows = await h.storage.storage.db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.event, event)));
  return rows.map((r) => (JSON.parse(r.payload) as { data: Record<string, unknown> }).data);
}

const isApplied = async (signature: string) =>
  (await h.storage.storage.db.select().from(chainSignatures).where(eq(chainSignatures.signature, signature)))
    .length > 0;

async function dailyExecuted(vaultId: string): Promise<{ count: number; volume: string }> {
  await runDailyMetricsRollup(h.storage.storage.db);
  const [row] = await h.storage.storage.rows<{ count: number; volume: string }>(
    sql`select coalesce(sum(executed_count), 0)::int as count, coalesce(sum(executed_volume), 0)::text as volume
        from daily_metrics where vault_key = ${vaultId}`,
  );
  return { count: Number(row?.count), volume: String(row?.volume) };
}

describe('finality', () => {
  test('a confirmed transfer the cluster drops leaves lists, totals, the vault and the daily metrics; the other finalizes', async () => {
    const authority = randomAddress();
    const receiver = await createWebhookReceiver();
    const hook = await subscribe(authority, ['transaction.dropped'], `${receiver.url}/in`);
    const worker = new AbortController();
    const working = runDeliveryWorker(h.world.createDeps({ env: WORKER_ENV }), worker.signal, {
      pollIntervalMs: 25,
    });
    h.fake.finality.setFinalizedSlot(h.fake.state.slot);
    await startIngestor();
    const app = await startApi();
    try {
      const created = await h.fake.createVault({ authority, dailyLimit: 10n * SOL });
      await h.fake.deposit(created.vault, 5n * SOL);
      const destination = randomAddress();
      const kept = await h.fake.execute(created.vault, { destination, amount: 1_000_000 });
      const dropped = await h.fake.execute(created.vault, { destination, amount: 2_000_000 });
      await waitForSignatures(h.storage.storage, [created.signature, kept.signature, dropped.signature]);

      const before = await getJson(app, `/api/transactions?vault=${created.vault}`);
      assert.equal(before.body.pagination.total, 2);
      assert.deepEqual(
        before.body.transactions.map((t: { commitment: string }) => t.commitment),
        ['confirmed', 'confirmed'],
      );
      const vaultId = (await h.vaultRow(created.vault)).id;
      assert.deepEqual(await dailyExecuted(vaultId), { count: 2, volume: '3000000' });
      assert.equal((await h.vaultRow(created.vault)).spentToday, 3_000_000n);

      // The fork: the second transfer never happened; the cluster finalizes 64 slots past it.
      assert.ok(h.fake.finality.dropTransaction(dropped.signature));
      assert.equal(h.fake.getVault(created.vault)?.config.spentToday, 1_000_000n);
      h.fake.finality.setFinalizedSlot(dropped.slot + DROP_DEPTH);
      await waitFor(async () => !(await isApplied(dropped.signature)), {
        message: 'the dropped signature left',
      });

      const after = await getJson(app, `/api/transactions?vault=${created.vault}`);
      assert.equal(after.body.pagination.total, 1);
      assert.equal(after.body.transactions[0].signature, kept.signature);
      const vault = await getJson(app, `/api/vaults/${created.vault}`);
      assert.equal(vault.body.spentToday, '1000000');
      assert.equal(vault.body.stats.transactionCount, 1);
      assert.equal(vault.body.stats.totalVolume, '1000000');
      assert.deepEqual(await dailyExecuted(vaultId), { count: 1, volume: '1000000' });
      assert.equal((await getJson(app, `/api/transactions/${dropped.signature}`)).status, 404);

      // The transfer that stayed is final.
      await waitFor(async () => {
        const detail = await getJson(app, `/api/transactions/${kept.signature}`);
        return detail.body.commitment === 'finalized';
      });
      assert.deepEqual(await deliveries(hook, 'transaction.dropped'), [
        {
          signature: dropped.signature,
          slot: dropped.slot,
          vault: created.vault,
          previousStatus: 'executed',
        },
      ]);
      // It reaches the receiver; passes go on, and it is sent once.
      await waitFor(() => receiver.requests.length === 1, { message: 'the receiver got the drop' });
      const passes = h.fake.rpcRequests().length;
      await waitFor(() => h.fake.rpcRequests().length > passes + 2);
      assert.equal((await deliveries(hook, 'transaction.dropped')).length, 1);
      assert.equal(receiver.requests.length, 1);
      const body = JSON.parse(receiver.requests[0]!.body) as { event: string; data: { signature: string } };
      assert.equal(body.event, 'transaction.dropped');
      assert.equal(body.data.signature, dropped.signature);
    } finally {
      await app.close();
      worker.abort();
      await working;
      await receiver.close();
    }
  });

  test('a dead slot drops its rows: a blocked transfer and the override it asked for leave', async () => {
    const authority = randomAddress();
    const hook = await subscribe(authority, ['transaction.dropped']);
    h.fake.finality.setFinalizedSlot(h.fake.state.slot);
    await startIngestor(true);
    const created = await h.fake.createVault({ authority, dailyLimit: SOL });
    await h.fake.deposit(created.vault, 10n * SOL);
    const blocked = await h.fake.block(created.vault, {
      destination: randomAddress(),
      amount: 5n * SOL,
      reason: 'exceeded_daily_limit',
    });
    await waitForSignatures(h.storage.storage, [created.signature, blocked.signature]);
    assert.equal(await h.countOf('transactions'), 1);
    const overridesBefore = await h.countOf('overrides');
    assert.equal((await h.vaultRow(created.vault)).blockedCount, 1);

    assert.deepEqual(h.fake.finality.killSlot(blocked.slot), [blocked.signature]);
    await waitFor(async () => !(await isApplied(blocked.signature)), { message: 'the dead slot left' });
    assert.equal(await h.countOf('transactions'), 0);
    assert.equal(await h.countOf('overrides'), overridesBefore > 0 ? overridesBefore - 1 : 0);
    assert.equal((await h.vaultRow(created.vault)).blockedCount, 0);
    assert.equal(await isApplied(created.signature), true);
    const [event] = await deliveries(hook, 'transaction.dropped');
    assert.deepEqual(event, {
      signature: blocked.signature,
      slot: blocked.slot,
      vault: created.vault,
      previousStatus: 'blocked',
    });
    const feed = await h.storage.storage.rows<{ name: string }>(
      sql`select name from alert_events where signature = ${blocked.signature}`,
    );
    assert.deepEqual(feed, [{ name: 'transaction.dropped' }]);
  });

  test('asks statuses in batches of at most 256 and finalizes what the cluster finalized', async () => {
    const real = await h.fake.createVault({ dailyLimit: SOL });
    h.fake.state.advanceSlot();
    const slot = h.fake.state.slot;
    // Many applied signatures the cluster does not know yet, too recent to drop, and one it finalized.
    const unknown = Array.from({ length: STATUS_BATCH + 44 }, () => randomBase58(64));
    await h.storage.storage.db
      .insert(chainSignatures)
      .values([
        ...unknown.map((signature) => ({ signature, slot })),
        { signature: real.signature, slot: real.slot },
      ]);
    h.fake.finality.setFinalizedSlot(slot);
    h.fake.resetRpcRequests();
    const rpc = createSolanaRpc(h.fake.rpcUrl);
    const reconciler = createFinalityReconciler({
      rpc,
      storage: h.storage.storage,
      cache: h.deps.cache,
      logger: h.deps.logger,
      clock: h.deps.clock,
      metrics: h.deps.metrics,
      finalizedReader: createChainReader({
        rpc,
        programId: h.fake.programId as Address,
        logger: h.deps.logger,
        commitment: 'finalized',
      }),
      fence: async () => {},
    });
    await reconciler.reconcile(AbortSignal.timeout(10_000));

    const asked = h.fake
      .rpcRequests()
      .flatMap((r) => r.methods.map((m, i) => [m, r.params[i]] as const))
      .filter(([method]) => method === 'getSignatureStatuses')
      .map(([, params]) => (params as [string[]])[0].length);
    assert.ok(asked.length >= 2, 'more than one call');
    assert.ok(
      asked.every((n) => n <= STATUS_BATCH),
      `batches ${asked}`,
    );
    assert.equal(
      asked.reduce((a, b) => a + b, 0),
      unknown.length + 1,
    );
    const rows = await h.storage.storage.rows<{ commitment: string; n: number }>(
      sql`select commitment, count(*)::int as n from chain_signatures group by commitment order by commitment`,
    );
    assert.deepEqual(
      rows.map((r) => [r.commitment, Number(r.n)]),
      [
        ['confirmed', unknown.length],
        ['finalized', 1],
      ],
    );
    const metrics = await h.deps.metrics.registry.getSingleMetricAsString(
      'vaultkeeper_unfinalized_transactions',
    );
    assert.match(metrics, new RegExp(`vaultkeeper_unfinalized_transactions ${unknown.length}`));
  });
});
