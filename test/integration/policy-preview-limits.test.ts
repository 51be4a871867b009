// The policy preview's bounds: a vault's attempts are read once per data version and every preview of
// that version replays them from memory (the same answer as a fresh read); a written attempt is seen at
// once; concurrent reads of attempts are capped per client (429 with Retry-After in the envelope, other
// clients unaffected); garbage bodies and addresses are 4xx, never 5xx.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createPolicyPreviewService, createPreviewReadCap } from '../../src/domain/policy/policy-preview.js';
import type { PolicyPreviewBody } from '../../src/domain/policy/policy-preview-resource.js';
import { AppError } from '../../src/errors.js';
import { createMetrics } from '../../src/lib/metrics.js';
import type { VaultRow } from '../../src/storage/schema/index.js';
import { createTransaction, createVault, randomAddress } from '../support/factories.js';
import { useTestApps } from '../support/test-apps.js';

const SOL = 1_000_000_000n;
const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-27T12:00:00.000Z');
const clock = { now: () => new Date(NOW) };
const world = useTestApps({ clock, fileApp: true });
const holder = (clientKey: string) => ({ clientKey, networkKey: clientKey });
const newService = () =>
  createPolicyPreviewService({ storage: world.storage, clock, metrics: createMetrics() });

/** A vault of `count` executed 4 SOL transfers, one an hour, ending an hour ago, under a 10 SOL limit. */
async function busyVault(count: number): Promise<VaultRow> {
  const vault = await createVault(world.db, { dailyLimit: 10n * SOL });
  for (let i = 0; i < count; i++) {
    await createTransaction(world.db, {
      vault,
      timestamp: new Date(NOW - (count - i) * HOUR),
      destination: i % 2 === 0 ? randomAddress() : vault.address,
      amount: 4n * SOL,
    });
  }
  return vault;
}

describe('policy preview limits', () => {
  test('previews of one data version share one read of the attempts, with the answer of a fresh read', async () => {
    const vault = await busyVault(30);
    const service = newService();
    const first = await service.preview(vault.address, { dailyLimit: '5000000000' }, holder('a'));
    const second = await service.preview(vault.address, { dailyLimit: '3000000000' }, holder('b'));
    const narrower = await service.preview(
      vault.address,
      { whitelist: [vault.address], since: new Date(NOW - 10 * HOUR).toISOString() },
      holder('c'),
    );
    assert.equal(service.attemptReads(), 1);
    assert.equal(first.summary.attempts, 30);
    assert.equal(second.summary.newlyBlocked, 30);
    assert.equal(narrower.summary.attempts, 10);
    // A service that holds nothing yet reads the table and answers the same.
    for (const [body, held] of [
      [{ dailyLimit: '5000000000' }, first],
      [{ dailyLimit: '3000000000' }, second],
      [{ whitelist: [vault.address], since: new Date(NOW - 10 * HOUR).toISOString() }, narrower],
    ] as [PolicyPreviewBody, unknown][]) {
      assert.deepEqual(await newService().preview(vault.address, body, holder('d')), held);
    }
  });

  test('an attempt the ingestor writes is in the next preview; a row written around it is not', async () => {
    const vault = await busyVault(3);
    const service = newService();
    const body = { dailyLimit: '20000000000' };
    assert.equal((await service.preview(vault.address, body, holder('a'))).summary.attempts, 3);
    // A row that moves none of the vault's counters is no attempt the ingestor wrote: the held attempts stand.
    await world.db.execute(sql`
      insert into transactions (vault_id, signature, event_index, destination, amount, status, timestamp)
      values (${vault.id}, 'raw-row', 0, ${vault.address}, 1, 'executed', ${new Date(NOW - HOUR / 2).toISOString()})`);
    assert.equal((await service.preview(vault.address, body, holder('a'))).summary.attempts, 3);
    assert.equal(service.attemptReads(), 1);
    const written = await createTransaction(world.db, {
      vault,
      timestamp: new Date(NOW - HOUR / 4),
      destination: vault.address,
      amount: 9n * SOL,
    });
    const after = await service.preview(vault.address, { dailyLimit: '5000000000' }, holder('a'));
    assert.equal(service.attemptReads(), 2);
    assert.equal(after.summary.attempts, 5);
    assert.equal(after.changes.at(-1)?.signature, written.signature);
    assert.equal(after.changes.at(-1)?.would, 'blocked');
  });

  test('a client holding its read slot is refused a read with RATE_LIMIT_EXCEEDED; held attempts need no slot', async () => {
    const [held, cold] = [await busyVault(2), await busyVault(2)];
    const reads = createPreviewReadCap(createMetrics());
    const service = createPolicyPreviewService({
      storage: world.storage,
      clock,
      metrics: createMetrics(),
      reads,
    });
    const body = { whitelist: [] };
    await service.preview(held.address, body, holder('x'));
    // Client x is in the middle of a read (its one slot taken): another read is refused, not queued.
    const release = reads.acquire(holder('x'));
    const refused = await service.preview(cold.address, body, holder('x')).catch((e: unknown) => e);
    assert.ok(refused instanceof AppError);
    assert.equal(refused.code, 'RATE_LIMIT_EXCEEDED');
    assert.match(refused.message, /policy previews reading transfer history/);
    assert.deepEqual(refused.details, { limit: 1, retryAfter: 1 });
    // What is held is served to x all the same, and another client reads the cold vault.
    assert.equal((await service.preview(held.address, body, holder('x'))).summary.attempts, 2);
    assert.equal((await service.preview(cold.address, body, holder('y'))).summary.attempts, 2);
    release();
    assert.equal(service.attemptReads(), 2);
  });

  test('garbage bodies, content types and addresses are 4xx in the error envelope, never 5xx', async () => {
    const vault = await busyVault(1);
    const url = `/api/vaults/${vault.address}/policy-preview`;
    const bodies: { payload: string; type?: string }[] = [
      { payload: '' },
      { payload: '{' },
      { payload: 'null' },
      { payload: '[]' },
      { payload: '"dailyLimit"' },
      { payload: '12' },
      { payload: '{"dailyLimit":null}' },
      { payload: '{"dailyLimit":-1}' },
      { payload: '{"dailyLimit":1.5}' },
      { payload: '{"dailyLimit":1e400}' },
      { payload: '{"dailyLimit":"0x10"}' },
      { payload: '{"dailyLimit":{"$gt":0}}' },
      { payload: `{"dailyLimit":"${'9'.repeat(5000)}"}` },
      { payload: '{"whitelist":"all"}' },
      { payload: '{"whitelist":[null]}' },
      { payload: `{"whitelist":[${'"x",'.repeat(5000)}"x"]}` },
      { payload: '{"whitelist":[],"since":"2026-02-30T00:00:00Z"}' },
      { payload: '{"whitelist":[],"since":1}' },
      { payload: '{"__proto__":{"dailyLimit":1}}' },
      { payload: '{"constructor":{"prototype":{}}}' },
      { payload: 'dailyLimit=1', type: 'application/x-www-form-urlencoded' },
      { payload: '{"dailyLimit":1}', type: 'text/plain' },
      { payload: '\u0000\u0001\u0002', type: 'application/octet-stream' },
    ];
    for (const { payload, type = 'application/json' } of bodies) {
      const response = await world.app.inject({
        method: 'POST',
        url,
        payload,
        headers: { 'content-type': type },
      });
      assert.ok(
        response.statusCode >= 400 && response.statusCode < 500,
        `${response.statusCode} for ${payload.slice(0, 40)}`,
      );
      assert.equal(typeof response.json().code, 'string', payload.slice(0, 40));
    }
    for (const address of ['x', 'O0Il'.repeat(11), '%00', 'a'.repeat(500), '..%2F..%2Fetc']) {
      const response = await world.app.inject({
        method: 'POST',
        url: `/api/vaults/${address}/policy-preview`,
        payload: { whitelist: [] },
      });
      assert.ok(
        response.statusCode >= 400 && response.statusCode < 500,
        `${response.statusCode} for ${address}`,
      );
    }
  });
});
