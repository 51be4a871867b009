// Keyset anchors (page-anchors.ts) against plain OFFSET reads: every page identical, before and after
// the lists change, on PGlite or PostgreSQL (DATABASE_URL).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  createTransaction,
  createVault,
  executePendingTransaction,
} from '../../../test/support/factories.js';
import { useTestApps } from '../../../test/support/test-apps.js';
import type { TransactionStatus } from '../../storage/schema/transactions.js';
import type { VaultRow } from '../../storage/schema/vaults.js';
import { createPageAnchors, type PageAnchors } from './page-anchors.js';
import { createTransactionQueries } from './transaction-queries.js';

// The file's database, emptied before each test.
const db = useTestApps();

const LIMIT = 4;
const STATUSES: (TransactionStatus | undefined)[] = [undefined, 'executed', 'blocked', 'pending'];

/** Anchors that count how often a page was read from one. */
function countingAnchors(): PageAnchors & { used: number } {
  const inner = createPageAnchors();
  const counting = {
    used: 0,
    nearest(list: string, position: number) {
      const found = inner.nearest(list, position);
      if (found !== undefined) counting.used += 1;
      return found;
    },
    remember: inner.remember,
    forget: inner.forget,
  };
  return counting;
}

/** Two vaults, 19 and 6 transactions of every status, several sharing one timestamp (ids break the tie). */
async function seed(): Promise<{
  vaults: VaultRow[];
  pendings: Awaited<ReturnType<typeof createTransaction>>[];
}> {
  const vaults = [await createVault(db.storage.db), await createVault(db.storage.db)];
  const pendings = [];
  for (let i = 0; i < 25; i += 1) {
    const vault = vaults[i % 4 === 3 ? 1 : 0]!;
    const status: TransactionStatus = i % 5 === 0 ? 'blocked' : i % 7 === 0 ? 'pending' : 'executed';
    const timestamp = new Date(Date.UTC(2026, 0, 1, 0, 0, Math.floor(i / 3)));
    const row = await createTransaction(db.storage.db, { vault, status, timestamp });
    if (status === 'pending') pendings.push(row);
  }
  return { vaults, pendings };
}

async function assertPagesMatch(
  queries: ReturnType<typeof createTransactionQueries>,
  vaults: VaultRow[],
  order: number[],
) {
  const ids = (records: { id: string }[]) => records.map((r) => r.id);
  for (const status of STATUSES) {
    for (const page of order) {
      const window = { limit: LIMIT, offset: (page - 1) * LIMIT };
      for (const vault of vaults) {
        const anchored = await queries.vaultPage(vault.address, status, window);
        const plain = await createTransactionQueries(db.storage).vaultPage(vault.address, status, window);
        assert.deepEqual(anchored, plain, `vault page ${page} ${status ?? 'all'}`);
      }
      const counters = await queries.countAll();
      const anchored = await queries.page(status, window, counters);
      const plain = await createTransactionQueries(db.storage).page(status, window, counters);
      assert.deepEqual(ids(anchored), ids(plain), `page ${page} ${status ?? 'all'}`);
      assert.deepEqual(anchored, plain);
    }
  }
}

describe('transaction pages from keyset anchors', () => {
  test('deep pages seek from anchors and equal the OFFSET pages, in any order', async () => {
    const { vaults } = await seed();
    const anchors = countingAnchors();
    const queries = createTransactionQueries(db.storage, anchors);
    await assertPagesMatch(queries, vaults, [1, 2, 3, 4, 5, 6, 8]);
    const firstPass = anchors.used;
    assert.ok(firstPass > 0, 'pages after the first were read from anchors');
    await assertPagesMatch(queries, vaults, [7, 3, 5, 2, 6, 4]);
    assert.ok(anchors.used > firstPass);
  });

  test('after new transactions and an executed pending transfer, stale anchors are not used', async () => {
    const { vaults, pendings } = await seed();
    const queries = createTransactionQueries(db.storage, countingAnchors());
    await assertPagesMatch(queries, vaults, [1, 2, 3, 4, 5]);
    // Newer rows shift every position; the pending transfer moves (new timestamp, new status).
    for (const vault of vaults) {
      await createTransaction(db.storage.db, { vault, timestamp: new Date(Date.UTC(2026, 0, 2)) });
    }
    await executePendingTransaction(db.storage.db, pendings[0]!, {
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, 1)),
    });
    await assertPagesMatch(queries, vaults, [3, 2, 5, 4, 1, 6]);
  });

  test('an unknown vault is null, anchored or not', async () => {
    const queries = createTransactionQueries(db.storage);
    assert.equal(
      await queries.vaultPage('11111111111111111111111111111111', undefined, { limit: 4, offset: 8 }),
      null,
    );
  });
});
