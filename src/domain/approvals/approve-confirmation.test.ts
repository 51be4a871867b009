import assert from 'node:assert/strict';
import { afterEach, beforeEach, mock, test } from 'node:test';
import type { LandingChain, RecordedTransaction, SignatureStatus } from '../landing/landing-port.js';
import { type ApprovalTarget, confirmApproval } from './approve-confirmation.js';

const SIGNATURE = '5'.repeat(88);
const TARGET: ApprovalTarget = {
  vault: 'vault',
  authority: 'owner',
  destination: 'destination',
  amount: 1n,
  linkedOverride: null,
};
const FAILED: RecordedTransaction = { err: 'AccountNotFound', logs: [], feePayer: 'owner', instructions: [] };

interface Call {
  method: 'status' | 'transaction';
  at: number;
  searchHistory?: boolean;
}

/** A cluster that answers each status poll and transaction read from the scripts, recording when it was asked. */
function createChain(script: {
  status: (poll: number) => SignatureStatus | null;
  transaction: (read: number) => RecordedTransaction | null;
}) {
  const calls: Call[] = [];
  let polls = 0;
  let reads = 0;
  const chain = {
    getSignatureStatus: async (_signature: string, options: { searchHistory: boolean }) => {
      calls.push({ method: 'status', at: Date.now(), searchHistory: options.searchHistory });
      return script.status(polls++);
    },
    getTransaction: async () => {
      calls.push({ method: 'transaction', at: Date.now() });
      return script.transaction(reads++);
    },
    nameInstructions: () => [],
    findProgramError: () => null,
    findApprovedTransfers: () => [],
  } as unknown as LandingChain;
  return { chain, calls };
}

/** Runs the confirmation on mocked timers, moving time on until it settles; what it threw. */
async function settle(chain: LandingChain): Promise<unknown> {
  let outcome: { error: unknown } | null = null;
  confirmApproval({ chain }, TARGET, { account: 'owner', signature: SIGNATURE }).then(
    () => {
      outcome = { error: null };
    },
    (error: unknown) => {
      outcome = { error };
    },
  );
  for (let step = 0; outcome === null && step < 1_000; step += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    mock.timers.tick(50);
  }
  assert.ok(outcome !== null, 'the confirmation never settled');
  return (outcome as { error: unknown }).error;
}

beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 }));
afterEach(() => mock.timers.reset());

test('an unknown signature is polled with getSignatureStatuses at 0, 0.25, 0.75, 1.75 s and then every 2 s, never read, for 10 s', async () => {
  const { chain, calls } = createChain({ status: () => null, transaction: () => assert.fail('read') });
  const error = await settle(chain);
  assert.equal((error as { code?: string }).code, 'TRANSACTION_NOT_FOUND');
  assert.deepEqual(
    calls.map((c) => c.at),
    [0, 250, 750, 1_750, 3_750, 5_750, 7_750, 9_750],
  );
  assert.ok(calls.every((c) => c.method === 'status'));
  // Only the first poll searches the ledger's history; the others read the recent status cache.
  assert.deepEqual(
    calls.map((c) => c.searchHistory),
    [true, false, false, false, false, false, false, false],
  );
});

test('the transaction is read only once its status is confirmed, or failed', async () => {
  const statuses: (SignatureStatus | null)[] = [
    null,
    { confirmationStatus: 'processed', err: null },
    { confirmationStatus: 'confirmed', err: null },
  ];
  const { chain, calls } = createChain({
    status: (poll) => statuses[poll] ?? null,
    transaction: () => FAILED,
  });
  const error = await settle(chain);
  assert.equal((error as { code?: string }).code, 'TRANSACTION_FAILED');
  assert.deepEqual(
    calls.map((c) => c.method),
    ['status', 'status', 'status', 'transaction'],
  );

  const failed = createChain({
    status: () => ({ confirmationStatus: 'processed', err: { InstructionError: [0, 'Custom'] } }),
    transaction: () => FAILED,
  });
  await settle(failed.chain);
  assert.deepEqual(
    failed.calls.map((c) => c.method),
    ['status', 'transaction'],
  );
});

test('a node that reports the status before it serves the transaction is read on each later poll: 9 calls at most', async () => {
  const { chain, calls } = createChain({
    status: () => ({ confirmationStatus: 'finalized', err: null }),
    transaction: () => null,
  });
  const error = await settle(chain);
  assert.equal((error as { code?: string }).code, 'TRANSACTION_NOT_FOUND');
  assert.deepEqual(
    calls.map((c) => `${c.method}@${c.at}`),
    [
      'status@0',
      'transaction@0',
      ...[250, 750, 1_750, 3_750, 5_750, 7_750, 9_750].map((at) => `transaction@${at}`),
    ],
  );
});
