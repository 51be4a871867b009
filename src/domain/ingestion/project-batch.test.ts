import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { BatchState } from './batch-state.js';
import { type ProjectionInput, projectBatch } from './project-batch.js';
import {
  type ChainEvent,
  type ChainTransaction,
  overrideKey,
  type VaultAccountRead,
  type VaultAccountState,
} from './types.js';

const VAULT = 'Vau1t11111111111111111111111111111111111111';
const AUTHORITY = 'Auth111111111111111111111111111111111111111';
const DEST = 'Dest111111111111111111111111111111111111111';
const NOW = new Date('2026-11-22T10:00:00.000Z');

const emptyState = (): BatchState => ({
  vaults: new Map(),
  overrides: new Map(),
  pendingByOverride: new Map(),
  transactions: [],
});

function tx(slot: number, events: ChainEvent[], extra: Partial<ChainTransaction> = {}): ChainTransaction {
  return {
    signature: `sig${slot}`,
    slot,
    blockTime: new Date(Date.UTC(2026, 10, 22, 9, 0, slot % 60)),
    failed: false,
    truncated: false,
    events,
    ...extra,
  };
}

const account = (overrides: Partial<VaultAccountState> = {}): VaultAccountState => ({
  authority: AUTHORITY,
  agentSigner: 'Agent11111111111111111111111111111111111111',
  dailyLimit: 9_000n,
  spentToday: 0n,
  lastReset: 1_790_000_000n,
  whitelist: [],
  whitelistCount: 0,
  tier: 'enterprise',
  feeBasisPoints: 25,
  name: 'From the account',
  paused: false,
  overrideNonce: 4n,
  vaultNonce: 77n,
  ...overrides,
});

function input(state: BatchState, reads: Record<string, VaultAccountRead> = {}): ProjectionInput {
  return {
    state,
    cluster: 'devnet',
    vaultReads: new Map(Object.entries(reads)),
    overrideReads: new Map(),
    publicBaseUrl: 'https://vk.test',
    now: NOW,
  };
}

describe('projectBatch', () => {
  test('VaultInitialized (the older form) creates the vault from the event when no account exists', () => {
    const state = emptyState();
    const out = projectBatch(
      [
        tx(10, [
          {
            index: 0,
            instruction: 'InitializeVault',
            name: 'VaultInitialized',
            data: { vault: VAULT, authority: AUTHORITY, dailyLimit: 500n, timestamp: 1n },
          },
        ]),
      ],
      input(state, { [VAULT]: { slot: 11, state: null, depositAddress: 'Dep' } }),
    );
    const vault = state.vaults.get(VAULT);
    assert.equal(vault?.row.authority, AUTHORITY);
    assert.equal(vault?.row.dailyLimit, 500n);
    assert.equal(vault?.row.depositAddress, 'Dep');
    assert.equal(vault?.row.createdSlot, 10);
    assert.deepEqual(
      out.webhooks.map((w) => w.event),
      ['vault.created'],
    );
  });

  test('an account read newer than an event wins over that event’s fields; the transfer is still recorded', () => {
    const state = emptyState();
    projectBatch(
      [
        tx(20, [
          {
            index: 0,
            instruction: 'UpdateDailyLimit',
            name: 'PolicyUpdated',
            data: { vault: VAULT, dailyLimit: 1_000n, whitelistSize: 0 },
          },
        ]),
        tx(21, [
          {
            index: 0,
            instruction: 'ExecuteAgent',
            name: 'TransactionExecuted',
            data: {
              vault: VAULT,
              amount: 10n,
              destination: DEST,
              feeCollected: 0n,
              newBalance: 0n,
              spentToday: 10n,
            },
          },
        ]),
      ],
      input(state, { [VAULT]: { slot: 50, state: account({ spentToday: 70n }), depositAddress: 'Dep' } }),
    );
    const vault = state.vaults.get(VAULT);
    assert.equal(
      vault?.row.dailyLimit,
      9_000n,
      'the account (slot 50) is newer than PolicyUpdated (slot 20)',
    );
    assert.equal(vault?.row.spentToday, 70n);
    assert.equal(vault?.row.syncedSlot, 50);
    assert.equal(vault?.row.name, 'From the account');
    assert.equal(vault?.row.tier, 2);
    assert.equal(state.transactions.length, 1);
    assert.equal(vault?.stats.executedCount, 1);
  });

  test('WhitelistUpdated (the older form) adds and removes one address', () => {
    const state = emptyState();
    const added = (address: string, on: boolean, index: number): ChainEvent => ({
      index,
      instruction: null,
      name: 'WhitelistUpdated',
      data: { vault: VAULT, address, added: on, timestamp: 0n },
    });
    projectBatch(
      [tx(30, [added('A', true, 0), added('B', true, 1), added('A', false, 2)])],
      input(state, { [VAULT]: { slot: 29, state: account(), depositAddress: 'Dep' } }),
    );
    assert.deepEqual(state.vaults.get(VAULT)?.row.whitelist, ['B']);
    assert.equal(state.vaults.get(VAULT)?.row.whitelistCount, 1);
  });

  test('an event for a vault with no account and no creation event is a warning, and projects nothing', () => {
    const state = emptyState();
    const out = projectBatch(
      [tx(40, [{ index: 0, instruction: null, name: 'VaultPaused', data: { vault: VAULT } }])],
      input(state, { [VAULT]: { slot: 41, state: null, depositAddress: 'Dep' } }),
    );
    assert.equal(state.vaults.size, 0);
    assert.deepEqual(
      out.warnings.map((w) => w.kind),
      ['vault_unknown'],
    );
  });

  test('only TransactionBlocked of a failed transaction is projected; unknown events are warnings', () => {
    const state = emptyState();
    const out = projectBatch(
      [
        tx(
          60,
          [
            {
              index: 0,
              instruction: 'ExecuteAgent',
              name: 'TransactionExecuted',
              data: {
                vault: VAULT,
                amount: 5n,
                destination: DEST,
                feeCollected: 0n,
                newBalance: 0n,
                spentToday: 5n,
              },
            },
            {
              index: 1,
              instruction: 'ExecuteAgent',
              name: 'TransactionBlocked',
              data: {
                vault: VAULT,
                reason: 'not_whitelisted',
                amount: 5n,
                destination: DEST,
                overrideNonce: null,
              },
            },
            { index: 2, instruction: null, name: 'Unknown', discriminator: '0011', raw: 'AA==' },
          ],
          { failed: true },
        ),
      ],
      input(state, { [VAULT]: { slot: 61, state: account(), depositAddress: 'Dep' } }),
    );
    assert.deepEqual(
      state.transactions.map((t) => t.row.status),
      ['blocked'],
    );
    assert.deepEqual(
      out.warnings.map((w) => w.kind),
      ['unknown_event'],
    );
    assert.deepEqual(
      out.webhooks.map((w) => [w.event, w.data.blinkUrl, w.data.approvalUrl]),
      [['transaction.blocked', null, null]],
    );
  });

  test('an approval of an override never seen is created from its PendingOverride account', () => {
    const state = emptyState();
    const base = input(state, { [VAULT]: { slot: 71, state: account(), depositAddress: 'Dep' } });
    const out = projectBatch(
      [
        tx(70, [
          {
            index: 0,
            instruction: 'ApproveOverride',
            name: 'OverrideApproved',
            data: { vault: VAULT, nonce: 3n, timestamp: 0n },
          },
        ]),
      ],
      {
        ...base,
        overrideReads: new Map([
          [
            overrideKey(VAULT, 3n),
            { amount: 42n, destination: DEST, expiresAt: 1_800_000_000n, executed: false },
          ],
        ]),
      },
    );
    const override = [...state.overrides.values()].find((o) => o.row.chainNonce === 3n);
    assert.equal(override?.row.status, 'approved');
    assert.equal(override?.row.transferSignature, null);
    assert.equal(override?.row.amount, 42n);
    assert.equal(state.pendingByOverride.get(override?.row.id ?? '')?.row.status, 'pending');
    assert.equal(out.blinks.length, 1);
    assert.equal(out.blinks[0]?.url, `https://vk.test/api/actions/${VAULT}/3`);
  });
});

describe('one override per blocked transfer', () => {
  const DEST_B = 'DestB11111111111111111111111111111111111111';
  const reads = { [VAULT]: { slot: 1, state: account(), depositAddress: 'Dep' } };
  const blocked = (slot: number, amount: bigint, destination = DEST, nonce: bigint | null = 4n) =>
    tx(
      slot,
      [
        {
          index: 0,
          instruction: 'ExecuteAgent',
          name: 'TransactionBlocked',
          data: { vault: VAULT, reason: 'exceeded_daily_limit', amount, destination, overrideNonce: nonce },
        },
      ],
      { failed: true },
    );
  const created = (slot: number, nonce: bigint, amount: bigint, destination = DEST) =>
    tx(slot, [
      {
        index: 0,
        instruction: 'CreateOverride',
        name: 'OverrideCreated',
        data: { vault: VAULT, nonce, amount, destination, expiresAt: 1_900_000_000n },
      },
    ]);
  const requests = (state: BatchState) =>
    [...state.overrides.values()].sort((a, b) => a.order - b.order).map((o) => o.row);

  test('transfers blocked with the same announced nonce each get a request; only the first is addressed by the nonce alone', () => {
    const state = emptyState();
    const out = projectBatch(
      [blocked(10, 5n), blocked(11, 6n, DEST_B), blocked(12, 7n)],
      input(state, reads),
    );
    const rows = requests(state);
    assert.deepEqual(
      rows.map((r) => [r.nonce, r.transferSignature, r.addressSignature, r.amount]),
      [
        [4n, 'sig10', null, 5n],
        [4n, 'sig11', 'sig11', 6n],
        [4n, 'sig12', 'sig12', 7n],
      ],
    );
    const links = out.webhooks.filter((w) => w.event === 'transaction.blocked').map((w) => w.data.blinkUrl);
    assert.deepEqual(links, [
      `https://vk.test/api/actions/${VAULT}/4`,
      `https://vk.test/api/actions/${VAULT}/4?transfer=sig11`,
      `https://vk.test/api/actions/${VAULT}/4?transfer=sig12`,
    ]);
    // Each blocked transaction row points at its own request.
    assert.deepEqual(
      state.transactions.map((t) => t.row.overrideId),
      rows.map((r) => r.id),
    );
  });

  test('OverrideCreated links the earliest unresolved request with its destination and amount', () => {
    const state = emptyState();
    projectBatch(
      [
        blocked(10, 5n),
        blocked(11, 6n, DEST_B),
        blocked(12, 5n),
        created(13, 4n, 6n, DEST_B),
        created(14, 5n, 5n),
      ],
      input(state, reads),
    );
    assert.deepEqual(
      requests(state).map((r) => [r.transferSignature, r.chainNonce]),
      [
        ['sig10', 5n],
        ['sig11', 4n],
        ['sig12', null],
      ],
    );
    assert.equal(requests(state)[0]?.expiresAt.toISOString(), new Date(1_900_000_000_000).toISOString());
  });

  test('a rejected or expired request is not linked; without a match the override is one of its own', () => {
    const state = emptyState();
    projectBatch([blocked(10, 5n), blocked(11, 5n)], input(state, reads));
    const [first, second] = requests(state);
    first!.status = 'rejected';
    second!.expiresAt = new Date(0);
    projectBatch([created(20, 4n, 5n)], input(state, reads));
    const own = requests(state)[2]!;
    assert.equal(own.transferSignature, null);
    assert.equal(own.chainNonce, 4n);
    assert.equal(own.nonce, 4n);
    // Nonce 4's plain address belongs to the first blocked transfer: this one adds its own signature.
    assert.equal(own.addressSignature, 'sig20');
    assert.equal(first!.chainNonce, null);
    assert.equal(second!.chainNonce, null);
  });

  test('OverrideApproved follows the on-chain nonce, not the announced one', () => {
    const state = emptyState();
    projectBatch(
      [blocked(10, 5n), blocked(11, 6n, DEST_B), created(12, 4n, 6n, DEST_B)],
      input(state, reads),
    );
    const out = projectBatch(
      [
        tx(13, [
          {
            index: 0,
            instruction: 'ApproveOverride',
            name: 'OverrideApproved',
            data: { vault: VAULT, nonce: 4n, timestamp: 0n },
          },
        ]),
      ],
      input(state, reads),
    );
    assert.deepEqual(
      requests(state).map((r) => [r.transferSignature, r.status]),
      [
        ['sig10', 'pending'],
        ['sig11', 'approved'],
      ],
    );
    const approved = out.webhooks.find((w) => w.event === 'override.approved');
    assert.equal(approved?.data.blinkUrl, `https://vk.test/api/actions/${VAULT}/4?transfer=sig11`);
    assert.equal(approved?.data.chainNonce, '4');
  });

  test('a blocked transfer announcing no nonce gets no request', () => {
    const state = emptyState();
    const out = projectBatch([blocked(10, 5n, DEST, null)], input(state, reads));
    assert.equal(state.overrides.size, 0);
    assert.equal(out.webhooks[0]?.data.blinkUrl, null);
  });
});
