import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { type FakeGrpc, startFakeGrpc } from '../../dev/grpc/server.js';
import { countRpcCalls } from '../../dev/validator/index.js';
import { randomAddress } from '../../dev/validator/scenarios.js';
import type { IngestorOptions } from '../../src/chain/ingestor.js';
import { createDatabaseChainStatus } from '../../src/domain/health/chain-status-store.js';
import { createLogCapture, type LogCapture } from '../support/app.js';
import { SOL, useIngestionHarness } from '../support/ingestion-harness.js';
import { waitFor, waitForSignatures } from '../support/wait.js';

const h = useIngestionHarness();
let grpc: FakeGrpc;
beforeEach(async () => {
  grpc = await startFakeGrpc(h.fake, { pingMs: 100 });
});
afterEach(async () => {
  await h.stop();
  await grpc.close();
});

// A stall is judged after 2 s of silence (the fake pings every 100 ms), so a loaded machine's pauses are not stalls.
const FAST: IngestorOptions = { grpcPingMs: 200, grpcStallMs: 2_000 };

/** Starts the ingestor on the gRPC source and waits until its first backfill is done (nothing to read). */
async function startOnGrpc(env: Record<string, string> = {}): Promise<LogCapture> {
  const logs = createLogCapture();
  // No timed backfill during a test: what fills a gap must be the replay (or the backfill it asks for).
  h.start({ SOLANA_GRPC_URL: grpc.url, BACKFILL_INTERVAL_SECONDS: '86400', ...env }, { ...FAST, logs });
  if (process.env.DEBUG_GRPC_TEST)
    process.on('exit', () =>
      console.error(logs.lines.filter((l) => /gRPC|WebSocket|backfill done|failed/.test(l)).join('\n')),
    );
  // The stream asks for a backfill when it connects (whatever landed before it): wait for one that ended
  // after the stream came up, so no backfill of the start-up overlaps what the test does next.
  await waitFor(
    () => {
      const up = logs.lines.findIndex((l) => l.includes('gRPC stream up on'));
      return up >= 0 && logs.lines.slice(up).some((l) => l.includes('"msg":"backfill done"'));
    },
    { message: 'a backfill done after the gRPC stream came up' },
  );
  await waitFor(() => h.deps.roleStatus.ingestor.feedSource === 'grpc', { message: 'gRPC stream up' });
  h.fake.resetRpcRequests();
  return logs;
}

const getTransactionCalls = () => countRpcCalls(h.fake.rpcRequests()).getTransaction ?? 0;
const ledgerSignatures = () => h.fake.ledger().map((entry) => entry.signature);

/** Every program signature applied once, every transfer attempt stored once, the vault's counters agree. */
async function assertMatchesLedger(): Promise<void> {
  await waitForSignatures(h.storage.storage, ledgerSignatures(), 60_000);
  const ledger = h.fake.ledger();
  const applied = await h.storage.storage.rows<{ signature: string }>(
    sql`select signature from chain_signatures`,
  );
  assert.deepEqual(new Set(applied.map((r) => r.signature)), new Set(ledgerSignatures()));
  const executed = ledger
    .filter((e) => e.err === null)
    .flatMap((e) => e.events.filter((v) => v.name === 'TransactionExecuted'));
  const blocked = ledger.flatMap((e) => e.events.filter((v) => v.name === 'TransactionBlocked'));
  const [counts] = await h.storage.storage.rows<{
    executed: number;
    blocked: number;
    keys: number;
    total: number;
  }>(sql`
    select count(*) filter (where status = 'executed')::int as executed,
           count(*) filter (where status = 'blocked')::int as blocked,
           count(distinct (signature, event_index))::int as keys, count(*)::int as total
    from transactions`);
  assert.equal(counts?.executed, executed.length, 'executed transfers');
  assert.equal(counts?.blocked, blocked.length, 'blocked attempts');
  assert.equal(counts?.keys, counts?.total, 'no transfer stored twice');
  const [events] = await h.storage.storage.rows<{ keys: number; total: number }>(
    sql`select count(distinct (signature, event_index))::int as keys, count(*)::int as total from chain_events`,
  );
  assert.equal(events?.keys, events?.total, 'no event stored twice');
}

describe('ingestion from a Yellowstone gRPC stream', () => {
  test('every event kind, and a blocked transfer from a failed transaction, ingested with no getTransaction call', async () => {
    await startOnGrpc();
    const created = await h.fake.createVault({ dailyLimit: 5n * SOL });
    await h.fake.deposit(created.vault, 20n * SOL);
    await h.fake.execute(created.vault, { amount: SOL });
    const destination = randomAddress();
    const blocked = await h.fake.block(created.vault, {
      destination,
      amount: 9n * SOL,
      reason: 'exceeded_daily_limit',
    });
    assert.notEqual(blocked.err, null, 'the blocked transfer is a failed transaction');
    const made = await h.fake.createOverride(created.vault, {
      destination,
      amount: 9n * SOL,
      nonce: blocked.overrideNonce ?? 0n,
    });
    await h.fake.approveOverride(created.vault, made.nonce);
    await h.fake.executeApprovedOverride(created.vault, made.nonce);
    await h.fake.updateDailyLimit(created.vault, 6n * SOL);
    const friend = randomAddress();
    await h.fake.addToWhitelist(created.vault, friend);
    await h.fake.removeFromWhitelist(created.vault, friend);
    await h.fake.updateAgentSigner(created.vault, randomAddress());
    await h.fake.pause(created.vault);
    await h.fake.resume(created.vault);
    await waitForSignatures(h.storage.storage, ledgerSignatures());

    assert.equal(getTransactionCalls(), 0, 'no getTransaction: the stream carried every transaction');
    assert.equal(
      countRpcCalls(h.fake.rpcRequests()).getBlockTime ?? 0,
      0,
      'block times came with the block metas',
    );
    const names = await h.storage.storage.rows<{ name: string }>(sql`select distinct name from chain_events`);
    const stored = new Set(names.map((r) => r.name));
    const emitted = new Set(h.fake.ledger().flatMap((e) => e.events.map((v) => v.name)));
    for (const name of emitted) assert.ok(stored.has(name), `${name} stored`);
    assert.ok(stored.has('TransactionBlocked') && stored.has('TransactionExecuted'));
    const [row] = await h.storage.storage.rows<{ status: string; block_reason: string }>(
      sql`select status, block_reason from transactions where signature = ${blocked.signature}`,
    );
    assert.deepEqual(row, { status: 'blocked', block_reason: 'exceeded_daily_limit' });
    const [timed] = await h.storage.storage.rows<{ block_time: Date }>(
      sql`select block_time from chain_events where signature = ${blocked.signature}`,
    );
    assert.equal(
      new Date(timed?.block_time ?? 0).getTime(),
      h.blockTimeOf(blocked.signature).getTime(),
      'block time from the block meta',
    );
    const vault = await h.vaultRow(created.vault);
    assert.equal(vault.paused, false);

    const [request] = grpc.requests();
    assert.deepEqual(
      Object.values(request?.transactions ?? {}).map((f) => [f.accountInclude, f.vote, f.failed]),
      [[[h.fake.programId], false, true]],
    );
    assert.equal(request?.commitment, 1, 'confirmed');
    assert.ok(
      Object.keys(request?.blocksMeta ?? {}).length === 1 && Object.keys(request?.slots ?? {}).length === 1,
    );
    await waitFor(() => grpc.pingsReceived() >= 2, { message: 'pings answered and sent' });
    const health = await createDatabaseChainStatus({ storage: h.storage.storage, cluster: 'devnet' }).get();
    assert.equal(health.source, 'grpc');
  });

  test('a dropped and a stalled stream resume from the last committed slot: nothing missed, nothing doubled', async () => {
    await startOnGrpc();
    const { vault } = await h.fake.burst(150, { blockEvery: 7, perSlot: 3 });
    // A slot committed from the stream is what a resubscription names: on a loaded machine the drop could
    // otherwise come before the first commit, and the stream would rightly resubscribe without fromSlot
    // and backfill from the stored cursor instead (the next test's path).
    await waitForSignatures(h.storage.storage, ledgerSignatures());
    const firstResumed = grpc.requests().length;
    grpc.dropStreams();
    await h.fake.burst(150, { vault, blockEvery: 7, perSlot: 3 });
    await waitFor(() => grpc.requests().length >= firstResumed + 1, {
      message: 'resubscribed after the drop',
    });
    grpc.stallStreams();
    await h.fake.burst(150, { vault, blockEvery: 7, perSlot: 3 });
    await waitFor(() => grpc.requests().length >= firstResumed + 2, {
      message: 'resubscribed after the stall',
    });
    await h.fake.burst(50, { vault, blockEvery: 7, perSlot: 3 });
    await assertMatchesLedger();
    const resumed = grpc.requests().slice(firstResumed);
    assert.ok(resumed.length >= 2);
    assert.ok(
      resumed.every((r) => r.fromSlot !== undefined),
      'every resubscription names fromSlot',
    );
    assert.equal(getTransactionCalls(), 0, 'replay, not getTransaction, filled the gaps');
  });

  test('a provider that refuses fromSlot: the backfill reads the gap from the stored cursor, logged once', async () => {
    grpc.setRefuseFromSlot(true);
    const logs = await startOnGrpc();
    const { vault } = await h.fake.burst(60, { blockEvery: 5 });
    for (let drop = 1; drop <= 2; drop++) {
      // The live stream has completed a slot since it came up: there is a slot to offer.
      await h.fake.burst(5, { vault });
      await waitForSignatures(h.storage.storage, ledgerSignatures());
      const before = grpc.requests().length;
      grpc.dropStreams();
      await h.fake.burst(60, { vault, blockEvery: 5 });
      // Refused with fromSlot, then accepted without it.
      await waitFor(() => grpc.requests().length >= before + 2 && grpc.streams() === 1, {
        message: `resubscribed after drop ${drop}`,
      });
      const [offered, live] = grpc.requests().slice(before);
      assert.ok(offered?.fromSlot !== undefined && live?.fromSlot === undefined);
    }
    await assertMatchesLedger();
    const refusals = logs.lines.filter((l) => l.includes('refused fromSlot') && l.includes('"level":"warn"'));
    assert.equal(refusals.length, 1, 'logged once');
    assert.ok(getTransactionCalls() > 0, 'the backfill read what the stream could not replay');
  });

  test('gRPC unreachable: the WebSocket source takes over within GRPC_FALLBACK_MS, and hands back; nothing lost', async () => {
    await startOnGrpc({ GRPC_FALLBACK_MS: '500' });
    const { vault } = await h.fake.burst(40, { blockEvery: 4 });
    grpc.setOutage(true);
    const downAt = Date.now();
    await h.fake.burst(40, { vault, blockEvery: 4 });
    await waitFor(() => h.deps.roleStatus.ingestor.feedSource === 'websocket', {
      message: 'WebSocket source up',
    });
    assert.ok(Date.now() - downAt < 500 + 5_000, 'failover soon after GRPC_FALLBACK_MS');
    await h.fake.burst(40, { vault, blockEvery: 4 });
    await waitForSignatures(h.storage.storage, ledgerSignatures());
    const health = await createDatabaseChainStatus({ storage: h.storage.storage, cluster: 'devnet' }).get();
    assert.equal(health.source, 'websocket');
    grpc.setOutage(false);
    await waitFor(
      () => h.deps.roleStatus.ingestor.feedSource === 'grpc' && h.deps.roleStatus.ingestor.feedConnected,
      {
        message: 'gRPC source back',
      },
    );
    await h.fake.burst(40, { vault, blockEvery: 4 });
    await assertMatchesLedger();
  });
});
