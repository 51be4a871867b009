// Live accounts never answer stale: once a vault's accounts are held by subscription, a budget or check
// needs no RPC call, and after any change on chain (a transfer, a policy change, the Clock passing the
// window) the live answer equals a fresh read's (same fields, slot not older) as soon as the notification
// lands; a seed never overwrites a newer notification; a dropped or silent connection means fresh reads
// (or 503), never an old answer; memory is bounded.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import type { FastifyInstance } from 'fastify';
import type { FakeValidator } from '../../dev/validator/index.js';
import { createChainVault, useChainApp } from '../support/chain-app.js';
import { randomAddress } from '../support/factories.js';
import { waitFor } from '../support/wait.js';

const SOL = 1_000_000_000n;
const T0 = 1_800_000_000;

let fv: FakeValidator;
/** Live accounts on (the default). */
let live: FastifyInstance;
/** The same service reading the chain afresh every time. */
let fresh: FastifyInstance;

const chain = useChainApp({
  time: T0,
  async setUp() {
    ({ fv, app: live } = chain);
    fresh = await chain.startApp({ LIVE_ACCOUNTS: 'false' });
  },
});

const createFundedVault = async () =>
  (await createChainVault(chain, { dailyLimit: 10n * SOL, feeBasisPoints: 50, deposit: 20n * SOL })).vault;

type Answer = Record<string, unknown> & { slot: number };

async function read(
  app: FastifyInstance,
  url: string,
): Promise<{ status: number; body: Answer; rpcCalls: number }> {
  fv.resetRpcRequests();
  const response = await app.inject(url);
  return { status: response.statusCode, body: response.json(), rpcCalls: fv.rpcRequests().length };
}

/** The live service's answer once it equals a fresh read's taken now, and came from memory (no RPC call). */
async function liveMatchesFresh(url: string, timeoutMs = 10_000): Promise<{ live: Answer; fresh: Answer }> {
  const expected = await read(fresh, url);
  assert.equal(expected.status, 200, JSON.stringify(expected.body));
  const { slot: freshSlot, ...freshFields } = expected.body;
  const answer = await waitFor(
    async () => {
      const got = await read(live, url);
      const { slot, ...fields } = got.body;
      if (got.rpcCalls > 0 || slot < freshSlot) return undefined;
      return JSON.stringify(fields) === JSON.stringify(freshFields) ? got.body : undefined;
    },
    { message: `the live answer of ${url} to equal a fresh read`, timeoutMs },
  );
  return { live: answer, fresh: expected.body };
}

describe('live accounts', () => {
  let vault: Address;
  const budgetUrl = () => `/api/vaults/${vault}/budget`;

  before(async () => {
    vault = await createFundedVault();
  });

  test('answer from memory once subscribed and seeded: no RPC call, the same answer as a fresh read', async () => {
    const first = await read(live, budgetUrl());
    assert.equal(first.status, 200);
    const { live: answer, fresh: expected } = await liveMatchesFresh(budgetUrl());
    assert.ok(answer.slot >= expected.slot);
    const check = `/api/vaults/${vault}/check?destination=${randomAddress()}&amount=1000`;
    await liveMatchesFresh(check);
  });

  test('follow every change on chain: a transfer, a policy change, a pause and the Clock passing the window', async () => {
    await liveMatchesFresh(budgetUrl());
    const changes: [string, () => Promise<unknown>, (b: Answer) => boolean][] = [
      [
        'an executed transfer',
        () => fv.execute(vault, { amount: 3n * SOL, enforcePolicy: true }),
        (b) => b.spentToday === (3n * SOL).toString(),
      ],
      [
        'a new daily limit',
        () => fv.updateDailyLimit(vault, 4n * SOL),
        (b) => b.remaining === SOL.toString(),
      ],
      [
        'a whitelist entry',
        () => fv.addToWhitelist(vault, randomAddress() as Address),
        (b) => (b.whitelist as unknown[]).length === 1,
      ],
      ['a pause', () => fv.pause(vault), (b) => b.paused === true && b.maxTransfer === '0'],
      ['a resume', () => fv.resume(vault), (b) => b.paused === false],
      [
        'the Clock passing the window',
        async () => fv.advanceTime(86_400),
        (b) => b.spentToday === '0' && b.resetsAt === null && b.remaining === (4n * SOL).toString(),
      ],
    ];
    for (const [what, change, expected] of changes) {
      await change();
      const { live: answer } = await liveMatchesFresh(budgetUrl());
      assert.ok(expected(answer), `${what}: ${JSON.stringify(answer)}`);
    }
    const check = await liveMatchesFresh(
      `/api/vaults/${vault}/check?destination=${randomAddress()}&amount=5000000000`,
    );
    assert.equal(check.live.reason, 'not_whitelisted');
  });

  test('never lets a seed overwrite a newer notification: a change made while the seed is in flight shows', async () => {
    const other = await createFundedVault();
    await liveMatchesFresh(budgetUrl()); // the connection is up
    fv.setLatency(1_500); // answers are computed on arrival, then held back
    try {
      const pending = read(live, `/api/vaults/${other}/budget`);
      // The seed has reached the node (and read the old state); now the chain moves on.
      await waitFor(() => fv.rpcRequests().some((r) => r.methods.includes('getMultipleAccounts')));
      const transfer = await fv.execute(other, { amount: 2n * SOL, enforcePolicy: true });
      const { body } = await pending;
      assert.equal(body.spentToday, (2n * SOL).toString(), JSON.stringify(body));
      assert.ok(
        body.slot >= transfer.slot,
        `slot ${body.slot} is not older than the transfer's ${transfer.slot}`,
      );
    } finally {
      fv.setLatency(0);
    }
    await liveMatchesFresh(`/api/vaults/${other}/budget`);
  });

  test('read fresh (503 while the RPC is down) once the connection drops, and are live and current again after', async () => {
    await liveMatchesFresh(budgetUrl());
    fv.setOutage(true);
    try {
      await waitFor(async () => (await read(live, budgetUrl())).status === 503, {
        message: 'the dropped connection to be noticed',
      });
      // While down the chain moves on; the live service must never answer the state it held.
      await fv.updateDailyLimit(vault, 7n * SOL);
      for (let i = 0; i < 5; i++) {
        const during = await read(live, budgetUrl());
        assert.equal(during.status, 503, JSON.stringify(during.body));
        assert.equal(during.body.code, 'RPC_UNAVAILABLE');
      }
    } finally {
      fv.setOutage(false);
    }
    // Reconnecting follows the feed's backoff, capped at 15 s.
    const { live: after } = await liveMatchesFresh(budgetUrl(), 30_000);
    assert.equal(after.dailyLimit, (7n * SOL).toString());
  });

  test('distrust a connection that went silent: a change whose notification was lost still shows', async () => {
    await liveMatchesFresh(budgetUrl());
    fv.setNotificationsEnabled(false); // the socket stays open; nothing arrives
    try {
      await fv.updateDailyLimit(vault, 9n * SOL);
      // Longer than the heartbeat (the validator makes a slot every 400 ms), with no read meanwhile.
      const silentFrom = fv.state.slot;
      await waitFor(() => fv.state.slot >= silentFrom + 15, { message: 'six seconds of slots' });
    } finally {
      fv.setNotificationsEnabled(true);
    }
    const after = await read(live, budgetUrl());
    assert.equal(after.body.dailyLimit, (9n * SOL).toString(), 'never the state held before the silence');
    await liveMatchesFresh(budgetUrl(), 30_000);
  });
});

test('hold at most LIVE_ACCOUNTS_MAX_VAULTS vaults (the least recently read is let go) and let idle ones go', async () => {
  const app = await chain.startApp({ LIVE_ACCOUNTS_MAX_VAULTS: '1', LIVE_ACCOUNTS_IDLE_SECONDS: '1' });
  const liveVaults = async () => {
    const text = (await app.inject('/metrics')).body;
    return Number(/vaultkeeper_in_process_entries\{structure="live_vaults"\} (\d+)/.exec(text)?.[1]);
  };
  const [a, b] = [await createFundedVault(), await createFundedVault()];
  await waitFor(async () => (await read(app, `/api/vaults/${a}/budget`)).rpcCalls === 0);
  assert.equal((await read(app, `/api/vaults/${b}/budget`)).status, 200);
  assert.equal(await liveVaults(), 1);
  const evicted = await read(app, `/api/vaults/${a}/budget`);
  assert.ok(evicted.rpcCalls > 0, 'a vault let go is read afresh');
  await waitFor(async () => (await liveVaults()) === 0, { message: 'the idle vault to be let go' });
});
