// Alerts derived by ingestion (budget.threshold, agent.velocity) and by the expiry job
// (override.expiring, override.expired): each once, in the live feed and the webhook outbox.
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { sql } from 'drizzle-orm';
import { randomAddress } from '../../dev/validator/scenarios.js';
import { createAlertSettingsService } from '../../src/domain/alerts/alert-settings.js';
import { runExpiryAlerts } from '../../src/domain/alerts/expiry-alerts.js';
import { createLiveFeed } from '../../src/domain/live-feed/live-feed.js';
import { createDatabase } from '../../src/storage/database.js';
import { webhookDeliveries, webhooks } from '../../src/storage/schema/index.js';
import { BASE_URL, SOL, useIngestionHarness } from '../support/ingestion-harness.js';
import { createSmtpSink } from '../support/smtp-sink.js';
import { waitFor, waitForSignatures } from '../support/wait.js';
import { createWebhookFixtures } from '../support/webhooks.js';

const h = useIngestionHarness();
const fixtures = createWebhookFixtures(() => h.storage);
afterEach(() => fixtures.cleanup());
const T0 = 1_795_000_000;

interface AlertRow {
  name: string;
  signature: string | null;
  data: Record<string, unknown>;
}

async function alertsOf(vault: string, name?: string): Promise<AlertRow[]> {
  return h.storage.storage.rows<AlertRow>(sql`
    select name, signature, data from alert_events
    where vault_address = ${vault} and (${name ?? null}::text is null or name = ${name ?? null})
    order by id`);
}

/** A vault on the fake chain (window opened at T0), ingested live, with the given alert settings. */
async function liveVault(
  dailyLimit: bigint,
  settings: Parameters<ReturnType<typeof createAlertSettingsService>['updateAlertSettings']>[2],
): Promise<{ vault: Address; authority: Address }> {
  h.fake.setTime(T0, 1);
  const created = await h.fake.createVault({ dailyLimit });
  await h.fake.deposit(created.vault, 1000n * SOL);
  await h.startLive();
  await waitForSignatures(h.storage.storage, [created.signature]);
  const service = createAlertSettingsService({ db: h.storage.storage.db, clock: h.deps.clock });
  await service.updateAlertSettings(created.authority, created.vault, settings);
  return { vault: created.vault, authority: created.authority };
}

async function spend(vault: Address, amount: bigint): Promise<string> {
  const { signature, err } = await h.fake.execute(vault, { amount, enforcePolicy: true });
  assert.equal(err, null);
  await waitForSignatures(h.storage.storage, [signature]);
  return signature;
}

describe('alerts: budget thresholds', () => {
  test('agent transfers cross thresholds once each, several in one transfer, with the documented payload', async () => {
    const { vault, authority } = await liveVault(10n * SOL, { budgetThresholds: [50, 80, 100] });
    const [hook] = await h.storage.storage.db
      .insert(webhooks)
      .values({
        owner: authority,
        url: 'https://hooks.test/in',
        events: ['budget.threshold'],
        secret: 'whsec_x',
      })
      .returning();

    await spend(vault, 4n * SOL);
    assert.deepEqual(await alertsOf(vault), [], '40 %: nothing crossed');
    const both = await spend(vault, 5n * SOL);
    const crossed = await alertsOf(vault, 'budget.threshold');
    assert.deepEqual(
      crossed.map((a) => a.data.threshold),
      [50, 80],
      'one transfer from 40 % to 90 % crosses 50 and 80',
    );
    const windowStart = new Date(T0 * 1000).toISOString();
    assert.deepEqual(crossed[1]?.data, {
      vault,
      threshold: 80,
      dailyLimit: (10n * SOL).toString(),
      spentToday: (9n * SOL).toString(),
      remaining: SOL.toString(),
      windowStart,
      resetsAt: new Date((T0 + 86_400) * 1000).toISOString(),
      signature: both,
    });
    assert.equal(crossed[1]?.signature, both);
    await spend(vault, SOL / 2n);
    assert.equal((await alertsOf(vault)).length, 2, '95 %: nothing new');
    await spend(vault, SOL / 2n);
    assert.deepEqual(
      (await alertsOf(vault)).map((a) => a.data.threshold),
      [50, 80, 100],
    );

    const deliveries = await h.storage.storage.db.select().from(webhookDeliveries);
    assert.equal(deliveries.length, 3);
    assert.ok(deliveries.every((d) => d.webhookId === hook?.id && d.event === 'budget.threshold'));
    const body = JSON.parse(deliveries[0]!.payload) as { event: string; data: { vault: string } };
    assert.equal(body.event, 'budget.threshold');
    assert.equal(body.data.vault, vault);

    const feed = await createLiveFeed({ storage: h.storage.storage }).listSince(0, vault);
    const alerts = feed.filter((e) => e.name === 'budget.threshold');
    assert.equal(alerts.length, 3);
    assert.equal(alerts[0]?.programEvent, null);
    assert.ok(
      feed.findIndex((e) => e.name === 'budget.threshold') >
        feed.findIndex((e) => e.signature === both && e.name === 'transaction.executed'),
      'the alert follows the transfer that caused it',
    );
  });

  test('an executed override crosses thresholds, and a new window re-arms them', async () => {
    const { vault } = await liveVault(10n * SOL, { budgetThresholds: [80, 100] });
    await spend(vault, 7n * SOL);
    const destination = randomAddress();
    const blocked = await h.fake.block(vault, {
      destination,
      amount: 5n * SOL,
      reason: 'exceeded_daily_limit',
    });
    const made = await h.fake.createOverride(vault, {
      destination,
      amount: 5n * SOL,
      nonce: blocked.overrideNonce!,
    });
    const approved = await h.fake.approveOverride(vault, made.nonce);
    const executed = await h.fake.executeApprovedOverride(vault, made.nonce);
    assert.equal(executed.err, null);
    await waitForSignatures(h.storage.storage, [
      blocked.signature,
      made.signature,
      approved.signature,
      executed.signature,
    ]);
    const first = await alertsOf(vault, 'budget.threshold');
    assert.deepEqual(
      first.map((a) => [a.data.threshold, a.signature, a.data.spentToday, a.data.remaining]),
      [
        [80, executed.signature, (12n * SOL).toString(), '0'],
        [100, executed.signature, (12n * SOL).toString(), '0'],
      ],
    );

    // A day later the program opens a new window at the next transfer's block time.
    h.fake.advanceTime(86_400);
    const next = await spend(vault, 9n * SOL);
    const again = (await alertsOf(vault, 'budget.threshold')).slice(2);
    assert.deepEqual(
      again.map((a) => [a.data.threshold, a.signature]),
      [[80, next]],
    );
    assert.equal(again[0]?.data.windowStart, new Date(h.blockTimeOf(next).getTime()).toISOString());
  });

  test('a restart that replays the whole history, and a second derivation of the same alert, send nothing twice', async () => {
    const { vault } = await liveVault(10n * SOL, { budgetThresholds: [80] });
    await spend(vault, 9n * SOL);
    assert.equal((await alertsOf(vault)).length, 1);
    await h.stop();
    // Forget the cursor: the next start backfills every signature again.
    await h.storage.storage.db.execute(sql`delete from chain_cursors`);
    await h.startLive();
    const after = await spend(vault, SOL / 2n);
    await waitForSignatures(h.storage.storage, [after]);
    assert.equal((await alertsOf(vault)).length, 1, 'still one alert after the replayed backfill');

    // The same transfer seen again (another process, a replay that reached the projection): the mark holds.
    const { writeIngestionAlerts } = await import('../../src/domain/alerts/ingestion-alerts.js');
    const row = await h.vaultRow(vault);
    const [first] = await alertsOf(vault);
    await h.storage.storage.db.transaction(async (tx) => {
      await writeIngestionAlerts(
        tx,
        [
          {
            vaultId: row.id,
            vault,
            authority: row.authority,
            signature: first!.signature!,
            slot: 1,
            at: new Date(T0 * 1000 + 60_000),
            amount: 9n * SOL,
            spentToday: 9n * SOL,
            dailyLimit: 10n * SOL,
            lastReset: new Date(T0 * 1000),
          },
        ],
        [],
      );
    });
    assert.equal((await alertsOf(vault)).length, 1);
  });
});

describe('alerts: velocity', () => {
  test('a burst of attempts (executed and blocked) sends one alert, then quiet for the window', async () => {
    const { vault } = await liveVault(100n * SOL, { velocity: { windowSeconds: 60, maxTransfers: 3 } });
    const signatures: string[] = [];
    for (let i = 0; i < 3; i += 1) signatures.push(await spend(vault, SOL));
    assert.deepEqual(await alertsOf(vault, 'agent.velocity'), [], 'three attempts are within the limit');
    const blocked = await h.fake.block(vault, { amount: SOL, reason: 'not_whitelisted' });
    await waitForSignatures(h.storage.storage, [blocked.signature]);
    const [alert] = await alertsOf(vault, 'agent.velocity');
    assert.ok(alert, 'the fourth attempt in 60 s trips it');
    assert.deepEqual(alert.data, {
      vault,
      agentSigner: (await h.vaultRow(vault)).agentSigner,
      windowSeconds: 60,
      maxTransfers: 3,
      count: 4,
      since: h.blockTimeOf(signatures[0]!).toISOString(),
    });
    assert.equal(alert.signature, blocked.signature);
    for (let i = 0; i < 5; i += 1) await spend(vault, SOL);
    assert.equal((await alertsOf(vault, 'agent.velocity')).length, 1, 'quiet while the window runs');

    h.fake.advanceTime(120);
    for (let i = 0; i < 4; i += 1) await spend(vault, SOL);
    assert.equal(
      (await alertsOf(vault, 'agent.velocity')).length,
      2,
      'a new burst after the window alerts again',
    );
  });
});

describe('alerts: override expiry', () => {
  test('expiring and expired are sent once each while two workers run the job', async () => {
    const { vault, authority } = await liveVault(SOL, { expiryWarningMinutes: 10 });
    await h.storage.storage.db.insert(webhooks).values({
      owner: authority,
      url: 'https://hooks.test/in',
      events: ['override.expiring', 'override.expired'],
      secret: 'whsec_x',
    });
    const blocked = await h.fake.block(vault, { amount: 2n * SOL, reason: 'exceeded_daily_limit' });
    await waitForSignatures(h.storage.storage, [blocked.signature]);
    const expiresAt = h.blockTimeOf(blocked.signature).getTime() + 3_600_000;

    // Two workers, each with its own database connection when the database allows several.
    const second =
      h.storage.config.kind === 'postgres' ? await createDatabase(h.storage.config) : h.storage.storage;
    try {
      const passes = async (at: number) => {
        const options = { now: new Date(at), publicBaseUrl: BASE_URL, limit: 1 };
        const written = await Promise.all([
          runExpiryAlerts(h.storage.storage.db, options),
          runExpiryAlerts(second.db, options),
          runExpiryAlerts(h.storage.storage.db, options),
          runExpiryAlerts(second.db, options),
        ]);
        return written.reduce((a, b) => a + b, 0);
      };
      assert.equal(await passes(expiresAt - 11 * 60_000), 0, 'more than 10 minutes left');
      assert.equal(await passes(expiresAt - 9 * 60_000 - 30_000), 1);
      assert.equal(await passes(expiresAt - 5 * 60_000), 0);
      const [expiring] = await alertsOf(vault, 'override.expiring');
      assert.equal(expiring?.data.minutesLeft, 10);
      assert.equal(expiring?.data.transferSignature, blocked.signature);
      assert.equal(expiring?.data.status, 'pending');
      assert.equal(expiring?.data.expired, false);

      assert.equal(await passes(expiresAt + 1_000), 1);
      assert.equal(await passes(expiresAt + 20_000), 0);
      const expired = await alertsOf(vault, 'override.expired');
      assert.equal(expired.length, 1);
      assert.equal(expired[0]?.data.expired, true);
      assert.equal('minutesLeft' in expired[0]!.data, false);
    } finally {
      if (second !== h.storage.storage) await second.close();
    }
    const deliveries = await h.storage.storage.db.select().from(webhookDeliveries);
    assert.deepEqual(deliveries.map((d) => d.event).sort(), ['override.expired', 'override.expiring']);
    const feed = await createLiveFeed({ storage: h.storage.storage }).listSince(0, vault);
    assert.deepEqual(
      feed.filter((e) => e.name.startsWith('override.exp')).map((e) => [e.name, e.signature, e.slot]),
      [
        ['override.expiring', null, null],
        ['override.expired', null, null],
      ],
    );
  });

  test('an override approved before its warning, or long expired when first seen, gets no alert', async () => {
    const { vault } = await liveVault(SOL, {});
    const destination = randomAddress();
    const blocked = await h.fake.block(vault, {
      destination,
      amount: 2n * SOL,
      reason: 'exceeded_daily_limit',
    });
    const made = await h.fake.createOverride(vault, {
      destination,
      amount: 2n * SOL,
      nonce: blocked.overrideNonce!,
    });
    const approved = await h.fake.approveOverride(vault, made.nonce);
    const old = await h.fake.block(vault, { amount: 3n * SOL, reason: 'exceeded_daily_limit' });
    await waitForSignatures(h.storage.storage, [
      blocked.signature,
      made.signature,
      approved.signature,
      old.signature,
    ]);
    const expiresAt = h.blockTimeOf(old.signature).getTime() + 3_600_000;
    const options = { now: new Date(expiresAt + 25 * 3_600_000), publicBaseUrl: BASE_URL };
    assert.equal(await runExpiryAlerts(h.storage.storage.db, options), 0);
    assert.deepEqual(await alertsOf(vault), []);
  });
});

describe('alerts: e-mail', () => {
  test('a mailto: subscription gets a plain mail for a crossed threshold', async () => {
    const sink = await createSmtpSink();
    fixtures.onCleanup(() => sink.close());
    const { vault, authority } = await liveVault(10n * SOL, { budgetThresholds: [80] });
    await h.storage.storage.db.insert(webhooks).values({
      owner: authority,
      url: 'mailto:owner@example.com',
      events: ['budget.threshold'],
      secret: 'whsec_x',
    });
    const crossing = await spend(vault, 9n * SOL);
    fixtures.startWorker({ SMTP_URL: sink.url, EMAIL_FROM: 'alerts@vk.example.com' });
    const mail = await waitFor(() => sink.messages[0], { message: 'the alert mail' });
    assert.deepEqual(mail.to, ['owner@example.com']);
    assert.match(mail.subject, /^\[Vaultkeeper\] 80 % of the daily limit spent: /);
    assert.match(mail.text, /Remaining: +1 SOL/);
    assert.ok(mail.text.includes(crossing), 'names the transfer');
    assert.ok(mail.html.includes('Spent in this window'));
  });
});
