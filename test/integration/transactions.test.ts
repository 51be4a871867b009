import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Cache, createMemoryCache } from '../../src/cache/index.js';
import { evictVaults } from '../../src/cache/tags.js';
import {
  createOverride,
  createTransaction,
  createVault,
  executePendingTransaction,
  randomAddress,
  randomSignature,
} from '../support/factories.js';
import { getJson, useTestApps } from '../support/test-apps.js';

const BASE = 'https://vk.example';
const apps = useTestApps({ env: { PUBLIC_BASE_URL: BASE } });
const start = (options: { cache?: Cache; env?: Record<string, string> } = {}) => apps.start(options);

const at = (iso: string) => new Date(iso);
const ids = (body: { transactions: { id: string }[] }) => body.transactions.map((t) => t.id);

/** One transaction of each kind in one vault, oldest first. */
async function seedKinds() {
  const vault = await createVault(apps.db);
  const override = await createOverride(apps.db, { vault, nonce: 7n });
  const approved = await createOverride(apps.db, { vault, nonce: 8n, status: 'approved' });
  const executed = await createTransaction(apps.db, {
    vault,
    status: 'executed',
    amount: 1_500_000_000n,
    feeCollected: 1_500_000n,
    timestamp: at('2026-11-20T10:00:00.000Z'),
  });
  const blockedWithOverride = await createTransaction(apps.db, {
    vault,
    status: 'blocked',
    amount: 20_000_000_000n,
    blockReason: 'exceeded_daily_limit',
    override,
    timestamp: at('2026-11-20T11:00:00.000Z'),
  });
  const blockedAlone = await createTransaction(apps.db, {
    vault,
    status: 'blocked',
    amount: 3n,
    blockReason: 'not_whitelisted',
    timestamp: at('2026-11-20T12:00:00.000Z'),
  });
  const pending = await createTransaction(apps.db, {
    vault,
    status: 'pending',
    amount: 2_000_000_000n,
    override: approved,
    timestamp: at('2026-11-20T13:00:00.000Z'),
  });
  return { vault, override, executed, blockedWithOverride, blockedAlone, pending };
}

describe('GET /api/transactions', () => {
  test('shows each kind with exactly the fields that apply to it', async () => {
    const { app } = await start();
    const { vault, executed, blockedWithOverride, blockedAlone, pending } = await seedKinds();
    const { status, headers, body } = await getJson(app, `/api/transactions?vault=${vault.address}`);
    assert.equal(status, 200);
    assert.equal(headers['cache-control'], 'public, max-age=30');
    assert.deepEqual(body, {
      transactions: [
        {
          id: pending.id,
          signature: null,
          vault: vault.address,
          destination: pending.destination,
          amount: '2000000000',
          status: 'pending',
          blockReason: null,
          timestamp: '2026-11-20T13:00:00.000Z',
          commitment: 'confirmed',
        },
        {
          id: blockedAlone.id,
          signature: null,
          vault: vault.address,
          destination: blockedAlone.destination,
          amount: '3',
          status: 'blocked',
          blockReason: 'not_whitelisted',
          timestamp: '2026-11-20T12:00:00.000Z',
          commitment: 'confirmed',
        },
        {
          id: blockedWithOverride.id,
          signature: null,
          vault: vault.address,
          destination: blockedWithOverride.destination,
          amount: '20000000000',
          status: 'blocked',
          blockReason: 'exceeded_daily_limit',
          timestamp: '2026-11-20T11:00:00.000Z',
          commitment: 'confirmed',
          blinkUrl: `${BASE}/api/actions/${vault.address}/7`,
        },
        {
          id: executed.id,
          signature: executed.signature,
          vault: vault.address,
          destination: executed.destination,
          amount: '1500000000',
          status: 'executed',
          blockReason: null,
          timestamp: '2026-11-20T10:00:00.000Z',
          commitment: 'confirmed',
          feeCollected: '1500000',
        },
      ],
      pagination: { page: 1, limit: 50, total: 4, pages: 1 },
    });
  });

  test('orders newest first, then by id descending, across vaults', async () => {
    const { app } = await start();
    const a = await createVault(apps.db);
    const b = await createVault(apps.db);
    const same = at('2026-11-21T00:00:00.000Z');
    const older = await createTransaction(apps.db, {
      vault: a,
      timestamp: at('2026-11-20T00:00:00.000Z'),
    });
    const tieA = await createTransaction(apps.db, { vault: a, timestamp: same });
    const tieB = await createTransaction(apps.db, { vault: b, timestamp: same });
    const newest = await createTransaction(apps.db, {
      vault: b,
      timestamp: at('2026-11-22T00:00:00.000Z'),
    });
    const ties = [tieA.id, tieB.id].sort().reverse();
    const { body } = await getJson(app, '/api/transactions');
    assert.deepEqual(ids(body), [newest.id, ...ties, older.id]);
    assert.deepEqual(body.pagination, { page: 1, limit: 50, total: 4, pages: 1 });
  });

  test('filters by vault, by status, and by both, with totals that match', async () => {
    const { app } = await start();
    const { vault, executed, blockedWithOverride, blockedAlone, pending } = await seedKinds();
    const other = await createVault(apps.db);
    const otherExecuted = await createTransaction(apps.db, {
      vault: other,
      timestamp: at('2026-11-19T00:00:00.000Z'),
    });

    const cases: [string, string[]][] = [
      [`status=executed`, [executed.id, otherExecuted.id]],
      [`status=blocked`, [blockedAlone.id, blockedWithOverride.id]],
      [`status=pending`, [pending.id]],
      [`vault=${other.address}`, [otherExecuted.id]],
      [`vault=${vault.address}&status=blocked`, [blockedAlone.id, blockedWithOverride.id]],
      [`vault=${vault.address}&status=pending`, [pending.id]],
      [`vault=${other.address}&status=blocked`, []],
      ['', [pending.id, blockedAlone.id, blockedWithOverride.id, executed.id, otherExecuted.id]],
    ];
    for (const [query, expected] of cases) {
      const { status, body } = await getJson(app, `/api/transactions?${query}`);
      assert.equal(status, 200, query);
      assert.deepEqual(ids(body), expected, query);
      assert.equal(body.pagination.total, expected.length, query);
      assert.equal(body.pagination.pages, expected.length === 0 ? 0 : 1, query);
      for (const item of body.transactions) {
        if (query.includes('status=')) assert.equal(item.status, query.split('status=')[1]);
      }
    }
  });

  test('pages through a vault: page arithmetic, the last partial page, and pages past the end', async () => {
    const { app } = await start();
    const vault = await createVault(apps.db);
    const created = [];
    for (let i = 0; i < 7; i += 1) {
      created.push(
        await createTransaction(apps.db, { vault, timestamp: new Date(Date.UTC(2026, 10, 1, i)) }),
      );
    }
    const newestFirst = created.reverse().map((t) => t.id);
    const seen = [];
    for (let page = 1; page <= 3; page += 1) {
      const { body } = await getJson(app, `/api/transactions?vault=${vault.address}&page=${page}&limit=3`);
      assert.deepEqual(body.pagination, { page, limit: 3, total: 7, pages: 3 });
      seen.push(...ids(body));
    }
    assert.deepEqual(seen, newestFirst);
    const past = await getJson(app, `/api/transactions?vault=${vault.address}&page=9&limit=3`);
    assert.deepEqual(past.body, { transactions: [], pagination: { page: 9, limit: 3, total: 7, pages: 3 } });
    const one = await getJson(app, `/api/transactions?vault=${vault.address}&limit=1`);
    assert.deepEqual(one.body.pagination, { page: 1, limit: 1, total: 7, pages: 7 });
  });

  test('pages past the first with every filter combination, in the same order as one long page', async () => {
    const { app } = await start();
    const { vault } = await seedKinds();
    const other = await createVault(apps.db);
    for (let i = 0; i < 3; i += 1) {
      await createTransaction(apps.db, {
        vault: other,
        timestamp: new Date(Date.UTC(2026, 10, 19, i)),
      });
    }
    for (const filter of [
      '',
      'status=executed',
      `vault=${vault.address}`,
      `vault=${vault.address}&status=blocked`,
    ]) {
      const whole = ids((await getJson(app, `/api/transactions?${filter}&limit=100`)).body);
      const paged = [];
      for (let page = 1; page <= whole.length; page += 1) {
        paged.push(...ids((await getJson(app, `/api/transactions?${filter}&page=${page}&limit=1`)).body));
      }
      assert.ok(whole.length >= 2, filter);
      assert.deepEqual(paged, whole, filter);
    }
  });

  test('answers VAULT_NOT_FOUND when filtering by an unknown vault', async () => {
    const { app } = await start();
    const address = randomAddress();
    const { status, body } = await getJson(app, `/api/transactions?vault=${address}`);
    assert.equal(status, 404);
    assert.deepEqual(body, {
      error: 'Vault not found',
      code: 'VAULT_NOT_FOUND',
      details: { vault: address },
    });
  });

  for (const [query, path] of [
    ['status=failed', 'query.status'],
    ['status=EXECUTED', 'query.status'],
    ['vault=abc', 'query.vault'],
    ['page=two', 'query.page'],
    ['page=-1', 'query.page'],
    ['limit=1000', 'query.limit'],
    ['limit=2.5', 'query.limit'],
    ['signature=x', 'query.signature'],
  ] as const) {
    test(`rejects ?${query} with VALIDATION_ERROR naming ${path}`, async () => {
      const { app } = await start();
      const { status, body } = await getJson(app, `/api/transactions?${query}`);
      assert.equal(status, 400);
      assert.equal(body.code, 'VALIDATION_ERROR');
      assert.ok(body.details.issues.length >= 1);
      for (const issue of body.details.issues) assert.equal(issue.path, path);
    });
  }
});

describe('GET /api/transactions/:key', () => {
  test('returns an executed transfer with its signature and explorerUrl', async () => {
    const { app } = await start();
    const { vault, executed } = await seedKinds();
    const { status, headers, body } = await getJson(app, `/api/transactions/${executed.signature}`);
    assert.equal(status, 200);
    assert.equal(headers['cache-control'], 'public, max-age=30');
    assert.deepEqual(body, {
      id: executed.id,
      signature: executed.signature,
      vault: vault.address,
      destination: executed.destination,
      amount: '1500000000',
      status: 'executed',
      blockReason: null,
      timestamp: '2026-11-20T10:00:00.000Z',
      commitment: 'confirmed',
      feeCollected: '1500000',
      explorerUrl: `https://explorer.solana.com/tx/${executed.signature}?cluster=devnet`,
    });
  });

  test('returns a blocked attempt with its signature, block reason and Blink, without a fee', async () => {
    const { app } = await start();
    const { vault, blockedWithOverride } = await seedKinds();
    const { body } = await getJson(app, `/api/transactions/${blockedWithOverride.signature}`);
    assert.deepEqual(body, {
      id: blockedWithOverride.id,
      signature: blockedWithOverride.signature,
      vault: vault.address,
      destination: blockedWithOverride.destination,
      amount: '20000000000',
      status: 'blocked',
      blockReason: 'exceeded_daily_limit',
      timestamp: '2026-11-20T11:00:00.000Z',
      commitment: 'confirmed',
      blinkUrl: `${BASE}/api/actions/${vault.address}/7`,
      explorerUrl: `https://explorer.solana.com/tx/${blockedWithOverride.signature}?cluster=devnet`,
    });
  });

  test("opens every list item by its id: a blocked one with its attempt's signature, a pending one without", async () => {
    const { app } = await start();
    const { vault, blockedWithOverride, pending, executed } = await seedKinds();
    const list = (await getJson(app, `/api/transactions?vault=${vault.address}`)).body;
    const item = (id: string) => list.transactions.find((t: { id: string }) => t.id === id);
    assert.equal(item(blockedWithOverride.id).signature, null, 'the list rule stays');

    const blocked = await getJson(app, `/api/transactions/${blockedWithOverride.id}`);
    assert.equal(blocked.status, 200);
    assert.deepEqual(blocked.body, {
      ...item(blockedWithOverride.id),
      signature: blockedWithOverride.signature,
      explorerUrl: `https://explorer.solana.com/tx/${blockedWithOverride.signature}?cluster=devnet`,
    });
    // The same detail as by signature.
    const bySignature = await getJson(app, `/api/transactions/${blockedWithOverride.signature}`);
    assert.deepEqual(bySignature.body, blocked.body);

    // Pending: nothing sent yet, so no signature and no explorer link; the list item as it is.
    const open = await getJson(app, `/api/transactions/${pending.id.toUpperCase()}`);
    assert.equal(open.status, 200);
    assert.deepEqual(open.body, item(pending.id));
    assert.equal((await getJson(app, `/api/transactions/${executed.id}`)).body.signature, executed.signature);
  });

  test('answers TRANSACTION_NOT_FOUND naming the id for an unknown id, and refuses ?index with an id', async () => {
    const { app } = await start();
    const { executed } = await seedKinds();
    const id = '6f1c2a52-3b7e-4d2a-9c1e-1234567890ab';
    const { status, body } = await getJson(app, `/api/transactions/${id}`);
    assert.equal(status, 404);
    assert.deepEqual(body, {
      error: 'Transaction not found',
      code: 'TRANSACTION_NOT_FOUND',
      details: { id },
    });
    const indexed = await getJson(app, `/api/transactions/${executed.id}?index=0`);
    assert.equal(indexed.status, 400);
    assert.deepEqual(indexed.body, {
      error: 'index: applies to a signature, not an id',
      code: 'VALIDATION_ERROR',
      details: { issues: [{ path: 'query.index', message: 'applies to a signature, not an id' }] },
    });
  });

  test('names the cluster in explorerUrl: none for mainnet-beta, custom for localnet', async () => {
    const vault = await createVault(apps.db);
    const tx = await createTransaction(apps.db, { vault });
    const expected = {
      'mainnet-beta': `https://explorer.solana.com/tx/${tx.signature}`,
      testnet: `https://explorer.solana.com/tx/${tx.signature}?cluster=testnet`,
      localnet: `https://explorer.solana.com/tx/${tx.signature}?cluster=custom`,
    };
    for (const [cluster, url] of Object.entries(expected)) {
      const { app } = await start({ env: { SOLANA_CLUSTER: cluster } });
      assert.equal((await getJson(app, `/api/transactions/${tx.signature}`)).body.explorerUrl, url);
    }
  });

  test('picks the first transfer of a signature by event index, and another with ?index=N', async () => {
    const { app } = await start();
    const vault = await createVault(apps.db);
    const signature = randomSignature();
    const second = await createTransaction(apps.db, { vault, signature, eventIndex: 3, amount: 2n });
    const first = await createTransaction(apps.db, { vault, signature, eventIndex: 1, amount: 1n });
    assert.equal((await getJson(app, `/api/transactions/${signature}`)).body.id, first.id);
    assert.equal((await getJson(app, `/api/transactions/${signature}?index=1`)).body.id, first.id);
    assert.equal((await getJson(app, `/api/transactions/${signature}?index=3`)).body.id, second.id);
    const missing = await getJson(app, `/api/transactions/${signature}?index=2`);
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, {
      error: 'Transaction not found',
      code: 'TRANSACTION_NOT_FOUND',
      details: { signature, index: 2 },
    });
  });

  test('answers TRANSACTION_NOT_FOUND for an unknown signature', async () => {
    const { app } = await start();
    const signature = randomSignature();
    const { status, body } = await getJson(app, `/api/transactions/${signature}`);
    assert.equal(status, 404);
    assert.deepEqual(body, {
      error: 'Transaction not found',
      code: 'TRANSACTION_NOT_FOUND',
      details: { signature },
    });
  });

  test('rejects a malformed key (neither an id nor a signature) or index with the VALIDATION_ERROR envelope', async () => {
    const { app } = await start();
    const signature = randomSignature();
    const malformed = await getJson(app, '/api/transactions/not-a-key');
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.code, 'VALIDATION_ERROR');
    assert.match(malformed.body.error, /^key: /);
    assert.deepEqual(Object.keys(malformed.body).sort(), ['code', 'details', 'error']);
    for (const [url, path] of [
      ['/api/transactions/not-a-signature', 'params.key'],
      [`/api/transactions/${randomAddress()}`, 'params.key'],
      ['/api/transactions/6f1c2a52-3b7e-4d2a-9c1e-1234567890a', 'params.key'],
      [`/api/transactions/${signature}?index=-1`, 'query.index'],
      [`/api/transactions/${signature}?index=first`, 'query.index'],
      [`/api/transactions/${signature}?index=1.5`, 'query.index'],
    ] as const) {
      const { status, body } = await getJson(app, url);
      assert.equal(status, 400, url);
      assert.equal(body.code, 'VALIDATION_ERROR', url);
      assert.equal(body.details.issues[0].path, path, url);
    }
  });
});

describe('transaction caching', () => {
  test('an ingested transaction shows in the vault list and the cross-vault list once ingestion evicts', async () => {
    const { app, deps } = await start();
    const vault = await createVault(apps.db);
    const first = await createTransaction(apps.db, {
      vault,
      timestamp: at('2026-11-20T00:00:00.000Z'),
    });
    const byVault = `/api/transactions?vault=${vault.address}`;
    assert.deepEqual(ids((await getJson(app, byVault)).body), [first.id]);
    assert.deepEqual(ids((await getJson(app, '/api/transactions')).body), [first.id]);

    const ingested = await createTransaction(apps.db, {
      vault,
      timestamp: at('2026-11-21T00:00:00.000Z'),
    });
    assert.deepEqual(ids((await getJson(app, byVault)).body), [first.id], 'still cached before eviction');

    await evictVaults(deps.cache, [vault.address]);
    assert.deepEqual(ids((await getJson(app, byVault)).body), [ingested.id, first.id]);
    assert.deepEqual(ids((await getJson(app, '/api/transactions')).body), [ingested.id, first.id]);
  });

  test('a pending transfer that executes shows its signature and fee after eviction', async () => {
    const { app, deps } = await start();
    const { vault, pending } = await seedKinds();
    const url = `/api/transactions?vault=${vault.address}&status=pending`;
    assert.deepEqual(ids((await getJson(app, url)).body), [pending.id]);
    const executed = await executePendingTransaction(apps.db, pending, { feeCollected: 2_000_000n });
    await evictVaults(deps.cache, [vault.address]);
    assert.deepEqual((await getJson(app, url)).body.transactions, []);
    const detail = (await getJson(app, `/api/transactions/${executed.signature}`)).body;
    assert.equal(detail.status, 'executed');
    assert.equal(detail.feeCollected, '2000000');
  });

  test('expires transaction lists after thirty seconds even without an eviction', async () => {
    let now = Date.parse('2026-11-22T00:00:00.000Z');
    const { app } = await start({ cache: createMemoryCache({ now: () => now }) });
    const vault = await createVault(apps.db);
    const url = `/api/transactions?vault=${vault.address}`;
    assert.equal((await getJson(app, url)).body.pagination.total, 0);
    await createTransaction(apps.db, { vault });
    now += 29_000;
    assert.equal((await getJson(app, url)).body.pagination.total, 0);
    now += 2_000;
    assert.equal((await getJson(app, url)).body.pagination.total, 1);
  });
});
