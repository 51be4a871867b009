import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { type RpcProxy, startRpcProxy } from '../../dev/support/rpc-proxy.js';
import { rpcEndpointLabel } from '../../src/chain/rpc-endpoints.js';
import { createLogCapture, type LogCapture } from '../support/app.js';
import { useIngestionHarness } from '../support/ingestion-harness.js';
import { waitFor, waitForSignatures } from '../support/wait.js';

// Providers put the API key in the path or the query: neither may reach a log line.
const KEY_PATH = '/v2/sk-live-4f9d2c7a1b';
const KEY_QUERY = '?api-key=hunter2-0c1d5e';
/** Requests already on the wire when the first 429 is sent still arrive just after it. */
const IN_FLIGHT_GRACE_MS = 250;

const h = useIngestionHarness();
let proxy: RpcProxy;
let logs: LogCapture;

beforeEach(async () => {
  proxy = await startRpcProxy({ rpcUrl: h.fake.rpcUrl });
  logs = createLogCapture();
});
afterEach(async () => {
  await h.stop();
  await proxy.close();
});

/** Starts the ingestor with the proxy as the preferred endpoint and the validator itself as the fallback. */
function startIngestor(preferredRecheckMs: number): void {
  h.start(
    {
      SOLANA_RPC_URL: `${proxy.httpBase}${KEY_PATH}${KEY_QUERY},${h.fake.rpcUrl}`,
      SOLANA_WS_URL: `${proxy.wsBase}${KEY_PATH}${KEY_QUERY},${h.fake.wsUrl}`,
      BACKFILL_INTERVAL_SECONDS: '1',
    },
    { logs, preferredRecheckMs },
  );
}

const preferred = () => rpcEndpointLabel(proxy.httpBase);
const fallback = () => rpcEndpointLabel(h.fake.rpcUrl);
const feedEndpoint = () => h.deps.roleStatus.ingestor.feedEndpoint;

/** Every program transaction on the ledger applied, and every transfer stored once. */
async function assertIngestedOnce(): Promise<void> {
  const expected = h.fake.ledger().map((e) => e.signature);
  await waitForSignatures(h.storage.storage, expected, 60_000);
  const [row] = await h.storage.storage.rows<{
    signatures: number;
    transfers: number;
    distinct_keys: number;
  }>(
    sql`select (select count(*)::int from chain_signatures) as signatures,
               count(*)::int as transfers,
               count(distinct (signature, event_index))::int as distinct_keys
        from transactions`,
  );
  assert.equal(row?.signatures, expected.length, 'each program signature applied once');
  assert.equal(row?.distinct_keys, row?.transfers, 'no transfer stored twice');
  const attempts = h.fake
    .ledger()
    .flatMap((e) =>
      e.events.filter((v) => v.name === 'TransactionExecuted' || v.name === 'TransactionBlocked'),
    );
  assert.equal(row?.transfers, attempts.length, 'every transfer attempt stored');
}

/** Requests that reached the proxy inside the Retry-After window of a 429 it had answered before them. */
function requestsInsideRetryAfter(retryAfterSeconds: number): { inside: number; afterGrace: number } {
  const refusals = proxy.requests.filter((r) => r.kind === 'http' && r.answered === 429).map((r) => r.at);
  let inside = 0;
  let afterGrace = 0;
  for (const request of proxy.requests) {
    const opened = refusals.filter((t) => t < request.at && request.at < t + retryAfterSeconds * 1000);
    if (opened.length === 0) continue;
    inside += 1;
    if (opened.some((t) => request.at > t + IN_FLIGHT_GRACE_MS)) afterGrace += 1;
  }
  return { inside, afterGrace };
}

/** Waits until the first Retry-After window has closed (the ingestor keeps reading meanwhile). */
async function waitForWindowEnd(retryAfterSeconds: number): Promise<void> {
  await waitFor(
    () => proxy.first429At !== null && performance.now() > proxy.first429At + retryAfterSeconds * 1000 + 500,
    { message: 'the Retry-After window closed', timeoutMs: 20_000 },
  );
}

async function rpcRequestCount(endpoint: string, outcome: string): Promise<number> {
  const metric = await h.deps.metrics.rpcRequests.get();
  const value = metric.values.find((v) => v.labels.endpoint === endpoint && v.labels.outcome === outcome);
  return value?.value ?? 0;
}

function assertNoKeyInLogs(): void {
  const leaks = logs.lines.filter((l) => l.includes(KEY_PATH) || l.includes('hunter2'));
  assert.deepEqual(leaks, [], 'no log line carries the RPC URL path or query');
}

describe('several RPC endpoints', () => {
  test('the preferred endpoint down from the start: every transaction ingested once through the next', async () => {
    await proxy.down();
    await h.fake.burst(150, { blockEvery: 9, perSlot: 3 });
    startIngestor(60_000);
    await waitFor(() => feedEndpoint() === fallback(), { message: 'feed on the fallback' });
    await h.fake.burst(150, { blockEvery: 9, perSlot: 3 });
    await assertIngestedOnce();
    assert.ok((await rpcRequestCount(preferred(), 'error')) >= 1, 'failures counted against the preferred');
    assert.ok((await rpcRequestCount(fallback(), 'ok')) >= 1, 'calls answered by the fallback');
    assertNoKeyInLogs();
  });

  test('the preferred endpoint answering 429 from the start: ingested once, Retry-After honoured', async (t) => {
    // Longer than the first cooldowns without Retry-After (1 s, 2 s), so ignoring it would show.
    const retryAfter = 4;
    proxy.rateLimit(retryAfter);
    await h.fake.burst(150, { blockEvery: 9, perSlot: 3 });
    startIngestor(60_000);
    await h.fake.burst(150, { blockEvery: 9, perSlot: 3 });
    await assertIngestedOnce();
    // Keep reading (backfill every second) until the first window has passed.
    await waitForWindowEnd(retryAfter);
    const { inside, afterGrace } = requestsInsideRetryAfter(retryAfter);
    t.diagnostic(
      `429 endpoint: ${proxy.requests.length} requests in all, ${inside} inside a Retry-After window (${afterGrace} later than ${IN_FLIGHT_GRACE_MS} ms after the 429)`,
    );
    assert.equal(afterGrace, 0, 'nothing sent to the endpoint while its Retry-After is open');
    assert.ok((await rpcRequestCount(preferred(), 'rate_limited')) >= 1);
    assertNoKeyInLogs();
  });

  test('the preferred endpoint goes down mid-stream: nothing lost, and the feed returns when it is back', async (t) => {
    startIngestor(200);
    await waitFor(() => feedEndpoint() === preferred(), { message: 'feed on the preferred endpoint' });
    const { vault } = await h.fake.burst(150, { blockEvery: 9, perSlot: 3 });
    await waitForSignatures(
      h.storage.storage,
      h.fake.ledger().map((e) => e.signature),
      30_000,
    );
    assert.ok(proxy.requests.length > 0, 'the preferred endpoint served the first part');

    const downAt = performance.now();
    await proxy.down();
    await h.fake.burst(150, { vault, blockEvery: 9, perSlot: 3 });
    await waitFor(() => feedEndpoint() === fallback(), { message: 'feed moved to the fallback' });
    const failoverMs = performance.now() - downAt;
    await assertIngestedOnce();

    const upAt = performance.now();
    await proxy.up();
    await waitFor(() => feedEndpoint() === preferred(), { message: 'feed back on the preferred endpoint' });
    const returnMs = performance.now() - upAt;
    const servedBefore = proxy.requests.length;
    await h.fake.burst(50, { vault, blockEvery: 9, perSlot: 3 });
    await assertIngestedOnce();
    assert.ok(proxy.requests.length > servedBefore, 'reads went back to the preferred endpoint');
    t.diagnostic(
      `feed failover ${Math.round(failoverMs)} ms; back on the preferred ${Math.round(returnMs)} ms after it returned`,
    );
    assertNoKeyInLogs();
  });

  test('the preferred endpoint starts answering 429 mid-stream: nothing lost, Retry-After honoured', async (t) => {
    const retryAfter = 3;
    startIngestor(60_000);
    await waitFor(() => feedEndpoint() === preferred(), { message: 'feed on the preferred endpoint' });
    const { vault } = await h.fake.burst(100, { blockEvery: 9, perSlot: 3 });
    await waitForSignatures(
      h.storage.storage,
      h.fake.ledger().map((e) => e.signature),
      30_000,
    );
    const before = proxy.requests.length;
    proxy.rateLimit(retryAfter);
    await h.fake.burst(200, { vault, blockEvery: 9, perSlot: 3 });
    await assertIngestedOnce();
    await waitForWindowEnd(retryAfter);
    const { inside, afterGrace } = requestsInsideRetryAfter(retryAfter);
    t.diagnostic(
      `429 endpoint: ${proxy.requests.length - before} requests since the 429s began, ${inside} inside a window (${afterGrace} later than ${IN_FLIGHT_GRACE_MS} ms after the 429)`,
    );
    assert.equal(afterGrace, 0, 'nothing sent to the endpoint while its Retry-After is open');
    assertNoKeyInLogs();
  });

  test('chain reads fail over too, and return to the preferred endpoint after its cooldown', async (t) => {
    startIngestor(60_000);
    await proxy.down();
    const started = performance.now();
    const slot = await h.deps.rpc.getSlot().send();
    const failoverMs = performance.now() - started;
    assert.ok(slot >= 0n);
    assert.ok(failoverMs < 1_000, `a refused connection moves on at once (${Math.round(failoverMs)} ms)`);
    t.diagnostic(`a read with the preferred endpoint down took ${failoverMs.toFixed(1)} ms`);
    const status = h.deps.rpcEndpoints.status();
    assert.equal(status[0]?.available, false);
    assert.equal(status[0]?.endpoint, preferred(), 'status names scheme and host only');
    await proxy.up();
    const served = proxy.requests.length;
    await waitFor(
      async () => {
        await h.deps.rpc.getSlot().send();
        return proxy.requests.length > served;
      },
      { message: 'a read on the preferred endpoint again', timeoutMs: 5_000, intervalMs: 100 },
    );
  });
});
