// The pre-flight check says what the program then does: for a few hundred random vault states and
// transfers, the check's verdict, reason, approval and fee equal the outcome of the agent actually sending
// that transfer to the (fake) program: executed, TransactionBlocked with its reason, or failed with
// VaultPaused / InvalidAgentSigner.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Address } from '@solana/kit';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import type { FakeValidator } from '../../dev/validator/index.js';
import type { ScenarioResult } from '../../dev/validator/scenarios.js';
import { PROGRAM_ERRORS } from '../../src/chain/program.js';
import { createChainVault, useChainApp } from '../support/chain-app.js';
import { randomAddress } from '../support/factories.js';

const T = 1_800_000_000;

let fv: FakeValidator;
let app: FastifyInstance;
let vault: Address;
let agentSigner: Address;

// Each check is one fresh getMultipleAccounts, answered in process (the HTTP path is agent-budget.test.ts's).
const chain = useChainApp({
  time: T,
  env: { LIVE_ACCOUNTS: 'false' },
  inProcessRpc: true,
  async setUp() {
    ({ fv, app } = chain);
    ({ vault, agentSigner } = await createChainVault(chain, { dailyLimit: 1_000n }));
  },
});

type Outcome = {
  verdict: string;
  reason: string | null;
  approval: string;
  fee?: string;
  remainingAfter?: string;
};

/** What the program did with the agent's transaction. */
function outcomeOf(result: ScenarioResult, dailyLimit: bigint): Outcome {
  const executed = result.events.find((e) => e.name === 'TransactionExecuted');
  if (result.err === null && executed?.name === 'TransactionExecuted') {
    const { feeCollected, spentToday } = executed.data;
    const remainingAfter = (dailyLimit - spentToday).toString();
    return {
      verdict: 'allowed',
      reason: null,
      approval: 'none',
      fee: feeCollected.toString(),
      remainingAfter,
    };
  }
  const blocked = result.events.find((e) => e.name === 'TransactionBlocked');
  if (blocked?.name === 'TransactionBlocked') {
    const approval = blocked.data.overrideNonce === null ? 'none' : 'possible';
    return { verdict: 'blocked', reason: blocked.data.reason, approval };
  }
  const code = (result.err as { InstructionError: [number, { Custom?: number }] }).InstructionError[1].Custom;
  const reason =
    code === PROGRAM_ERRORS.VaultPaused.code
      ? 'vault_paused'
      : code === PROGRAM_ERRORS.InvalidAgentSigner.code
        ? 'wrong_agent'
        : `error ${JSON.stringify(result.err)}`;
  return { verdict: 'refused', reason, approval: 'none' };
}

const lamports = (max: bigint) => fc.oneof(fc.bigInt({ min: 0n, max }), fc.constantFrom(0n, 1n, max));

/** A vault state and a transfer, drawn so that every rule and its boundaries come up often. */
const caseArb = fc
  .record({
    dailyLimit: fc.oneof(fc.bigInt({ min: 1n, max: 50_000n }), fc.bigInt({ min: 1n, max: 10n ** 15n })),
    paused: fc.integer({ min: 0, max: 9 }).map((n) => n < 2),
    feeBasisPoints: fc.oneof(fc.integer({ min: 0, max: 10_000 }), fc.constantFrom(0, 5, 50, 10_000)),
    // Seconds since last_reset by the Clock: the window's edge (86 400) comes up often.
    sinceReset: fc.oneof(fc.integer({ min: -600, max: 200_000 }), fc.constantFrom(0, 86_399, 86_400, 86_401)),
    whitelist: fc.constantFrom('empty', 'listed', 'unlisted'),
    agent: fc.constantFrom('omitted', 'named', 'wrong', 'omitted', 'named'),
    amountShape: fc.constantFrom('remaining', 'remaining+1', 'balance', 'any'),
  })
  .chain((c) =>
    fc
      .record({
        spentToday: lamports(c.dailyLimit + 10n),
        balance: lamports(2n * c.dailyLimit),
        anyAmount: fc.bigInt({ min: 1n, max: 2n * c.dailyLimit + 10n }),
      })
      .map((drawn) => ({ ...c, ...drawn })),
  );

test("the check's verdict and reason are what the program does with the transfer, for 300 random states", async () => {
  const seen = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(caseArb, async (c) => {
      const destination = randomAddress() as Address;
      const others = [randomAddress() as Address, randomAddress() as Address];
      const whitelist =
        c.whitelist === 'empty' ? [] : c.whitelist === 'listed' ? [...others, destination] : others;
      const lapsed = c.sinceReset >= 86_400;
      const remaining = lapsed ? c.dailyLimit : c.dailyLimit - c.spentToday;
      const shaped = { remaining, 'remaining+1': remaining + 1n, balance: c.balance, any: c.anyAmount }[
        c.amountShape
      ];
      const amount = shaped > 0n ? shaped : 1n;
      const wrongAgent = randomAddress() as Address;
      const agent = c.agent === 'wrong' ? wrongAgent : c.agent === 'named' ? agentSigner : undefined;

      fv.setTime(T);
      fv.setVaultState(vault, {
        dailyLimit: c.dailyLimit,
        spentToday: c.spentToday,
        lastReset: T - c.sinceReset,
        whitelist,
        paused: c.paused,
        feeBasisPoints: c.feeBasisPoints,
        agentSigner,
        balance: c.balance,
      });
      const query: Record<string, string> = { destination, amount: amount.toString() };
      if (agent !== undefined) query.agent = agent;
      const response = await app.inject({ url: `/api/vaults/${vault}/check`, query });
      assert.equal(response.statusCode, 200, response.body);
      const checked = response.json();

      const sent = await fv.execute(vault, { destination, amount, enforcePolicy: true, agent });
      const done = outcomeOf(sent, c.dailyLimit);
      const said: Outcome = { verdict: checked.verdict, reason: checked.reason, approval: checked.approval };
      if (done.verdict === 'allowed')
        Object.assign(said, { fee: checked.fee, remainingAfter: checked.remainingAfter });
      assert.deepEqual(
        said,
        done,
        JSON.stringify({ ...c, amount }, (_k, v) => (typeof v === 'bigint' ? `${v}` : v)),
      );
      const key = `${done.verdict}:${done.reason}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }),
    { numRuns: 300 },
  );
  // The draw reached every outcome the program has, so the comparison covered each rule.
  assert.deepEqual([...seen.keys()].sort(), [
    'allowed:null',
    'blocked:exceeded_daily_limit',
    'blocked:insufficient_funds',
    'blocked:not_whitelisted',
    'refused:vault_paused',
    'refused:wrong_agent',
  ]);
});
