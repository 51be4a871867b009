// GET /api/vaults/:address/budget and /check against the fake validator: every rule of the program and
// its edges, judged by the cluster's Clock; bad input, unknown vaults and an RPC outage. Each request is
// a fresh chain read here (LIVE_ACCOUNTS=false); agent-live-accounts.test.ts proves the live answers equal these.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { FakeValidator } from '../../dev/validator/index.js';
import type { Database } from '../../src/storage/database.js';
import { overrides, type VaultRow } from '../../src/storage/schema/index.js';
import { createChainVault, useChainApp } from '../support/chain-app.js';
import { createOverride, createVault, randomAddress } from '../support/factories.js';

const SOL = 1_000_000_000n;
const T0 = 1_800_000_000; // the cluster's Clock (2027-01-15T08:00:00Z)
const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();

let db: Database;
let fv: FakeValidator;
let app: FastifyInstance;
/** The service's own clock: far from the cluster's, to show which one decides. */
let serverNowMs = Date.parse('2031-06-01T00:00:00.000Z');
let chainVault: Address;
let agentSigner: Address;
let vaultRow: VaultRow;

const chain = useChainApp({
  time: T0,
  clock: { now: () => new Date(serverNowMs) },
  env: { LIVE_ACCOUNTS: 'false' },
  async setUp() {
    ({ db, fv, app } = chain);
    const created = await createChainVault(chain, { dailyLimit: 10n * SOL, feeBasisPoints: 50 });
    ({ vault: chainVault, agentSigner, row: vaultRow } = created);
  },
});

/** A known starting state for each test: an open window, no whitelist, funded, not paused. */
beforeEach(() => {
  fv.setTime(T0);
  fv.setVaultState(chainVault, {
    dailyLimit: 10n * SOL,
    spentToday: 0n,
    lastReset: T0 - 3_600,
    whitelist: [],
    paused: false,
    feeBasisPoints: 50,
    agentSigner,
    balance: 20n * SOL,
  });
});

const getBudget = (vault: string = chainVault) => app.inject(`/api/vaults/${vault}/budget`);
const check = (query: Record<string, string>, vault: string = chainVault) =>
  app.inject({ url: `/api/vaults/${vault}/check`, query });
const json = (response: LightMyRequestResponse) => {
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
};

describe('GET /api/vaults/:address/budget', () => {
  test("reports the window, the remaining amount, the balance, the fee and the exact maxTransfer, as of the Clock's slot", async () => {
    fv.setVaultState(chainVault, { spentToday: 3n * SOL, balance: 4n * SOL });
    const response = await getBudget();
    assert.equal(response.headers['cache-control'], 'no-store');
    const body = json(response);
    const maxTransfer = BigInt(body.maxTransfer);
    const fits = (a: bigint) => a + (a * 50n) / 10_000n <= 4n * SOL;
    assert.ok(
      fits(maxTransfer) && !fits(maxTransfer + 1n),
      `maxTransfer ${maxTransfer} is the largest that fits`,
    );
    assert.deepEqual(body, {
      vault: chainVault,
      slot: fv.state.slot,
      asOf: iso(T0),
      paused: false,
      agentSigner,
      dailyLimit: (10n * SOL).toString(),
      spentToday: (3n * SOL).toString(),
      remaining: (7n * SOL).toString(),
      windowStart: iso(T0 - 3_600),
      resetsAt: iso(T0 - 3_600 + 86_400),
      balance: (4n * SOL).toString(),
      feeBasisPoints: 50,
      maxTransfer: '3980099503',
      whitelist: [],
      pendingApprovals: [],
      pendingApprovalsTotal: 0,
    });
  });

  test('is bounded by the remaining amount when the funds would allow more', async () => {
    fv.setVaultState(chainVault, { spentToday: 9n * SOL });
    const body = json(await getBudget());
    assert.equal(body.remaining, SOL.toString());
    assert.equal(body.maxTransfer, SOL.toString());
  });

  test('offers nothing while paused, and says so', async () => {
    fv.setVaultState(chainVault, { paused: true });
    const body = json(await getBudget());
    assert.equal(body.paused, true);
    assert.equal(body.maxTransfer, '0');
    assert.equal(body.remaining, (10n * SOL).toString(), 'the window itself is unchanged');
  });

  test("lists the pending overrides by the Clock's time, newest first, as the Override resource", async () => {
    serverNowMs = (T0 - 10 * 86_400) * 1000; // the service's clock would call every request open
    const at = (seconds: number) => new Date(seconds * 1000);
    const open = await createOverride(db, {
      vault: vaultRow,
      createdAt: at(T0 - 1_200),
      expiresAt: at(T0 + 2_400),
    });
    const newest = await createOverride(db, {
      vault: vaultRow,
      createdAt: at(T0 - 60),
      expiresAt: at(T0 + 3_540),
    });
    await createOverride(db, {
      vault: vaultRow,
      createdAt: at(T0 - 3_601),
      expiresAt: at(T0 - 1),
    }); // expired by the Clock
    await createOverride(db, {
      vault: vaultRow,
      status: 'approved',
      createdAt: at(T0 - 30),
      expiresAt: at(T0 + 3_570),
    });
    const other = await createVault(db);
    await createOverride(db, {
      vault: other,
      createdAt: at(T0),
      expiresAt: at(T0 + 3_600),
    });
    try {
      const body = json(await getBudget());
      assert.deepEqual(
        body.pendingApprovals.map((o: { id: string }) => o.id),
        [newest.id, open.id],
      );
      assert.equal(body.pendingApprovalsTotal, 2);
      const [first] = body.pendingApprovals;
      assert.equal(first.status, 'pending');
      assert.equal(first.expired, false);
      assert.equal(first.vault, chainVault);
      assert.match(first.blinkUrl, new RegExp(`/api/actions/${chainVault}/${newest.nonce}$`));
      const detail = await app.inject(`/api/overrides/${chainVault}/${newest.nonce}`);
      assert.deepEqual(Object.keys(first).sort(), Object.keys(detail.json()).sort(), 'the Override resource');
    } finally {
      serverNowMs = Date.parse('2031-06-01T00:00:00.000Z');
      await db.delete(overrides);
    }
  });

  test('lists at most 100 pending overrides and counts them all', async () => {
    const at = (seconds: number) => new Date(seconds * 1000);
    const rows = Array.from({ length: 101 }, (_, i) => ({
      vaultId: vaultRow.id,
      nonce: BigInt(1_000 + i),
      destination: randomAddress(),
      amount: SOL,
      createdAt: at(T0 - 600 + i),
      expiresAt: at(T0 + 3_000 + i),
    }));
    await db.insert(overrides).values(rows);
    try {
      const body = json(await getBudget());
      assert.equal(body.pendingApprovals.length, 100);
      assert.equal(body.pendingApprovalsTotal, 101);
      assert.equal(body.pendingApprovals[0].nonce, '1100', 'newest first');
    } finally {
      await db.delete(overrides);
    }
  });

  test('accepts the record uuid and answers with the vault address', async () => {
    assert.equal(json(await getBudget(vaultRow.id)).vault, chainVault);
  });
});

describe('the daily window, by the cluster’s Clock', () => {
  test('lapses when the Clock reaches last_reset + 24 h, whatever the service’s own clock says', async () => {
    fv.setVaultState(chainVault, { spentToday: 10n * SOL, lastReset: T0 - 86_399 });
    serverNowMs = (T0 + 30 * 86_400) * 1000; // past the window by the service's clock
    const running = json(await check({ destination: randomAddress(), amount: '1' }));
    assert.equal(running.verdict, 'blocked');
    assert.equal(running.reason, 'exceeded_daily_limit');
    const budget = json(await getBudget());
    assert.equal(budget.remaining, '0');
    assert.equal(budget.resetsAt, iso(T0 + 1));

    fv.setTime(T0 + 1); // exactly 86 400 s after last_reset by the Clock
    serverNowMs = (T0 - 30 * 86_400) * 1000; // inside the window by the service's clock
    const lapsed = json(await getBudget());
    assert.equal(lapsed.spentToday, '0');
    assert.equal(lapsed.remaining, (10n * SOL).toString());
    assert.equal(lapsed.windowStart, null);
    assert.equal(lapsed.resetsAt, null);
    assert.equal(lapsed.asOf, iso(T0 + 1));
    const allowed = json(await check({ destination: randomAddress(), amount: (10n * SOL).toString() }));
    assert.equal(allowed.verdict, 'allowed');
    assert.equal(allowed.remainingAfter, '0');
    serverNowMs = Date.parse('2031-06-01T00:00:00.000Z');
  });
});

describe('GET /api/vaults/:address/check', () => {
  test('allows a transfer within every rule, with its fee and what the window keeps after it', async () => {
    const response = await check({ destination: randomAddress(), amount: '1000000000' });
    assert.equal(response.headers['cache-control'], 'no-store');
    const body = json(response);
    assert.equal(body.verdict, 'allowed');
    assert.equal(body.reason, null);
    assert.equal(body.approval, 'none');
    assert.equal(body.fee, '5000000');
    assert.equal(body.remainingAfter, (9n * SOL).toString());
    assert.equal(body.slot, fv.state.slot);
    assert.equal(body.asOf, iso(T0));
  });

  test('rounds the fee down and needs the amount plus its fee at the funds boundary', async () => {
    fv.setVaultState(chainVault, { feeBasisPoints: 5, balance: 2_000n });
    const under = json(await check({ destination: randomAddress(), amount: '1999' }));
    assert.deepEqual([under.verdict, under.fee], ['allowed', '0']);
    const at = json(await check({ destination: randomAddress(), amount: '2000' }));
    assert.deepEqual(
      [at.verdict, at.reason, at.approval, at.fee, at.remainingAfter],
      ['blocked', 'insufficient_funds', 'none', '1', null],
    );
    assert.equal(json(await getBudget()).maxTransfer, '1999');
    fv.setVaultState(chainVault, { balance: 2_001n });
    assert.equal(json(await check({ destination: randomAddress(), amount: '2000' })).verdict, 'allowed');
    assert.equal(json(await getBudget()).maxTransfer, '2000');
  });

  test('lets any destination through an empty whitelist, and only listed ones through a non-empty one', async () => {
    const listed = randomAddress() as Address;
    assert.equal(json(await check({ destination: randomAddress(), amount: '1' })).verdict, 'allowed');
    fv.setVaultState(chainVault, { whitelist: [listed, randomAddress() as Address] });
    const other = json(await check({ destination: randomAddress(), amount: '1' }));
    assert.deepEqual(
      [other.verdict, other.reason, other.approval],
      ['blocked', 'not_whitelisted', 'possible'],
    );
    assert.equal(json(await check({ destination: listed, amount: '1' })).verdict, 'allowed');
    assert.equal(json(await getBudget()).whitelist[0], listed);
  });

  test('lets the window reach its limit exactly, and blocks one lamport past it with an approval possible', async () => {
    fv.setVaultState(chainVault, { spentToday: 4n * SOL });
    const exact = json(await check({ destination: randomAddress(), amount: (6n * SOL).toString() }));
    assert.deepEqual([exact.verdict, exact.remainingAfter], ['allowed', '0']);
    const over = json(await check({ destination: randomAddress(), amount: (6n * SOL + 1n).toString() }));
    assert.deepEqual(
      [over.verdict, over.reason, over.approval, over.remainingAfter],
      ['blocked', 'exceeded_daily_limit', 'possible', null],
    );
  });

  test('checks the whitelist before the limit and the limit before the funds, as the program does', async () => {
    fv.setVaultState(chainVault, {
      whitelist: [randomAddress() as Address],
      spentToday: 10n * SOL,
      balance: 0n,
    });
    assert.equal(json(await check({ destination: randomAddress(), amount: '5' })).reason, 'not_whitelisted');
    fv.setVaultState(chainVault, { whitelist: [] });
    assert.equal(
      json(await check({ destination: randomAddress(), amount: '5' })).reason,
      'exceeded_daily_limit',
    );
    fv.setVaultState(chainVault, { spentToday: 0n });
    assert.equal(
      json(await check({ destination: randomAddress(), amount: '5' })).reason,
      'insufficient_funds',
    );
  });

  test('refuses a paused vault’s transfers before any policy, with nothing to approve', async () => {
    fv.setVaultState(chainVault, { paused: true, whitelist: [randomAddress() as Address] });
    const body = json(await check({ destination: randomAddress(), amount: '1' }));
    assert.deepEqual([body.verdict, body.reason, body.approval], ['refused', 'vault_paused', 'none']);
  });

  test('refuses a signer that is not the vault’s agent (before a pause), and accepts the agent', async () => {
    const wrong = json(await check({ destination: randomAddress(), amount: '1', agent: randomAddress() }));
    assert.deepEqual([wrong.verdict, wrong.reason, wrong.approval], ['refused', 'wrong_agent', 'none']);
    assert.equal(
      json(await check({ destination: randomAddress(), amount: '1', agent: agentSigner })).verdict,
      'allowed',
    );
    fv.setVaultState(chainVault, { paused: true });
    assert.equal(
      json(await check({ destination: randomAddress(), amount: '1', agent: randomAddress() })).reason,
      'wrong_agent',
    );
  });

  test('accepts the largest u64 amount and judges it', async () => {
    const body = json(await check({ destination: randomAddress(), amount: '18446744073709551615' }));
    assert.deepEqual([body.verdict, body.reason], ['blocked', 'exceeded_daily_limit']);
  });
});

describe('errors', () => {
  test('answers 400 VALIDATION_ERROR naming the field for every bad input, without asking the chain', async () => {
    const destination = randomAddress();
    const cases: [string, string, string][] = [
      ['missing destination', '?amount=1', 'destination'],
      [
        'a destination that is not base58',
        `?destination=0OIl${destination.slice(4)}&amount=1`,
        'destination',
      ],
      ['a 31-byte destination', `?destination=${'1'.repeat(31)}&amount=1`, 'destination'],
      ['missing amount', `?destination=${destination}`, 'amount'],
      ['a zero amount', `?destination=${destination}&amount=0`, 'amount'],
      ['a negative amount', `?destination=${destination}&amount=-1`, 'amount'],
      ['a fractional amount', `?destination=${destination}&amount=1.5`, 'amount'],
      ['an exponent', `?destination=${destination}&amount=1e9`, 'amount'],
      ['words', `?destination=${destination}&amount=ten`, 'amount'],
      ['2^64', `?destination=${destination}&amount=18446744073709551616`, 'amount'],
      ['a repeated amount', `?destination=${destination}&amount=1&amount=2`, 'amount'],
      ['a malformed agent', `?destination=${destination}&amount=1&agent=xyz`, 'agent'],
      ['an unknown parameter', `?destination=${destination}&amount=1&fee=0`, 'fee'],
    ];
    fv.resetRpcRequests();
    for (const [name, query, field] of cases) {
      const response = await app.inject(`/api/vaults/${chainVault}/check${query}`);
      assert.equal(response.statusCode, 400, `${name}: ${response.body}`);
      const body = response.json();
      assert.equal(body.code, 'VALIDATION_ERROR', name);
      assert.ok(body.error.startsWith(`${field}: `), `${name}: ${body.error}`);
      assert.ok(
        body.details.issues.some((i: { path: string }) => i.path === `query.${field}`),
        `${name}: ${JSON.stringify(body.details)}`,
      );
    }
    for (const route of ['budget', `check?destination=${destination}&amount=1`]) {
      const response = await app.inject(`/api/vaults/not-a-vault/${route}`);
      assert.equal(response.statusCode, 400);
      assert.ok(response.json().error.startsWith('address: '), response.body);
    }
    assert.deepEqual(fv.rpcRequests(), []);
  });

  test('answers 404 VAULT_NOT_FOUND for a vault the service does not know, without asking the chain', async () => {
    fv.resetRpcRequests();
    const stranger = randomAddress();
    for (const response of [
      await getBudget(stranger),
      await check({ destination: stranger, amount: '1' }, stranger),
    ]) {
      assert.equal(response.statusCode, 404);
      assert.equal(response.json().code, 'VAULT_NOT_FOUND');
    }
    assert.deepEqual(fv.rpcRequests(), []);
  });

  test('answers 404 VAULT_NOT_FOUND when the chain has no vault account where the database has one', async () => {
    const gone = await createVault(db);
    const missing = await getBudget(gone.address);
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json().details, { vault: gone.address, reason: 'account_not_found' });
    const squatter = randomAddress() as Address;
    await fv.airdrop(squatter, SOL); // a plain system account, not the program's
    const impostor = await createVault(db, { address: squatter });
    const invalid = await check({ destination: squatter, amount: '1' }, impostor.address);
    assert.equal(invalid.statusCode, 404);
    assert.equal(invalid.json().details.reason, 'not_a_vault_account');
  });

  test('answers 503 RPC_UNAVAILABLE while the RPC is down, and recovers once it is back', async () => {
    fv.setOutage(true);
    try {
      for (const response of [
        await getBudget(),
        await check({ destination: randomAddress(), amount: '1' }),
      ]) {
        assert.equal(response.statusCode, 503);
        assert.equal(response.json().code, 'RPC_UNAVAILABLE');
      }
    } finally {
      fv.setOutage(false);
    }
    assert.equal((await getBudget()).statusCode, 200);
  });
});

test('spends from the read budget, not the analytics one', async () => {
  const limited = await chain.startApp({ RATE_LIMIT_ENABLED: 'true' });
  const check = `/api/vaults/${chainVault}/check?destination=${agentSigner}&amount=1`;
  for (const url of [`/api/vaults/${chainVault}/budget`, check]) {
    const response = await limited.inject(url);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['x-ratelimit-limit'], '100', url);
  }
});
