// What anonymous callers can make the service ask the Solana RPC (docs/BLINKS.md, "What one address can
// cost the RPC node"): the worst case of one client address, driven as hard as it can be.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { countRpcCalls } from '../../dev/validator/index.js';
import { vaultTag } from '../../src/cache/tags.js';
import { RATE_LIMITS } from '../../src/http/plugins/rate-limit.js';
import { randomAddress, randomSignature } from '../support/factories.js';
import { BLINKS_BASE_URL, type SeededOverride, seedOverride } from '../support/seeded-overrides.js';
import { useTestApps } from '../support/test-apps.js';
import { waitFor } from '../support/wait.js';

// Rate limits on, as anonymous callers meet them; the app's clock is the wall clock.
const apps = useTestApps({ chain: true, fileApp: true, env: { PUBLIC_BASE_URL: BLINKS_BASE_URL } });
beforeEach(() => apps.chain.setTime(Math.floor(Date.now() / 1000)));

const seed = () =>
  seedOverride({ fake: apps.chain, db: apps.db, nowMs: Date.now(), publicBaseUrl: BLINKS_BASE_URL });

/** The requests of one client address (to `target`, the shared app unless given). */
function clientOf(remoteAddress: string, target?: FastifyInstance) {
  const send = (options: InjectOptions) => (target ?? apps.app).inject({ ...options, remoteAddress });
  return {
    confirm: (r: SeededOverride, signature: string, account = r.owner.address) =>
      send({ method: 'POST', url: `${r.url}/approve/confirm`, payload: { account, signature } }),
    approve: (r: SeededOverride) =>
      send({ method: 'POST', url: `${r.url}/approve`, payload: { account: r.owner.address } }),
    preview: (r: SeededOverride, account = r.owner.address) =>
      send({ method: 'GET', url: `/api/overrides/${r.vault}/${r.nonce}/preview?account=${account}` }),
    realtime: (r: SeededOverride) => send({ method: 'GET', url: `/api/analytics/realtime?vault=${r.vault}` }),
    budget: (r: SeededOverride) => send({ method: 'GET', url: `/api/vaults/${r.vault}/budget` }),
    check: (r: SeededOverride) =>
      send({ method: 'GET', url: `/api/vaults/${r.vault}/check?destination=${r.vault}&amount=1` }),
  };
}

/** A 429 of the client's rate budget (not of a concurrency cap): its limit is the budget's. */
function isBudgetSpent(res: LightMyRequestResponse): boolean {
  return res.statusCode === 429 && res.json().details.limit === Number(res.headers['x-ratelimit-limit']);
}

/** Sends one request after another until the rate budget refuses one; the statuses. */
async function untilBudgetSpent(send: () => Promise<LightMyRequestResponse>): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < 1_000; i += 1) {
    const res = await send();
    statuses.push(res.statusCode);
    if (isBudgetSpent(res)) return statuses;
  }
  throw new Error('the rate budget never ran out');
}

/**
 * The most RPC calls of each method the requests of one client address can cause in one rate-limit window
 * (docs/BLINKS.md, What one address can cost the RPC node): a confirm at most 8 getSignatureStatuses and 8 getTransaction, 9 together; a preview
 * or an approve one simulation, two account reads, a fee estimate and a blockhash; a realtime analytics
 * read a balance and an account; a budget or check read one account read, on what the overall budget
 * leaves of the read budget once writes and analytics are spent.
 */
const WRITES = RATE_LIMITS.write;
const ANALYTICS = RATE_LIMITS.analytics;
const READS = Math.min(RATE_LIMITS.read, RATE_LIMITS.overall - WRITES - ANALYTICS);
const BOUND_BY_METHOD: Record<string, number> = {
  getSignatureStatuses: 8 * WRITES,
  getTransaction: 8 * WRITES,
  simulateTransaction: WRITES,
  getMultipleAccounts: 2 * WRITES + READS,
  getRecentPrioritizationFees: WRITES,
  getLatestBlockhash: WRITES,
  getBalance: ANALYTICS,
  getAccountInfo: ANALYTICS,
};
const BOUND = 9 * WRITES + 2 * ANALYTICS + READS;

describe('the RPC work one client address can cause', () => {
  test('driven past every budget with concurrent confirms, previews, approves, realtime, budget and check reads, one address stays within 290 RPC calls a window', async (t) => {
    assert.equal(BOUND, 290);
    const requests = [await seed(), await seed(), await seed()];
    // Signatures the cluster knows (failed blocked transfers): a confirm then reads the transaction.
    const landed = apps.chain
      .ledger()
      .filter((entry) => entry.err !== null)
      .map((entry) => entry.signature);
    const client = clientOf('198.51.100.77');
    const pick = <T>(list: readonly T[], i: number) => list[i % list.length]!;
    apps.chain.resetRpcRequests();
    let sent = 0;
    const worker = (send: (i: number) => Promise<LightMyRequestResponse>) =>
      untilBudgetSpent(() => send(sent++));
    const workers = [
      ...Array.from({ length: 8 }, () => worker((i) => client.confirm(pick(requests, i), randomSignature()))),
      ...Array.from({ length: 2 }, () => worker((i) => client.confirm(pick(requests, i), pick(landed, i)))),
      ...Array.from({ length: 6 }, () => worker((i) => client.preview(pick(requests, i)))),
      ...Array.from({ length: 2 }, () => worker((i) => client.approve(pick(requests, i)))),
      ...Array.from({ length: 4 }, () => worker((i) => client.realtime(pick(requests, i)))),
      ...Array.from({ length: 2 }, () => worker((i) => client.budget(pick(requests, i)))),
      ...Array.from({ length: 2 }, () => worker((i) => client.check(pick(requests, i)))),
    ];
    const statuses = (await Promise.all(workers)).flat();
    // Past the budget: nothing more reaches the node.
    const late = await Promise.all([
      client.confirm(requests[0]!, randomSignature()),
      client.preview(requests[0]!),
      client.approve(requests[0]!),
      client.realtime(requests[0]!),
      client.budget(requests[0]!),
    ]);
    assert.deepEqual(
      late.map((res) => res.statusCode),
      [429, 429, 429, 429, 429],
    );

    const calls = countRpcCalls(apps.chain.rpcRequests());
    const total = Object.values(calls).reduce((sum, n) => sum + n, 0);
    t.diagnostic(`RPC calls: ${JSON.stringify(calls)}, ${total} in all; ${statuses.length} requests`);
    for (const [method, count] of Object.entries(calls)) {
      assert.ok(method in BOUND_BY_METHOD, `${method} is not a call an anonymous request makes`);
      assert.ok(
        count <= BOUND_BY_METHOD[method]!,
        `${method}: ${count} calls, at most ${BOUND_BY_METHOD[method]}`,
      );
    }
    assert.ok(total <= BOUND, `${total} RPC calls, at most ${BOUND}`);
  });
});

/** The failed blocked transfer of a request: a signature the cluster knows, whose confirm reads it. */
const blockedSignatureOf = (r: SeededOverride) =>
  apps.chain
    .ledger()
    .find(
      (entry) =>
        entry.err !== null &&
        entry.events.some((e) => 'data' in e && 'vault' in e.data && e.data.vault === r.vault),
    )!.signature;

/** Resolves once the app holds `count` slots of approval work of this kind (its in-process gauge). */
const whenHeld = (
  kind: 'approval_confirms' | 'approval_simulations',
  count: number,
  of = apps.deps.metrics,
) => waitFor(() => of.inProcessSizes.get(kind)?.() === count, { message: `${count} ${kind} held` });

async function rejections(category: string, of = apps.deps.metrics): Promise<number> {
  const { values } = await of.rateLimitRejections.get();
  return values.find((v) => v.labels.category === category)?.value ?? 0;
}

describe('who may start RPC work', () => {
  test('a confirm, preview or approve naming anyone but the vault authority, or a malformed signature, is refused before any RPC call', async () => {
    const r = await seed();
    const client = clientOf('198.51.100.10');
    apps.chain.resetRpcRequests();
    const stranger = randomAddress();
    const confirm = await client.confirm(r, randomSignature(), stranger);
    assert.equal(confirm.statusCode, 403, confirm.body);
    assert.equal(confirm.json().code, 'FORBIDDEN');
    assert.equal(confirm.json().message, confirm.json().error);
    assert.equal((await client.confirm(r, 'not-a-signature')).statusCode, 400);
    assert.equal((await client.preview(r, stranger)).statusCode, 403);
    const approve = await apps.app.inject({
      method: 'POST',
      url: `${r.url}/approve`,
      payload: { account: stranger },
      remoteAddress: '198.51.100.10',
    });
    assert.equal(approve.statusCode, 403);
    assert.deepEqual(apps.chain.rpcRequests(), []);
  });

  test('a preview spends the write budget, as approve does', async () => {
    const r = await seed();
    const client = clientOf('198.51.100.12');
    for (let i = 0; i < WRITES; i += 1) {
      const res = await client.preview(r);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['x-ratelimit-limit'], String(WRITES));
      assert.equal(res.headers['x-ratelimit-remaining'], String(WRITES - 1 - i));
    }
    assert.ok(isBudgetSpent(await client.preview(r)));
    assert.ok(isBudgetSpent(await client.approve(r)));
  });
});

describe('concurrency caps', () => {
  test('one client address has at most 2 confirms waiting at once: a third is 429 with Retry-After; another address is unaffected', async () => {
    const r = await seed();
    const signature = blockedSignatureOf(r);
    const client = clientOf('198.51.100.11');
    apps.chain.resetRpcRequests();
    apps.chain.setLatency(1_500);
    const refusedBefore = await rejections('approval_confirms');
    const waiting = [client.confirm(r, signature), client.confirm(r, signature)];
    await whenHeld('approval_confirms', 2);
    const third = await client.confirm(r, signature);
    assert.equal(third.statusCode, 429, third.body);
    assert.equal(third.headers['retry-after'], '2');
    assert.deepEqual(third.json().details, { limit: 2, retryAfter: 2 });
    assert.match(
      third.json().message,
      /At most 2 approval confirmations waiting for the cluster at once per client address/,
    );
    assert.equal(await rejections('approval_confirms'), refusedBefore + 1);
    const elsewhere = clientOf('203.0.113.11').confirm(r, signature);
    for (const res of await Promise.all([...waiting, elsewhere])) {
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().code, 'TRANSACTION_FAILED');
    }
    // The slots are free again.
    apps.chain.setLatency(0);
    assert.equal((await client.confirm(r, signature)).statusCode, 422);
  });

  test('simulations: 2 at once per client address and APPROVAL_MAX_SIMULATIONS in all; refusals counted', async () => {
    const { app: capped, deps } = await apps.start({
      cache: apps.deps.cache,
      env: { APPROVAL_MAX_SIMULATIONS: '3' },
    });
    const requests = [await seed(), await seed(), await seed()];
    const [a, b, c] = ['198.51.100.13', '203.0.113.13', '192.0.2.13'].map((ip) => clientOf(ip, capped));
    apps.chain.resetRpcRequests();
    apps.chain.setLatency(1_500);
    const running = [a!.preview(requests[0]!), a!.preview(requests[1]!)];
    await whenHeld('approval_simulations', 2, deps.metrics);
    const own = await a!.preview(requests[2]!);
    assert.equal(own.statusCode, 429, own.body);
    assert.equal(own.headers['retry-after'], '1');
    assert.deepEqual(own.json().details, { limit: 2, retryAfter: 1 });
    running.push(b!.approve(requests[2]!));
    await whenHeld('approval_simulations', 3, deps.metrics);
    const full = await c!.preview(requests[2]!);
    assert.equal(full.statusCode, 429, full.body);
    assert.deepEqual(full.json().details, { limit: 3, retryAfter: 1 });
    assert.match(
      full.json().error,
      /The service has as many approval transactions being simulated at once as it allows/,
    );
    assert.deepEqual(
      (await Promise.all(running)).map((res) => res.statusCode),
      [200, 200, 200],
    );
    assert.equal(await rejections('approval_simulations', deps.metrics), 2);
  });
});

describe('preview reuse', () => {
  test('identical previews share one simulation while it runs and for a few seconds after; another request, or an event about the vault, simulates again', async () => {
    const [r1, r2] = [await seed(), await seed()];
    const client = clientOf('198.51.100.14');
    apps.chain.resetRpcRequests();
    const simulations = () => countRpcCalls(apps.chain.rpcRequests()).simulateTransaction ?? 0;
    const [first, second] = await Promise.all([client.preview(r1), client.preview(r1)]);
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(second.json(), first.json());
    assert.equal(simulations(), 1);
    assert.deepEqual((await client.preview(r1)).json(), first.json());
    assert.equal(simulations(), 1);
    // Never another request's preview: its own simulation, paying its own destination.
    const other = (await client.preview(r2)).json();
    assert.equal(simulations(), 2);
    const destinationOf = (p: { balanceChanges: { role: string; address: string }[] }) =>
      p.balanceChanges.find((b) => b.role === 'destination')?.address;
    assert.equal(destinationOf(first.json()), r1.destination);
    assert.equal(destinationOf(other), r2.destination);
    // Ingesting an event about the vault evicts its tag, and with it the reused preview.
    await apps.deps.cache.deleteByTag(vaultTag(r1.vault));
    assert.equal((await client.preview(r1)).statusCode, 200);
    assert.equal(simulations(), 3);
  });
});
