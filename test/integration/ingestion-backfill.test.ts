import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { asc, sql } from 'drizzle-orm';
import { randomAddress } from '../../dev/validator/scenarios.js';
import { CROSS_VAULT_TAG, vaultTag } from '../../src/cache/tags.js';
import { runBackfill } from '../../src/chain/backfill.js';
import { createChainReader } from '../../src/chain/chain-reader.js';
import { readTransaction } from '../../src/chain/fetch-transaction.js';
import { createIngestionService } from '../../src/domain/ingestion/apply-signature.js';
import { cursorName } from '../../src/domain/ingestion/cursor.js';
import { WEBHOOK_EVENTS } from '../../src/domain/webhooks/webhook-events.js';
import {
  blinks,
  chainEvents,
  chainSignatures,
  overrides,
  transactions,
  vaults,
  webhookDeliveries,
  webhooks,
} from '../../src/storage/schema/index.js';
import { BASE_URL, SOL, useIngestionHarness } from '../support/ingestion-harness.js';
import { waitFor, waitForSignatures } from '../support/wait.js';

const h = useIngestionHarness();
const ingestionService = () =>
  createIngestionService({
    ...h.deps,
    publicBaseUrl: BASE_URL,
    cluster: h.deps.config.cluster,
    cursorName: cursorName(h.fake.programId),
    chainReader: createChainReader({ rpc: h.deps.rpc, programId: h.fake.programId, logger: h.deps.logger }),
  });

describe('ingestion: backfill, cursor, idempotence and health', () => {
  test('re-applying an applied signature changes nothing', async () => {
    const authority = randomAddress();
    await h.storage.storage.db.insert(webhooks).values({
      owner: authority,
      url: 'https://hooks.test/in',
      events: [...WEBHOOK_EVENTS],
      secret: 'whsec_x',
    });
    const created = await h.fake.createVault({ authority, dailyLimit: SOL });
    const blocked = await h.fake.block(created.vault, { amount: 2n * SOL, reason: 'exceeded_daily_limit' });
    const service = ingestionService();
    const read = (s: string) => readTransaction(h.deps.rpc, h.fake.programId, s);
    const batch = [await read(created.signature), await read(blocked.signature)];
    const first = await service.applySignatures(batch);
    assert.deepEqual(first, { applied: 2, skipped: 0, events: 2 });
    const snapshot = async () => ({
      vaults: await h.storage.storage.db.select().from(vaults),
      transactions: await h.storage.storage.db.select().from(transactions),
      overrides: await h.storage.storage.db.select().from(overrides),
      blinks: await h.storage.storage.db.select().from(blinks),
      events: await h.storage.storage.db.select().from(chainEvents),
      deliveries: await h.storage.storage.db.select().from(webhookDeliveries),
    });
    const before = await snapshot();
    assert.equal(before.deliveries.length, 2);
    const again = await service.applySignatures([...batch, batch[1]!]);
    assert.deepEqual(again, { applied: 0, skipped: 3, events: 0 });
    assert.deepEqual(await snapshot(), before);
  });

  test('a first start with BACKFILL=none begins at the chain tip; later events still find their vault', async () => {
    const created = await h.fake.createVault({ dailyLimit: SOL });
    await h.fake.deposit(created.vault, SOL);
    await h.fake.execute(created.vault, { amount: 1000 });
    await h.startLive({ BACKFILL: 'none' });
    assert.equal(await h.countOf('vaults'), 0);
    const later = await h.fake.execute(created.vault, { amount: 2000 });
    await waitForSignatures(h.storage.storage, [later.signature]);
    const vault = await h.vaultRow(created.vault);
    assert.equal(vault.authority, created.authority);
    assert.equal(vault.agentSigner, created.agentSigner);
    const rows = await h.storage.storage.db.select().from(transactions);
    assert.deepEqual(
      rows.map((r) => r.amount),
      [2000n],
    );
  });

  test('a first start with BACKFILL=<count> applies only the newest signatures, oldest first', async () => {
    const created = await h.fake.createVault({ dailyLimit: 10n * SOL });
    await h.fake.deposit(created.vault, SOL);
    const spends = [];
    for (const amount of [1000, 2000, 3000]) spends.push(await h.fake.execute(created.vault, { amount }));
    h.start({ BACKFILL: '2' });
    await waitForSignatures(h.storage.storage, [spends[1]!.signature, spends[2]!.signature]);
    const applied = (await h.storage.storage.db.select().from(chainSignatures))
      .map((r) => r.signature)
      .sort();
    assert.deepEqual(applied, [spends[1]!.signature, spends[2]!.signature].sort());
    const amounts = (
      await h.storage.storage.db.select().from(transactions).orderBy(asc(transactions.slot))
    ).map((r) => r.amount);
    assert.deepEqual(amounts, [2000n, 3000n]);
    assert.equal((await h.vaultRow(created.vault)).createdSlot, spends[1]!.slot);
  });

  test('signatures whose notifications were missed are applied by the timer backfill', async () => {
    const created = await h.fake.createVault({ dailyLimit: SOL });
    await h.fake.deposit(created.vault, SOL);
    await h.startLive({ BACKFILL_INTERVAL_SECONDS: '1' });
    await waitForSignatures(h.storage.storage, [created.signature]);
    h.fake.setNotificationsEnabled(false);
    const missed = await h.fake.execute(created.vault, { amount: 1234 });
    await waitForSignatures(h.storage.storage, [missed.signature]);
    assert.equal((await h.storage.storage.db.select().from(transactions))[0]?.amount, 1234n);
    assert.match(
      await h.deps.metrics.registry.metrics(),
      /vaultkeeper_signatures_fetched_total\{source="backfill"\} [1-9]/,
    );
  });

  test('a backfill applies what the stream already carried without reading it again, and reads the rest', async () => {
    const created = await h.fake.createVault({ dailyLimit: SOL });
    await h.fake.deposit(created.vault, SOL);
    const spends = [
      await h.fake.execute(created.vault, { amount: 77 }),
      await h.fake.execute(created.vault, { amount: 88 }),
    ];
    const read = (s: string) => readTransaction(h.deps.rpc, h.fake.programId, s);
    const carried = new Map([
      [created.signature, await read(created.signature)],
      [spends[1]!.signature, await read(spends[1]!.signature)],
    ]);
    h.fake.resetRpcRequests();
    const result = await runBackfill(
      {
        rpc: h.deps.rpc,
        programId: h.fake.programId,
        storage: h.storage.storage,
        metrics: h.deps.metrics,
        ingestion: ingestionService(),
        cursorName: cursorName(h.fake.programId),
        backfill: h.deps.config.backfill,
        fetchConcurrency: 4,
        batchSize: 10,
        carried: (signature) => carried.get(signature),
      },
      AbortSignal.timeout(30_000),
    );
    assert.deepEqual(result, { listed: 3, applied: 3 });
    const reads = h.fake
      .rpcRequests()
      .flatMap((r) => r.methods.map((method, k) => ({ method, params: r.params[k] as unknown[] })))
      .filter((call) => call.method === 'getTransaction')
      .map((call) => call.params[0]);
    assert.deepEqual(reads, [spends[0]!.signature], 'only the signature the stream had not carried is read');
    const amounts = (await h.storage.storage.db.select().from(transactions)).map((r) => r.amount);
    assert.deepEqual(amounts.sort(), [77n, 88n]);
  });

  test('a restart resumes from the cursor and applies what landed while it was down', async () => {
    const created = await h.fake.createVault({ dailyLimit: SOL });
    await h.fake.deposit(created.vault, SOL);
    await h.startLive();
    await waitForSignatures(h.storage.storage, [created.signature]);
    await h.stop();
    const whileDown = [await h.fake.execute(created.vault, { amount: 1 }), await h.fake.pause(created.vault)];
    await h.startLive();
    await waitForSignatures(
      h.storage.storage,
      whileDown.map((s) => s.signature),
    );
    assert.equal((await h.vaultRow(created.vault)).paused, true);
    const [cursor] = await h.storage.storage.rows<{ signature: string }>(
      sql`select signature from chain_cursors`,
    );
    assert.equal(cursor?.signature, whileDown[1]?.signature);
  });

  test('evicts the cached reads of a vault once its events commit', async () => {
    const created = await h.fake.createVault({ dailyLimit: SOL });
    await h.fake.deposit(created.vault, SOL);
    await h.startLive();
    await waitForSignatures(h.storage.storage, [created.signature]);
    await h.deps.cache.set('vault-detail', { stale: true }, 300, [vaultTag(created.vault)]);
    await h.deps.cache.set('vault-list', { stale: true }, 300, [CROSS_VAULT_TAG]);
    const spend = await h.fake.execute(created.vault, { amount: 5 });
    await waitForSignatures(h.storage.storage, [spend.signature]);
    await waitFor(async () => (await h.deps.cache.get('vault-detail')) === undefined);
    assert.equal(await h.deps.cache.get('vault-list'), undefined);
  });

  test('health reports the chain feed from the database: status, slot, last event and lag', async () => {
    const { app } = await h.world.start();
    const chain = async () => (await app.inject({ method: 'GET', url: '/api/health' })).json().chain;
    assert.deepEqual(await chain(), {
      status: 'disconnected',
      source: null,
      cluster: 'devnet',
      lastSlot: null,
      lastEventAt: null,
      lagSeconds: null,
    });
    await h.startLive();
    const created = await h.fake.createVault({ dailyLimit: SOL });
    await waitForSignatures(h.storage.storage, [created.signature]);
    const live = await waitFor(async () => {
      const c = await chain();
      return c.status === 'connected' && c.lagSeconds === 0 ? c : null;
    });
    assert.equal(live.lastSlot, created.slot);
    assert.equal(live.source, 'websocket');
    assert.equal(live.lastEventAt, h.blockTimeOf(created.signature).toISOString());
    await h.stop();
    // Health checks are reused for up to a second.
    await waitFor(async () => (await chain()).status === 'disconnected');
  });
});
