import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, test } from 'node:test';
import { type Address, getBase58Decoder } from '@solana/kit';
import { eq } from 'drizzle-orm';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import { countSequentialRoundTrips, STATUS_CACHE_SLOTS } from '../../dev/validator/index.js';
import { decodeTransactionBase64 } from '../../src/chain/solana-transactions.js';
import { overrides } from '../../src/storage/schema/index.js';
import { useBlinkApps } from '../support/blink-actions.js';
import { randomAddress } from '../support/factories.js';
import { rpcCall } from '../support/json-rpc.js';
import { BLINKS_BASE_URL, type SeededOverride } from '../support/seeded-overrides.js';
import { waitFor } from '../support/wait.js';

/** docs/BLINKS.md, Transactions that land, on approve: simulation before answering, failures in words, compute budget and price. */

const SOL = 1_000_000_000n;
const COMPUTE_BUDGET = 'ComputeBudget111111111111111111111111111111';

const { apps, clock, seed } = useBlinkApps();
beforeEach(() => {
  apps.chain.setTime(Math.floor(clock.nowMs / 1000));
  for (const method of ['simulateTransaction', 'getRecentPrioritizationFees'])
    apps.chain.failMethod(method, null);
});

type Request = SeededOverride;

const approve = (r: Request, target: FastifyInstance = apps.app) =>
  target.inject({ method: 'POST', url: `${r.url}/approve`, payload: { account: r.owner.address } });

/** 422 SIMULATION_FAILED with the sentence as `message` and `error`, the decoded facts, no transaction. */
function assertRefused(res: LightMyRequestResponse, message: string, details: Record<string, unknown>) {
  assert.equal(res.statusCode, 422, res.body);
  const body = res.json();
  assert.equal(body.code, 'SIMULATION_FAILED');
  assert.equal(body.message, message);
  assert.equal(body.error, message);
  assert.equal(body.transaction, undefined);
  assert.equal(res.headers['x-action-version'], '2.4');
  const { logs, ...rest } = body.details;
  assert.deepEqual(rest, details);
  assert.ok(Array.isArray(logs) && logs.length <= 10);
  return logs as string[];
}

/** Links the request to an on-chain override at its nonce, as ingesting OverrideCreated does. */
async function linkOnChain(r: Request, amount = 2n * SOL) {
  await apps.chain.createOverride(r.vault, { destination: r.destination, amount, nonce: r.nonce });
  await apps.db.update(overrides).set({ chainNonce: r.nonce }).where(eq(overrides.id, r.overrideId));
}

const budgetOf = (transaction: string) => {
  const [limit, price] = decodeTransactionBase64(transaction).instructions;
  assert.equal(limit?.programAddress, COMPUTE_BUDGET);
  const units = Buffer.from(limit!.data).readUInt32LE(1);
  const isPrice = price?.programAddress === COMPUTE_BUDGET && price.data[0] === 3;
  return { units, price: isPrice ? Buffer.from(price.data).readBigUInt64LE(1) : null };
};

describe('approve: every program failure is answered in words, with no transaction', () => {
  test('insufficient funds: what the vault holds and what the transfer needs', async () => {
    const r = await seed({ amount: 5n * SOL, deposit: SOL });
    const logs = assertRefused(
      await approve(r),
      'The vault holds 1 SOL and this transfer needs 5.0025 SOL (5 SOL plus the 0.0025 SOL protocol fee); deposit more before approving (InsufficientFunds: Insufficient funds in vault).',
      {
        instruction: 'execute_approved_override',
        programError: { code: 12008, name: 'InsufficientFunds' },
        runtimeError: null,
      },
    );
    assert.ok(logs.some((line) => line.includes('Error Code: InsufficientFunds')));
    assert.equal(apps.chain.balance(r.depositAddress), SOL, 'nothing moved');
  });

  test('paused vault', async () => {
    const r = await seed();
    await apps.chain.pause(r.vault);
    assertRefused(
      await approve(r),
      'The vault is paused, so it sends nothing; resume it before approving this transfer (VaultPaused: Vault is paused).',
      {
        instruction: 'execute_approved_override',
        programError: { code: 12002, name: 'VaultPaused' },
        runtimeError: null,
      },
    );
  });

  test('expired on-chain by the cluster clock while our clock says it is not', async () => {
    const r = await seed();
    await linkOnChain(r);
    apps.chain.setTime(Math.floor(clock.nowMs / 1000) + 3601);
    assertRefused(
      await approve(r),
      'This override has expired on-chain and can no longer be approved (OverrideExpired: Override request has expired).',
      {
        instruction: 'approve_override',
        programError: { code: 12004, name: 'OverrideExpired' },
        runtimeError: null,
      },
    );
  });

  test('already executed on-chain before ingestion told the database', async () => {
    const r = await seed();
    await linkOnChain(r);
    await apps.chain.approveOverride(r.vault, r.nonce);
    await apps.chain.executeApprovedOverride(r.vault, r.nonce);
    assertRefused(
      await approve(r),
      'This transfer was already executed on-chain; there is nothing left to approve (OverrideAlreadyExecuted: Override has already been executed).',
      {
        instruction: 'approve_override',
        programError: { code: 12005, name: 'OverrideAlreadyExecuted' },
        runtimeError: null,
      },
    );
  });

  test('nonce taken between the read and the simulation', async () => {
    const r = await seed();
    apps.chain.setLatency(200);
    apps.chain.resetRpcRequests();
    const pending = approve(r);
    // The accounts are read (answer computed, not yet delivered): another override takes the nonce now.
    await waitFor(() => apps.chain.rpcRequests().some((q) => q.methods.includes('getMultipleAccounts')), {
      message: 'the approve read the accounts',
    });
    await apps.chain.createOverride(r.vault, { destination: randomAddress() as Address, amount: 1n });
    apps.chain.setLatency(0);
    assertRefused(
      await pending,
      "Another approval took this vault's next override slot moments ago; open the approval again for a fresh transaction (ConstraintSeeds: A seeds constraint was violated).",
      {
        instruction: 'create_override',
        programError: { code: 2006, name: 'ConstraintSeeds' },
        runtimeError: null,
      },
    );
  });
});

describe('approve: runtime failures in words', () => {
  test('a wallet that cannot pay the network fee', async () => {
    const r = await seed({ ownerLamports: 4_000n });
    assertRefused(
      await approve(r),
      `The paying wallet ${r.owner.address} cannot pay the network fee of 0.000005 SOL (InsufficientFundsForFee).`,
      { instruction: null, programError: null, runtimeError: 'InsufficientFundsForFee' },
    );
  });

  test('a wallet that does not exist on the cluster', async () => {
    const r = await seed({ ownerLamports: 0n });
    assertRefused(
      await approve(r),
      `The paying wallet ${r.owner.address} has no SOL on this network, so it cannot pay the network fee (AccountNotFound).`,
      { instruction: null, programError: null, runtimeError: 'AccountNotFound' },
    );
  });

  test("a wallet that pays the fee but not the override account's rent", async () => {
    const r = await seed({ ownerLamports: 100_000n });
    assertRefused(
      await approve(r),
      `The paying wallet ${r.owner.address} does not hold enough SOL for the rent of the account this transaction creates at create_override (Custom(1)).`,
      { instruction: 'create_override', programError: null, runtimeError: 'Custom(1)' },
    );
  });

  test('503 RPC_UNAVAILABLE when the simulation call fails, never a transaction', async () => {
    const r = await seed();
    apps.chain.failMethod('simulateTransaction', 'http');
    const res = await approve(r);
    assert.equal(res.statusCode, 503, res.body);
    assert.equal(res.json().code, 'RPC_UNAVAILABLE');
    assert.match(res.json().message, /RPC/);
  });
});

describe('approve: compute budget and priority fee', () => {
  test('the price is the 75th percentile of recent fees over the writable accounts', async () => {
    const r = await seed();
    apps.chain.setPrioritizationFees([0, 0, 100, 200, 300, 400, 500, 600], [r.destination]);
    const res = await approve(r);
    assert.equal(res.statusCode, 200, res.body);
    const { price, units } = budgetOf(res.json().transaction);
    assert.equal(price, 400n, 'rank ceil(0.75 × 8) = 6 of the sorted values');
    assert.ok(units > 30_000 && units < 60_000, String(units));
  });

  test('a failing fee call never fails the request: the last estimate, or 0', async () => {
    const r = await seed();
    apps.chain.failMethod('getRecentPrioritizationFees', 'http');
    const res = await approve(r);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(budgetOf(res.json().transaction).price, 0n);
  });

  test('estimates are cached per writable-account set: a second approve asks for fees no more', async () => {
    const r = await seed();
    apps.chain.setPrioritizationFees([7], [r.destination]);
    apps.chain.resetRpcRequests();
    assert.equal((await approve(r)).statusCode, 200);
    assert.equal((await approve(r)).statusCode, 200);
    const calls = apps.chain.rpcRequests().filter((q) => q.methods.includes('getRecentPrioritizationFees'));
    assert.equal(calls.length, 1);
  });

  test('the reads run concurrently, then one simulation: two sequential round trips', async () => {
    const r = await seed();
    assert.equal((await approve(r)).statusCode, 200, 'warm: the blockchain id is read once per process');
    clock.nowMs += 11_000; // past the blockhash and fee caches
    apps.chain.setLatency(20);
    apps.chain.resetRpcRequests();
    assert.equal((await approve(r)).statusCode, 200);
    const requests = apps.chain.rpcRequests();
    assert.equal(countSequentialRoundTrips(requests), 2, JSON.stringify(requests.map((q) => q.methods)));
    assert.deepEqual(requests.at(-1)?.methods, ['simulateTransaction']);
  });

  test('PRIORITY_FEE off, fixed, and the lamport cap', async () => {
    const r = await seed();
    apps.chain.setPrioritizationFees([5_000_000], [r.destination]);
    for (const [extra, expected] of [
      [{ PRIORITY_FEE: 'off' }, null],
      [{ PRIORITY_FEE: '1234' }, 1234n],
      [{ PRIORITY_FEE_MAX_LAMPORTS: '1000' }, 'capped'],
    ] as const) {
      const other = await apps.start({ cache: apps.deps.cache, env: extra });
      const res = await approve(r, other.app);
      assert.equal(res.statusCode, 200, res.body);
      const { price, units } = budgetOf(res.json().transaction);
      if (expected === 'capped') {
        assert.ok(price !== null && price < 5_000_000n);
        assert.ok((price * BigInt(units)) / 1_000_000n <= 1000n, `${price} × ${units}`);
        assert.ok(
          ((price + 1n) * BigInt(units) + 999_999n) / 1_000_000n > 1000n,
          'lowered no further than needed',
        );
      } else assert.equal(price, expected, JSON.stringify(extra));
    }
  });
});

/** Signs the unsigned transaction as the owner and sends it; the signature. */
async function signAndSend(owner: TestWallet, transaction: string, skipPreflight = false): Promise<string> {
  const wire = Buffer.from(transaction, 'base64');
  wire.set(owner.sign(decodeTransactionBase64(transaction).messageBytes), 1);
  return rpcCall<string>(apps.chain.rpcUrl, 'sendTransaction', [
    wire.toString('base64'),
    { encoding: 'base64', skipPreflight },
  ]);
}

const confirm = (r: Request, signature: string, account = r.owner.address) =>
  apps.app.inject({ method: 'POST', url: `${r.url}/approve/confirm`, payload: { account, signature } });

describe('approve confirmation (Actions chaining: links.next)', () => {
  test('approve names the confirm URL; the sent signature answers a completed Action naming amount, destination and signature', async () => {
    const r = await seed();
    const res = await approve(r);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().links, {
      next: { type: 'post', href: `${BLINKS_BASE_URL}${r.url}/approve/confirm` },
    });
    const signature = await signAndSend(r.owner, res.json().transaction);
    apps.chain.resetRpcRequests();
    const done = await confirm(r, signature);
    assert.equal(done.statusCode, 200, done.body);
    // It landed: one status poll, then the transaction.
    assert.deepEqual(
      apps.chain.rpcRequests().map((q) => q.methods.join()),
      ['getSignatureStatuses', 'getTransaction'],
    );
    assert.equal(done.headers['x-action-version'], '2.4');
    assert.equal(done.headers['access-control-allow-origin'], '*');
    assert.deepEqual(done.json(), {
      type: 'completed',
      icon: `${BLINKS_BASE_URL}/api/actions/icon.svg`,
      title: 'Override Approved',
      label: 'Approved',
      description: `Vault "Ops" sent 2 SOL (2000000000 lamports) to ${r.destination}: you approved override ${r.nonce} in transaction ${signature}.`,
    });
  });

  test('a transaction confirmed long ago, out of the node’s status cache, is found through its history', async () => {
    const r = await seed();
    const signature = await signAndSend(r.owner, (await approve(r)).json().transaction);
    for (let i = 0; i < STATUS_CACHE_SLOTS; i += 1) apps.chain.state.advanceSlot();
    const done = await confirm(r, signature);
    assert.equal(done.statusCode, 200, done.body);
    assert.equal(done.json().type, 'completed');
  });

  test('a transaction that failed on-chain is 422 naming the error', async () => {
    const r = await seed();
    const built = (await approve(r)).json().transaction;
    await apps.chain.pause(r.vault);
    const signature = await signAndSend(r.owner, built, true);
    const res = await confirm(r, signature);
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().code, 'TRANSACTION_FAILED');
    assert.equal(
      res.json().message,
      'The approval transaction failed on-chain. The vault is paused, so it sends nothing; resume it before approving this transfer (VaultPaused: Vault is paused).',
    );
    assert.deepEqual(res.json().details.programError, { code: 12002, name: 'VaultPaused' });
  });

  test("another request's approval, or another wallet's transaction, is 422 TRANSACTION_MISMATCH", async () => {
    const [r, other] = [await seed(), await seed()];
    const signature = await signAndSend(other.owner, (await approve(other)).json().transaction);
    const res = await confirm(r, signature);
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().code, 'TRANSACTION_MISMATCH');
    assert.match(res.json().message, /does not approve this transfer/);
    const airdrop = await apps.chain.airdrop(r.owner.address as Address, 1n);
    assert.equal((await confirm(r, airdrop.signature)).json().code, 'TRANSACTION_MISMATCH');
  });

  test('a signature the cluster never shows is 404 after 10 s of status polls, never read; a malformed one 400', async () => {
    const r = await seed();
    const unknown = getBase58Decoder().decode(randomBytes(64));
    apps.chain.resetRpcRequests();
    const res = await confirm(r, unknown);
    assert.equal(res.statusCode, 404, res.body);
    assert.equal(res.json().code, 'TRANSACTION_NOT_FOUND');
    assert.match(res.json().message, /did not appear on the network within 10 s/);
    // Backing off from 250 ms to 2 s: at most 8 polls, only the first searching the ledger's history.
    const polls = apps.chain.rpcRequests();
    assert.ok(polls.length >= 2 && polls.length <= 8, `${polls.length} polls`);
    assert.ok(polls.every((q) => q.methods.join() === 'getSignatureStatuses'));
    assert.deepEqual(
      polls.map((q) => (q.params[0] as [unknown, { searchTransactionHistory?: boolean }])[1]),
      polls.map((_, i) => ({ searchTransactionHistory: i === 0 })),
    );
    const bad = await confirm(r, 'not-a-signature');
    assert.equal(bad.statusCode, 400, bad.body);
  });
});

const preview = (r: Request, account = r.owner.address) =>
  apps.app.inject(`/api/overrides/${r.vault}/${r.nonce}/preview?account=${account}`);

describe('GET /api/overrides/:vault/:nonce/preview', () => {
  test('shows what the owner signs, and execution then does exactly that to every balance', async () => {
    const r = await seed();
    apps.chain.setPrioritizationFees([1_000, 2_000, 3_000, 4_000], [r.vault]);
    const res = await preview(r);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['cache-control'], 'no-store');
    const p = res.json();
    assert.deepEqual(p.instructions, [
      'SetComputeUnitLimit',
      'SetComputeUnitPrice',
      'create_override',
      'approve_override',
      'execute_approved_override',
    ]);
    assert.equal(p.simulationError, null);
    assert.equal(p.networkFeeLamports, '5000');
    assert.equal(p.priorityFeeLamports, String((3_000n * BigInt(p.computeUnits) + 999_999n) / 1_000_000n));
    assert.deepEqual(
      p.balanceChanges.map((b: { role: string; address: string }) => [b.role, b.address]),
      [
        ['payer', r.owner.address],
        ['vault', r.depositAddress],
        ['destination', r.destination],
        ['treasury', apps.chain.treasury],
      ],
    );
    const delta = Object.fromEntries(
      p.balanceChanges.map((b: { role: string; delta: string }) => [b.role, BigInt(b.delta)]),
    );
    const protocolFee = (2n * SOL * 5n) / 10_000n;
    assert.equal(delta.destination, 2n * SOL);
    assert.equal(delta.vault, -(2n * SOL) - protocolFee);
    assert.equal(delta.treasury, protocolFee);
    assert.equal(
      delta.payer,
      -(5_000n + BigInt(p.priorityFeeLamports) + 1_802_640n),
      'fees and the override rent',
    );

    const built = await approve(r);
    assert.equal(budgetOf(built.json().transaction).units, p.computeUnits);
    await signAndSend(r.owner, built.json().transaction);
    for (const b of p.balanceChanges)
      assert.equal(apps.chain.balance(b.address), BigInt(b.after), `${b.role} after`);
  });

  test('a failing simulation is a 200 with the error in words and no balance changes', async () => {
    const r = await seed({ amount: 5n * SOL, deposit: SOL });
    const res = await preview(r);
    assert.equal(res.statusCode, 200, res.body);
    const p = res.json();
    assert.deepEqual(p.simulationError, {
      message:
        'The vault holds 1 SOL and this transfer needs 5.0025 SOL (5 SOL plus the 0.0025 SOL protocol fee); deposit more before approving (InsufficientFunds: Insufficient funds in vault).',
      programError: { code: 12008, name: 'InsufficientFunds' },
      runtimeError: null,
    });
    assert.deepEqual(p.balanceChanges, []);
    assert.equal(p.computeUnits, null);
  });

  test('only for the vault authority (403), and 400 without an account', async () => {
    const r = await seed();
    assert.equal((await preview(r, createTestWallet().address)).statusCode, 403);
    assert.equal((await apps.app.inject(`/api/overrides/${r.vault}/${r.nonce}/preview`)).statusCode, 400);
  });
});
