import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { asc, eq, sql } from 'drizzle-orm';
import { randomAddress } from '../../dev/validator/scenarios.js';
import { findVaultAuthorityAddress } from '../../src/chain/pdas.js';
import { runDailyMetricsRollup } from '../../src/domain/analytics/daily-metrics-rollup.js';
import { WEBHOOK_EVENTS } from '../../src/domain/webhooks/webhook-events.js';
import {
  auditEntries,
  blinks,
  chainEvents,
  chainSignatures,
  overrides,
  transactions,
  webhookDeliveries,
  webhooks,
} from '../../src/storage/schema/index.js';
import { BASE_URL, SOL, useIngestionHarness } from '../support/ingestion-harness.js';
import { waitForSignatures } from '../support/wait.js';

const h = useIngestionHarness();

/** Executed transfers per destination of a metrics key's days, as the rollup left them. */
async function destinationDays(vaultKey: string): Promise<Record<string, string>> {
  const rows = await h.storage.storage.rows<{ destination: string; day: string; n: number; v: string }>(
    sql`select destination, day::text as day, executed_count as n, executed_volume::text as v
      from daily_destination_metrics where vault_key = ${vaultKey}`,
  );
  return Object.fromEntries(rows.map((r) => [`${r.day}|${r.destination}`, `${r.n}|${r.v}`]));
}

/** A delivery body as the outbox stores it. */
interface Delivered {
  id: string;
  event: string;
  timestamp: string;
  data: Record<string, unknown>;
}

describe('ingestion: every event kind lands in its projection', () => {
  test('VaultCreated creates the vault with the fields of its VaultConfig account', async () => {
    await h.startLive();
    const created = await h.fake.createVault({ dailyLimit: 5n * SOL, name: 'Ops budget', tier: 'team' });
    await waitForSignatures(h.storage.storage, [created.signature]);
    const row = await h.vaultRow(created.vault);
    const [deposit] = await findVaultAuthorityAddress(h.fake.programId, created.vault);
    assert.equal(row.authority, created.authority);
    assert.equal(row.agentSigner, created.agentSigner);
    assert.equal(row.depositAddress, deposit);
    assert.equal(row.dailyLimit, 5n * SOL);
    assert.equal(row.name, 'Ops budget');
    assert.equal(row.tier, 1);
    assert.equal(row.vaultNonce, created.nonce);
    assert.equal(row.paused, false);
    assert.equal(row.createdSlot, created.slot);
    assert.deepEqual(row.createdAt, h.blockTimeOf(created.signature));
    const [event] = await h.storage.storage.db
      .select()
      .from(chainEvents)
      .where(eq(chainEvents.signature, created.signature));
    assert.equal(event?.name, 'VaultCreated');
    assert.equal(event?.vaultAddress, created.vault);
    assert.deepEqual((event?.data as { dailyLimit?: string } | undefined)?.dailyLimit, (5n * SOL).toString());
  });

  test('TransactionExecuted inserts an executed transaction and updates spentToday and the counters', async () => {
    const created = await h.fake.createVault({ dailyLimit: 10n * SOL, feeBasisPoints: 50 });
    await h.fake.deposit(created.vault, 5n * SOL);
    await h.startLive();
    const destination = randomAddress();
    const first = await h.fake.execute(created.vault, { destination, amount: 1_000_000 });
    const second = await h.fake.execute(created.vault, { destination, amount: 2_000_000 });
    await waitForSignatures(h.storage.storage, [first.signature, second.signature]);
    const rows = await h.storage.storage.db.select().from(transactions).orderBy(asc(transactions.slot));
    assert.equal(rows.length, 2);
    const [a, b] = rows;
    assert.equal(a?.status, 'executed');
    assert.equal(a?.signature, first.signature);
    assert.equal(a?.eventIndex, 0);
    assert.equal(a?.destination, destination);
    assert.equal(a?.amount, 1_000_000n);
    assert.equal(a?.feeCollected, 5_000n);
    assert.equal(a?.blockReason, null);
    assert.deepEqual(a?.timestamp, h.blockTimeOf(first.signature));
    assert.equal(b?.amount, 2_000_000n);
    const vault = await h.vaultRow(created.vault);
    assert.equal(vault.spentToday, 3_000_000n);
    assert.equal(vault.transactionCount, 2);
    assert.equal(vault.executedCount, 2);
    assert.equal(vault.totalVolume, 3_000_000n);
    assert.ok(vault.lastReset instanceof Date);

    // The destination is marked for the vault's and the global day, and the rollup ranks it from those marks.
    const day = h.blockTimeOf(first.signature).toISOString().slice(0, 10);
    const marks = await h.storage.storage.rows<{ vault_key: string; day: string; destination: string }>(
      sql`select vault_key, day::text as day, destination from destination_metrics_dirty order by vault_key`,
    );
    assert.deepEqual(
      marks.map((m) => `${m.vault_key}|${m.day}|${m.destination}`).sort(),
      [`${vault.id}|${day}|${destination}`, `*|${day}|${destination}`].sort(),
    );
    await runDailyMetricsRollup(h.storage.storage.db);
    assert.deepEqual(await destinationDays(vault.id), { [`${day}|${destination}`]: '2|3000000' });
    assert.deepEqual(await destinationDays('*'), { [`${day}|${destination}`]: '2|3000000' });
  });

  test('TransactionBlocked in a failed transaction is recorded, with a pending override and its Blink', async () => {
    const created = await h.fake.createVault({ dailyLimit: SOL });
    await h.startLive();
    const destination = randomAddress();
    const blocked = await h.fake.block(created.vault, {
      destination,
      amount: 2n * SOL,
      reason: 'exceeded_daily_limit',
    });
    assert.notEqual(blocked.err, null);
    await waitForSignatures(h.storage.storage, [blocked.signature]);
    const [tx] = await h.storage.storage.db.select().from(transactions);
    assert.equal(tx?.status, 'blocked');
    assert.equal(tx?.blockReason, 'exceeded_daily_limit');
    assert.equal(tx?.amount, 2n * SOL);
    assert.equal(tx?.feeCollected, null);
    const [override] = await h.storage.storage.db.select().from(overrides);
    assert.ok(override);
    assert.equal(tx?.overrideId, override.id);
    assert.equal(override.nonce, blocked.overrideNonce);
    assert.equal(override.status, 'pending');
    assert.equal(override.destination, destination);
    assert.equal(override.amount, 2n * SOL);
    assert.equal(override.reason, 'exceeded_daily_limit');
    assert.equal(override.expiresAt.getTime(), h.blockTimeOf(blocked.signature).getTime() + 3_600_000);
    const [blink] = await h.storage.storage.db.select().from(blinks);
    assert.equal(blink?.overrideId, override.id);
    assert.equal(blink?.url, `${BASE_URL}/api/actions/${created.vault}/${blocked.overrideNonce}`);
    const vault = await h.vaultRow(created.vault);
    assert.equal(vault.blockedCount, 1);
    assert.equal(vault.transactionCount, 1);
    assert.equal(vault.totalVolume, 0n);
  });

  test('an override is created, approved (pending transfer) and executed (that same row becomes executed)', async () => {
    const created = await h.fake.createVault({ dailyLimit: SOL });
    await h.fake.deposit(created.vault, 10n * SOL);
    await h.startLive();
    const destination = randomAddress();
    const blocked = await h.fake.block(created.vault, {
      destination,
      amount: 3n * SOL,
      reason: 'exceeded_daily_limit',
    });
    const nonce = blocked.overrideNonce;
    assert.notEqual(nonce, null);
    const made = await h.fake.createOverride(created.vault, { destination, amount: 3n * SOL, nonce: nonce! });
    assert.equal(made.nonce, nonce);
    const approved = await h.fake.approveOverride(created.vault, made.nonce);
    await waitForSignatures(h.storage.storage, [blocked.signature, made.signature, approved.signature]);

    const [override] = await h.storage.storage.db.select().from(overrides);
    assert.equal(override?.status, 'approved');
    assert.deepEqual(override?.approvedAt, h.blockTimeOf(approved.signature));
    const pending = await h.storage.storage.db
      .select()
      .from(transactions)
      .where(eq(transactions.status, 'pending'));
    assert.equal(pending.length, 1);
    assert.equal(pending[0]?.signature, null);
    assert.equal(pending[0]?.overrideId, override?.id);
    assert.equal(pending[0]?.amount, 3n * SOL);

    const executed = await h.fake.executeApprovedOverride(created.vault, made.nonce);
    await waitForSignatures(h.storage.storage, [executed.signature]);
    const [after] = await h.storage.storage.db.select().from(overrides);
    assert.equal(after?.status, 'executed');
    const rows = await h.storage.storage.db.select().from(transactions).orderBy(asc(transactions.createdAt));
    assert.deepEqual(rows.map((r) => r.status).sort(), ['blocked', 'executed']);
    const done = rows.find((r) => r.status === 'executed');
    assert.equal(done?.id, pending[0]?.id, 'the pending row itself became the executed transaction');
    assert.equal(done?.signature, executed.signature);
    assert.equal(done?.eventIndex, 0);
    assert.deepEqual(done?.timestamp, h.blockTimeOf(executed.signature));
    const vault = await h.vaultRow(created.vault);
    assert.equal(vault.transactionCount, 2);
    assert.equal(vault.executedCount, 1);
    assert.equal(vault.blockedCount, 1);
    assert.equal(vault.totalVolume, 3n * SOL);
    assert.equal(vault.overrideNonce, nonce! + 1n);

    // The settled transfer marks its destination: the rollup counts it on the day it executed.
    await runDailyMetricsRollup(h.storage.storage.db);
    const day = h.blockTimeOf(executed.signature).toISOString().slice(0, 10);
    assert.deepEqual(await destinationDays(vault.id), { [`${day}|${destination}`]: `1|${3n * SOL}` });
  });

  test('policy, agent signer, whitelist and pause changes update the vault', async () => {
    const created = await h.fake.createVault({ dailyLimit: SOL });
    await h.startLive();
    const friend = randomAddress();
    const other = randomAddress();
    const agent = randomAddress();
    const steps = [
      await h.fake.updateDailyLimit(created.vault, 7n * SOL),
      await h.fake.addToWhitelist(created.vault, friend),
      await h.fake.addToWhitelist(created.vault, other),
      await h.fake.removeFromWhitelist(created.vault, other),
      await h.fake.updateAgentSigner(created.vault, agent),
      await h.fake.pause(created.vault),
    ];
    await waitForSignatures(
      h.storage.storage,
      steps.map((s) => s.signature),
    );
    let vault = await h.vaultRow(created.vault);
    assert.equal(vault.dailyLimit, 7n * SOL);
    assert.deepEqual(vault.whitelist, [friend]);
    assert.equal(vault.whitelistCount, 1);
    assert.equal(vault.agentSigner, agent);
    assert.equal(vault.paused, true);
    const resumed = await h.fake.resume(created.vault);
    await waitForSignatures(h.storage.storage, [resumed.signature]);
    vault = await h.vaultRow(created.vault);
    assert.equal(vault.paused, false);
    const names = (await h.storage.storage.db.select().from(chainEvents).orderBy(asc(chainEvents.slot))).map(
      (e) => e.name,
    );
    assert.deepEqual(names, [
      'VaultCreated',
      'PolicyUpdated',
      'PolicyUpdated',
      'PolicyUpdated',
      'PolicyUpdated',
      'AgentSignerUpdated',
      'VaultPaused',
      'VaultResumed',
    ]);
  });

  test("the owner's acts on chain are audit entries, with the transaction as actor", async () => {
    const created = await h.fake.createVault({ dailyLimit: SOL });
    await h.fake.deposit(created.vault, 10n * SOL);
    await h.startLive();
    const limit = await h.fake.updateDailyLimit(created.vault, 2n * SOL);
    const paused = await h.fake.pause(created.vault);
    const resumed = await h.fake.resume(created.vault);
    const destination = randomAddress();
    const blocked = await h.fake.block(created.vault, {
      destination,
      amount: 5n * SOL,
      reason: 'exceeded_daily_limit',
    });
    const made = await h.fake.createOverride(created.vault, {
      destination,
      amount: 5n * SOL,
      nonce: blocked.overrideNonce!,
    });
    const approved = await h.fake.approveOverride(created.vault, made.nonce);
    const steps = [limit, paused, resumed, blocked, made, approved];
    await waitForSignatures(
      h.storage.storage,
      steps.map((s) => s.signature),
    );
    // Block times are whole seconds: the entries are put in the order the acts were sent.
    const step = (actor: string) => steps.findIndex((s) => `chain:${s.signature}` === actor);
    const entries = (await h.storage.storage.db.select().from(auditEntries)).sort(
      (x, y) => step(x.actor) - step(y.actor),
    );
    const vaultTarget = `vault:${created.vault}`;
    assert.deepEqual(
      entries.map((e) => [e.actor, e.action, e.target, e.outcome]),
      [
        [`chain:${limit.signature}`, 'policy.update', vaultTarget, 'ok'],
        [`chain:${paused.signature}`, 'vault.pause', vaultTarget, 'ok'],
        [`chain:${resumed.signature}`, 'vault.resume', vaultTarget, 'ok'],
        [`chain:${approved.signature}`, 'override.approve', `override:${created.vault}/${made.nonce}`, 'ok'],
      ],
    );
    for (const entry of entries) {
      assert.equal(entry.owner, created.authority);
      assert.equal(entry.vault, created.vault);
      assert.equal(entry.requestId, null);
      assert.equal(entry.client, null);
    }
    assert.deepEqual(entries[1]?.at, h.blockTimeOf(paused.signature));
  });

  test('webhook outbox rows are written with the events, with the documented payloads', async () => {
    const authority = randomAddress();
    const [hook] = await h.storage.storage.db
      .insert(webhooks)
      .values({
        owner: authority,
        url: 'https://hooks.test/in',
        events: [...WEBHOOK_EVENTS],
        secret: 'whsec_x',
      })
      .returning();
    await h.startLive();
    const created = await h.fake.createVault({ authority, dailyLimit: SOL });
    await h.fake.deposit(created.vault, 10n * SOL);
    const destination = randomAddress();
    const executed = await h.fake.execute(created.vault, { destination, amount: 1000 });
    const blocked = await h.fake.block(created.vault, {
      destination,
      amount: 5n * SOL,
      reason: 'not_whitelisted',
    });
    const paused = await h.fake.pause(created.vault);
    const limit = await h.fake.updateDailyLimit(created.vault, 2n * SOL);
    const signatures = [created, executed, blocked, paused, limit].map((s) => s.signature);
    await waitForSignatures(h.storage.storage, signatures);

    const rows = await h.storage.storage.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhookId, hook!.id))
      .orderBy(asc(webhookDeliveries.createdAt));
    const byEvent = new Map(rows.map((r) => [r.event, JSON.parse(r.payload) as Delivered]));
    assert.deepEqual([...byEvent.keys()].sort(), [
      'policy.updated',
      'transaction.blocked',
      'transaction.executed',
      'vault.created',
      'vault.paused',
    ]);
    const blockedPayload = byEvent.get('transaction.blocked')!;
    assert.deepEqual(Object.keys(blockedPayload), ['id', 'event', 'timestamp', 'data']);
    assert.equal(blockedPayload.timestamp, h.blockTimeOf(blocked.signature).toISOString());
    assert.deepEqual(blockedPayload.data, {
      vault: created.vault,
      destination,
      amount: (5n * SOL).toString(),
      blockReason: 'not_whitelisted',
      blinkUrl: `${BASE_URL}/api/actions/${created.vault}/${blocked.overrideNonce}`,
      approvalUrl: `${BASE_URL}/overrides/${created.vault}/${blocked.overrideNonce}`,
      signature: blocked.signature,
    });
    const tx = byEvent.get('transaction.executed')!.data;
    assert.equal(tx.signature, executed.signature);
    assert.equal(tx.status, 'executed');
    assert.equal(tx.amount, '1000');
    assert.equal(tx.vault, created.vault);
    assert.equal(typeof tx.feeCollected, 'string');
    assert.equal(tx.blockReason, null);
    assert.equal(byEvent.get('vault.created')!.data.vault, created.vault);
    assert.equal(byEvent.get('vault.created')!.data.agentSigner, created.agentSigner);
    assert.equal(byEvent.get('vault.paused')!.data.paused, true);
    assert.deepEqual(byEvent.get('policy.updated')!.data, {
      vault: created.vault,
      dailyLimit: (2n * SOL).toString(),
      whitelistCount: 0,
      agentSigner: created.agentSigner,
    });
    assert.ok(rows.every((r) => r.dedupeKey?.startsWith(r.dedupeKey.split(':')[0]!)));
  });
});

describe('ingestion: what must change nothing', () => {
  test('a forged event printed by another program changes nothing and is not stored', async () => {
    const created = await h.fake.createVault({ dailyLimit: SOL });
    await h.startLive();
    const forged = await h.fake.forgedEvent({ name: 'VaultPaused', data: { vault: created.vault } });
    const forgedSpend = await h.fake.forgedEvent({
      name: 'TransactionExecuted',
      data: {
        vault: created.vault,
        amount: SOL,
        destination: randomAddress(),
        feeCollected: 0n,
        newBalance: 0n,
        spentToday: SOL,
      },
    });
    await waitForSignatures(h.storage.storage, [created.signature, forged.signature, forgedSpend.signature]);
    const vault = await h.vaultRow(created.vault);
    assert.equal(vault.paused, false);
    assert.equal(vault.spentToday, 0n);
    assert.equal(await h.countOf('transactions'), 0);
    assert.equal(await h.countOf('chain_events'), 1, 'only VaultCreated');
  });

  test('events of a failed transaction other than TransactionBlocked change nothing', async () => {
    const created = await h.fake.createVault({ dailyLimit: SOL });
    await h.fake.deposit(created.vault, SOL);
    await h.startLive();
    const failed = await h.fake.failedWithEvents(created.vault, { amount: 1000 });
    assert.notEqual(failed.err, null);
    await waitForSignatures(h.storage.storage, [failed.signature]);
    assert.equal(await h.countOf('transactions'), 0);
    assert.equal((await h.vaultRow(created.vault)).spentToday, 0n);
    const [mark] = await h.storage.storage.db
      .select()
      .from(chainSignatures)
      .where(eq(chainSignatures.signature, failed.signature));
    assert.equal(mark?.failed, true);
    const stored = await h.storage.storage.db
      .select()
      .from(chainEvents)
      .where(eq(chainEvents.signature, failed.signature));
    assert.ok(stored.every((e) => e.transactionFailed));
  });

  test('an unknown discriminator is stored raw, counted as a warning, and skipped', async () => {
    const created = await h.fake.createVault({ dailyLimit: SOL });
    await h.startLive();
    const unknown = await h.fake.unknownEvent();
    await waitForSignatures(h.storage.storage, [created.signature, unknown.signature]);
    const [event] = await h.storage.storage.db
      .select()
      .from(chainEvents)
      .where(eq(chainEvents.signature, unknown.signature));
    assert.equal(event?.name, 'Unknown');
    assert.equal(event?.vaultAddress, null);
    assert.equal((event?.data as { discriminator?: string } | undefined)?.discriminator, 'deadbeef01020304');
    assert.equal(await h.countOf('vaults'), 1);
    assert.equal(await h.countOf('transactions'), 0);
    const text = await h.deps.metrics.registry.metrics();
    assert.match(text, /vaultkeeper_ingestion_warnings_total\{kind="unknown_event"\} 1/);
  });

  test('truncated logs are a warning: the events before the cut are kept', async () => {
    const created = await h.fake.createVault({ dailyLimit: 10n * SOL });
    await h.fake.deposit(created.vault, SOL);
    await h.startLive();
    const cut = await h.fake.truncatedLogs(created.vault, { transfers: 3, keepEvents: 1 });
    await waitForSignatures(h.storage.storage, [cut.signature]);
    assert.equal(await h.countOf('transactions'), 1);
    const [mark] = await h.storage.storage.db
      .select()
      .from(chainSignatures)
      .where(eq(chainSignatures.signature, cut.signature));
    assert.equal(mark?.truncated, true);
    const text = await h.deps.metrics.registry.metrics();
    assert.match(text, /vaultkeeper_ingestion_warnings_total\{kind="truncated_logs"\} 1/);
  });
});
