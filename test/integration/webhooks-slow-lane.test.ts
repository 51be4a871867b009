// The slow lane: receivers that keep timing out are shed from the worker's slots, one send at a time,
// and a real owner's delivery is not held behind them; their deliveries stay queued, none is lost.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq, inArray, sql } from 'drizzle-orm';
import { claimDueDeliveries } from '../../src/jobs/delivery-claim.js';
import { defaultCaps, ownerCap, worthLevel } from '../../src/jobs/delivery-fairness.js';
import { SLOW_AFTER } from '../../src/jobs/receiver-health.js';
import { vaults, webhookAttempts, webhookDeliveries, webhooks } from '../../src/storage/schema/index.js';
import { randomAddress } from '../support/factories.js';
import { waitFor } from '../support/wait.js';
import { useWebhookFixtures } from '../support/webhooks.js';

const { db, receiver, startWorker, subscribe, emit } = useWebhookFixtures();

/** With 8 slots: an owner of a 60-day-old vault may hold 4 of them, and the slow lane has 1. */
const CONCURRENCY = 8;
const WAVE = CONCURRENCY;

describe('shares by worth', () => {
  test("the claim gives each owner the share its vaults' age or activity earn", async () => {
    const day = 86_400_000;
    const owners = [
      { label: 'new vault', vault: { oldestAgeDays: 0, executedTransfers: 0 } },
      { label: 'ten days old', vault: { oldestAgeDays: 10, executedTransfers: 0 } },
      { label: 'busy', vault: { oldestAgeDays: 0, executedTransfers: 1_000 } },
      { label: 'no vault', vault: null },
    ];
    const byWebhook = new Map<string, string>();
    for (const { label, vault } of owners) {
      const sub = await subscribe('http://127.0.0.1:9/hook');
      if (vault === null) {
        await db()
          .update(webhooks)
          .set({ vaultId: null, owner: randomAddress() })
          .where(eq(webhooks.id, sub.webhook.id));
        // Its vault goes after the subscription no longer refers to it (the reference cascades).
        await db().delete(vaults).where(eq(vaults.id, sub.vault.id));
      } else {
        const createdAt = new Date(Date.now() - vault.oldestAgeDays * day - 60_000);
        await db()
          .update(vaults)
          .set({ createdAt, executedCount: vault.executedTransfers })
          .where(eq(vaults.id, sub.vault.id));
      }
      await db()
        .insert(webhookDeliveries)
        .values({ webhookId: sub.webhook.id, event: 'webhook.test', payload: '{}' });
      byWebhook.set(sub.webhook.id, label);
    }
    const caps = defaultCaps(64);
    const claimed = await claimDueDeliveries(db(), {
      now: new Date(),
      limit: 10,
      leaseMs: 30_000,
      asyncCommit: false,
      caps,
    });
    const got = Object.fromEntries(
      claimed.map((c) => [byWebhook.get(c.webhookId), [c.ownsVault, c.ownerCap]]),
    );
    const want = Object.fromEntries(
      owners.map(({ label, vault }) => [label, [vault !== null, ownerCap(caps, worthLevel(vault))]]),
    );
    assert.deepEqual(got, want);
    assert.deepEqual(want, {
      'new vault': [true, 4],
      'ten days old': [true, 16],
      busy: [true, 32],
      'no vault': [false, 2],
    });
  });
});

describe('the slow lane', () => {
  test("receivers that never answer are shed to one slow send at a time, and a real owner's delivery goes out past them", {
    timeout: 60_000,
  }, async () => {
    const dead = await receiver({ responder: () => 'hang' });
    const alive = await receiver();
    // Two wallets whose vaults are worth the top share (old enough): together they fill every slot.
    const attackers = [await subscribe(dead.url), await subscribe(dead.url)];
    const old = new Date(Date.now() - 60 * 86_400_000);
    for (const a of attackers)
      await db().update(vaults).set({ createdAt: old }).where(eq(vaults.id, a.vault.id));
    for (const a of attackers) for (let i = 0; i < 10; i += 1) await emit(a);
    const owner = await subscribe(alive.url);
    // No retries within the test: every attacker attempt below is a first attempt.
    startWorker({ WEBHOOK_RETRY_SCHEDULE: '3600' }, { concurrency: CONCURRENCY });

    const attackerIds = attackers.map((a) => a.webhook.id);
    const attackerAttempts = () =>
      db()
        .select({
          startedAt: webhookAttempts.startedAt,
          durationMs: webhookAttempts.durationMs,
          error: webhookAttempts.error,
        })
        .from(webhookAttempts)
        .innerJoin(webhookDeliveries, eq(webhookDeliveries.id, webhookAttempts.deliveryId))
        .where(inArray(webhookDeliveries.webhookId, attackerIds))
        .orderBy(webhookAttempts.startedAt);
    // The first wave holds every slot until it times out: 4 timeouts each, past SLOW_AFTER.
    assert.ok(WAVE / attackers.length >= SLOW_AFTER);
    await waitFor(async () => (await attackerAttempts()).length >= WAVE, {
      message: 'the first wave timed out',
    });

    await emit(owner);
    await waitFor(() => alive.requests.length === 1, { message: "the owner's delivery" });
    const [ownerDelivery] = await db()
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhookId, owner.webhook.id));
    assert.equal(ownerDelivery!.attemptCount, 1);
    const ownerAttempt = await waitFor(async () => {
      const [row] = await db()
        .select()
        .from(webhookAttempts)
        .where(eq(webhookAttempts.deliveryId, ownerDelivery!.id));
      return row;
    });
    assert.equal(ownerAttempt.statusCode, 200);
    // Two more attacker sends after the owner's: how they follow each other shows the lane.
    const later = await waitFor(
      async () => {
        const rows = (await attackerAttempts()).filter((a) => a.startedAt > ownerAttempt.startedAt);
        return rows.length >= 2 ? rows : null;
      },
      { message: 'slow-lane sends' },
    );
    assert.ok(later.every((a) => a.error === 'timeout'));
    // One attacker send at a time, each starting after the previous one ended (without the slow
    // lane every wave takes all the slots again, its sends overlapping, and the owner waits for one).
    for (let i = 1; i < later.length; i += 1) {
      const previousEnd = later[i - 1]!.startedAt.getTime() + later[i - 1]!.durationMs;
      assert.ok(later[i]!.startedAt.getTime() >= previousEnd - 1, `slow send ${i} overlapped the one before`);
    }

    // Nothing of the attackers' is lost: every delivery is still pending (the timed-out ones wait
    // for their next scheduled attempt, the others for a slow-lane turn).
    const states = await db()
      .select({ status: webhookDeliveries.status, n: sql<number>`count(*)::int` })
      .from(webhookDeliveries)
      .where(inArray(webhookDeliveries.webhookId, attackerIds))
      .groupBy(webhookDeliveries.status);
    assert.deepEqual(states, [{ status: 'pending', n: 20 }]);
  });
});
