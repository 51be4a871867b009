// The fake's own model of the program's transfer rules, at their edges (the property test in
// test/integration compares it with the service's pre-flight check on random states).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Address } from '@solana/kit';
import { DEFAULT_PROGRAM_ID } from './program-idl.js';
import { randomAddress } from './scenarios.js';
import { LedgerState, type VaultEntry } from './state.js';
import { type InstructionContext, protocolFee, resetDayIfDue, transferPolicy } from './vault-rules.js';

function setUp(balance: bigint, patch: Partial<VaultEntry['config']> = {}) {
  const state = new LedgerState(DEFAULT_PROGRAM_ID);
  const depositAddress = randomAddress();
  state.lamports.set(depositAddress, balance);
  const entry: VaultEntry = {
    kind: 'vault',
    depositAddress,
    config: {
      authority: randomAddress(),
      agentSigner: randomAddress(),
      dailyLimit: 1_000n,
      spentToday: 0n,
      lastReset: 0n,
      whitelist: [],
      whitelistCount: 0,
      tier: 'personal',
      feeBasisPoints: 0,
      name: 'Rules',
      paused: false,
      overrideNonce: 0n,
      vaultNonce: 0n,
      bump: 255,
      ...patch,
    },
  };
  const ctx = { state } as InstructionContext;
  return {
    entry,
    judge: (destination: Address, amount: bigint) => transferPolicy(ctx, entry, destination, amount),
  };
}

describe("the fake program's transfer rules", () => {
  it('checks the whitelist, then the daily limit, then the funds for amount plus fee', () => {
    const listed = randomAddress();
    const vault = setUp(10n, { whitelist: [listed], whitelistCount: 1, spentToday: 900n });
    assert.deepEqual(vault.judge(randomAddress(), 500n), { reason: 'not_whitelisted', withOverride: true });
    assert.deepEqual(vault.judge(listed, 500n), { reason: 'exceeded_daily_limit', withOverride: true });
    assert.deepEqual(vault.judge(listed, 100n), { reason: 'insufficient_funds', withOverride: false });
    const open = setUp(10_000n);
    assert.equal(open.judge(randomAddress(), 1_000n), null, 'an empty whitelist admits any destination');
  });

  it('lets through a transfer that meets the limit and the funds exactly', () => {
    const vault = setUp(1_050n, { spentToday: 400n, feeBasisPoints: 500 });
    // 600 spends the limit to the lamport; the fee is 30 and 600 + 30 ≤ 1 050.
    assert.equal(vault.judge(randomAddress(), 600n), null);
    assert.deepEqual(vault.judge(randomAddress(), 601n), {
      reason: 'exceeded_daily_limit',
      withOverride: true,
    });
    const short = setUp(629n, { spentToday: 400n, feeBasisPoints: 500 });
    assert.deepEqual(short.judge(randomAddress(), 600n), {
      reason: 'insufficient_funds',
      withOverride: false,
    });
  });

  it('takes the fee as floor(amount × basis points / 10 000)', () => {
    assert.equal(protocolFee(1_999n, 5), 0n);
    assert.equal(protocolFee(2_000n, 5), 1n);
    assert.equal(protocolFee(123_456_789n, 10_000), 123_456_789n);
    assert.equal(protocolFee(10n ** 18n, 50), 5n * 10n ** 15n);
  });

  it('opens a new day once a full day has passed since last_reset, at the block time', () => {
    const { entry } = setUp(0n, { spentToday: 700n, lastReset: 1_000n });
    resetDayIfDue(entry, 1_000n + 86_399n);
    assert.deepEqual([entry.config.spentToday, entry.config.lastReset], [700n, 1_000n]);
    resetDayIfDue(entry, 1_000n + 86_400n);
    assert.deepEqual([entry.config.spentToday, entry.config.lastReset], [0n, 87_400n]);
  });
});
