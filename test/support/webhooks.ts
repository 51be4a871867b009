// Webhook test fixtures over one test database: subscriptions, events through the outbox, workers
// and receivers that are cleaned up after each test.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterEach } from 'node:test';
import { asc, eq } from 'drizzle-orm';
import { createWebhookReceiver, type WebhookReceiver } from '../../dev/support/webhook-receiver.js';
import type { AppDeps } from '../../src/app-deps.js';
import { enqueueWebhookEvent } from '../../src/domain/webhooks/outbox.js';
import { generateWebhookSecret } from '../../src/domain/webhooks/signatures.js';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../src/domain/webhooks/webhook-events.js';
import { runDeliveryWorker } from '../../src/jobs/worker.js';
import {
  type DeliveryStatus,
  type WebhookRow,
  webhookAttempts,
  webhookDeliveries,
  webhooks,
} from '../../src/storage/schema/index.js';
import { createTestDeps } from './app.js';
import type { TestStorage } from './database.js';
import { createVault, randomAddress } from './factories.js';
import { type TestAppOptions, useTestApps } from './test-apps.js';
import { waitFor } from './wait.js';

/** Receivers live on 127.0.0.1; retries are fast. */
export const WORKER_ENV = {
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '0.05,0.1',
  WEBHOOK_TIMEOUT_MS: '2000',
};

export interface Subscription {
  webhook: WebhookRow;
  vault: { id: string; address: string; authority: string };
  secret: string;
}

export function createWebhookFixtures(storage: () => Pick<TestStorage, 'storage' | 'reset'>) {
  const cleanups: (() => Promise<unknown>)[] = [];
  const db = () => storage().storage.db;
  const deliveries = () => db().select().from(webhookDeliveries).orderBy(asc(webhookDeliveries.createdAt));
  const stop = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };

  return {
    db,
    deliveries,

    /** Stops workers and receivers of the test, then empties the database. */
    async cleanup(): Promise<void> {
      await stop();
      await storage().reset();
    },

    /** Stops workers and receivers of the test. */
    stop,

    /** Runs after the test, before the database is emptied. */
    onCleanup(cleanup: () => Promise<unknown>): void {
      cleanups.push(cleanup);
    },

    async receiver(options: Parameters<typeof createWebhookReceiver>[0] = {}): Promise<WebhookReceiver> {
      const created = await createWebhookReceiver(options);
      cleanups.push(() => created.close());
      return created;
    },

    /** The worker role as main runs it, stopped after the test. */
    startWorker(env: Record<string, string> = {}, options: { concurrency?: number } = {}): { deps: AppDeps } {
      const deps = createTestDeps({ storage: storage().storage, env: { ...WORKER_ENV, ...env } });
      const controller = new AbortController();
      const done = runDeliveryWorker(deps, controller.signal, { pollIntervalMs: 25, ...options });
      cleanups.push(async () => {
        controller.abort();
        await done;
      });
      return { deps };
    },

    /** A vault and a subscription to all of its events. */
    async subscribe(url: string, fields: Partial<typeof webhooks.$inferInsert> = {}): Promise<Subscription> {
      const vault = await createVault(db());
      const secret = generateWebhookSecret();
      const [webhook] = await db()
        .insert(webhooks)
        .values({
          owner: vault.authority,
          vaultId: vault.id,
          url,
          events: [...WEBHOOK_EVENTS],
          secret,
          ...fields,
        })
        .returning();
      return { webhook: webhook!, vault, secret };
    },

    /** An event committed through the outbox, as the ingestor does (a transaction.blocked by default). */
    async emit(
      sub: Subscription,
      event: WebhookEvent = 'transaction.blocked',
      data?: Record<string, unknown>,
    ) {
      const written = await db().transaction((tx) =>
        enqueueWebhookEvent(tx, {
          event,
          vaultId: sub.vault.id,
          authority: sub.vault.authority,
          timestamp: new Date().toISOString(),
          data: data ?? {
            vault: sub.vault.address,
            destination: randomAddress(),
            amount: '1500000000',
            blockReason: 'exceeded_daily_limit',
            blinkUrl: `https://vk.example.com/api/actions/${sub.vault.address}/1`,
            approvalUrl: `https://vk.example.com/overrides/${sub.vault.address}/1`,
            signature: null,
          },
          dedupeKey: randomUUID(),
        }),
      );
      assert.equal(written, 1);
    },

    attemptsOf(deliveryId: string) {
      return db()
        .select()
        .from(webhookAttempts)
        .where(eq(webhookAttempts.deliveryId, deliveryId))
        .orderBy(asc(webhookAttempts.attempt));
    },

    /** Waits until exactly `count` deliveries exist and all have `status`. */
    async settled(count: number, status: DeliveryStatus = 'succeeded', timeoutMs = 15_000) {
      return waitFor(
        async () => {
          const rows = await deliveries();
          return rows.length === count && rows.every((r) => r.status === status) ? rows : null;
        },
        { timeoutMs, message: `${count} deliveries ${status}` },
      );
    },

    async webhookRow(id: string): Promise<WebhookRow> {
      const [row] = await db().select().from(webhooks).where(eq(webhooks.id, id));
      return row!;
    },
  };
}

/**
 * The webhook world of a test file: its database and apps (useTestApps: emptied before each test, apps
 * closed after it) and the fixtures above, whose workers and receivers stop after each test.
 * Call it at the top of a file, outside describe.
 */
export function useWebhookFixtures(defaults: TestAppOptions = {}) {
  const apps = useTestApps(defaults);
  const fixtures = createWebhookFixtures(() => ({ storage: apps.storage, reset: async () => {} }));
  afterEach(() => fixtures.stop());
  return { apps, ...fixtures };
}
