// SIGKILL during delivery loses nothing: a real worker process is killed with requests in flight,
// and another worker sends every delivery again once the dead one's leases run out (same ids).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { createWebhookReceiver, type WebhookReceiver } from '../../dev/support/webhook-receiver.js';
import type { DatabaseConfig } from '../../src/config.js';
import { enqueueWebhookEvent } from '../../src/domain/webhooks/outbox.js';
import { generateWebhookSecret } from '../../src/domain/webhooks/signatures.js';
import { WEBHOOK_EVENTS } from '../../src/domain/webhooks/webhook-events.js';
import { defaultLeaseMs, runDeliveryWorker } from '../../src/jobs/worker.js';
import { createDatabase, type Storage } from '../../src/storage/database.js';
import { webhookAttempts, webhookDeliveries, webhooks } from '../../src/storage/schema/index.js';
import { createTestDeps } from '../support/app.js';
import { createTestStorage, type TestStorage } from '../support/database.js';
import { createVault } from '../support/factories.js';
import { startService } from '../support/service-process.js';
import { waitFor } from '../support/wait.js';

const TIMEOUT_MS = 30_000;
const COUNT = 10;
const usePostgres = /^postgres(ql)?:/.test(process.env.DATABASE_URL ?? '');

let receiver: WebhookReceiver;
let shared: TestStorage | null = null;
let dataDir: string | null = null;

/** The database the child process will use: a fresh PostgreSQL database, or a PGlite directory. */
async function openStorage(): Promise<{ storage: Storage; config: DatabaseConfig }> {
  if (usePostgres) {
    shared ??= await createTestStorage();
    return { storage: shared.storage, config: shared.config };
  }
  dataDir ??= mkdtempSync(join(tmpdir(), 'vk-crash-'));
  const config: DatabaseConfig = { kind: 'pglite', dataDir };
  return { storage: await createDatabase(config), config };
}

before(async () => {
  receiver = await createWebhookReceiver({ responder: () => 'hang' });
});
after(async () => {
  await receiver.close();
  await shared?.close();
  if (dataDir !== null) rmSync(dataDir, { recursive: true, force: true });
});

test('deliveries in flight when the worker process is SIGKILLed are sent again with the same ids', async () => {
  const { storage, config } = await openStorage();
  // Indexed 60 days ago: its owner's share of slots holds every delivery in flight at once.
  const vault = await createVault(storage.db, { createdAt: new Date(Date.now() - 60 * 86_400_000) });
  const [webhook] = await storage.db
    .insert(webhooks)
    .values({
      owner: vault.authority,
      vaultId: vault.id,
      url: receiver.url,
      events: [...WEBHOOK_EVENTS],
      secret: generateWebhookSecret(),
    })
    .returning();
  for (let i = 0; i < COUNT; i += 1) {
    await enqueueWebhookEvent(storage.db, {
      event: 'vault.paused',
      vaultId: vault.id,
      authority: vault.authority,
      timestamp: new Date().toISOString(),
      data: { vault: vault.address, n: i },
      dedupeKey: `crash:${i}`,
    });
  }
  // PGlite is single-process: hand the directory over to the child.
  if (!usePostgres) await storage.close();

  const child = await startService(
    {
      ROLES: 'worker',
      ...(config.kind === 'postgres' ? { DATABASE_URL: config.url } : { DATA_DIR: dataDir! }),
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      LOG_LEVEL: 'warn',
    },
    { waitForListen: false },
  );
  try {
    await waitFor(() => receiver.requests.length === COUNT, {
      timeoutMs: 60_000,
      message: 'every delivery in flight',
    });
  } finally {
    child.child.kill('SIGKILL');
    assert.equal((await child.exited).signal, 'SIGKILL');
  }

  const after = usePostgres ? storage : (await openStorage()).storage;
  try {
    const inFlight = await after.db.select().from(webhookDeliveries);
    assert.equal(inFlight.length, COUNT);
    for (const row of inFlight) {
      assert.equal(row.status, 'pending');
      assert.equal(row.attemptCount, 1);
      assert.ok(row.lockedUntil !== null && row.lockedUntil.getTime() > Date.now(), 'no lease was held');
    }

    // Another worker, its clock past the dead worker's leases.
    receiver.respond(() => ({ status: 200 }));
    const leaseMs = defaultLeaseMs(TIMEOUT_MS);
    const deps = createTestDeps({
      storage: after,
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT_MS: '5000' },
      clock: { now: () => new Date(Date.now() + leaseMs + 1_000) },
    });
    const controller = new AbortController();
    const running = runDeliveryWorker(deps, controller.signal, { pollIntervalMs: 25 });
    try {
      await waitFor(
        async () => {
          const rows = await after.db.select().from(webhookDeliveries);
          return rows.every((r) => r.status === 'succeeded');
        },
        { timeoutMs: 20_000, message: 'every delivery sent again' },
      );
    } finally {
      controller.abort();
      await running;
    }
    const ids = inFlight.map((r) => r.id).sort();
    const perId = new Map<string, number>();
    for (const request of receiver.requests) {
      const id = String(request.headers['webhook-id']);
      perId.set(id, (perId.get(id) ?? 0) + 1);
      assert.equal(JSON.parse(request.body).id, id);
    }
    assert.deepEqual([...perId.keys()].sort(), ids);
    assert.ok(
      [...perId.values()].every((n) => n === 2),
      'each delivery: once before the kill, once after',
    );
    const attempts = await after.db.select().from(webhookAttempts).where(eq(webhookAttempts.statusCode, 200));
    assert.deepEqual(new Set(attempts.map((a) => a.attempt)), new Set([2]));
    assert.equal(attempts.length, COUNT);
    assert.equal(webhook!.active, true);
  } finally {
    if (!usePostgres) await after.close();
  }
});
