import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeSimulationFailure, describeFailure, type FailureContext } from './simulation-failure.js';

const ctx: FailureContext = {
  feePayer: 'Payer1111111111111111111111111111111111111',
  instructionNames: ['SetComputeUnitLimit', 'SetComputeUnitPrice', 'update_daily_limit', 'add_to_whitelist'],
  programs: ['ComputeBudget', 'ComputeBudget', 'Vault', 'Vault'],
  networkFeeLamports: 5_000n,
  findProgramError: (program, code) =>
    program === 'Vault' && code === 12012
      ? { code, name: 'WhitelistFull', message: 'Whitelist is full (maximum 20 addresses)' }
      : null,
};

const explain = (err: unknown, logs: string[] = []) => {
  const failure = decodeSimulationFailure(err, logs, ctx);
  return { failure, message: describeFailure(failure, ctx) };
};

describe('simulation failures in words', () => {
  it('names a program error by its IDL name and message, and the instruction', () => {
    const { failure, message } = explain({ InstructionError: [3, { Custom: 12012 }] });
    assert.equal(failure.instruction, 'add_to_whitelist');
    assert.deepEqual(failure.programError, {
      code: 12012,
      name: 'WhitelistFull',
      message: 'Whitelist is full (maximum 20 addresses)',
    });
    assert.equal(
      message,
      'The vault program would refuse this transaction at add_to_whitelist (WhitelistFull: Whitelist is full (maximum 20 addresses)).',
    );
  });

  it('puts the runtime errors in words', () => {
    assert.equal(
      explain('BlockhashNotFound').message,
      "The network no longer knows this transaction's recent blockhash; ask for a new transaction (BlockhashNotFound).",
    );
    assert.equal(
      explain('InsufficientFundsForFee').message,
      `The paying wallet ${ctx.feePayer} cannot pay the network fee of 0.000005 SOL (InsufficientFundsForFee).`,
    );
    assert.equal(
      explain({ InstructionError: [2, 'ComputationalBudgetExceeded'] }).message,
      'The transaction ran out of compute units at update_daily_limit (ComputationalBudgetExceeded).',
    );
    assert.equal(
      explain({ InsufficientFundsForRent: { account_index: 0 } }).message,
      'The network would reject this transaction (InsufficientFundsForRent).',
    );
  });

  it('keeps only the last 10 log lines', () => {
    const logs = Array.from({ length: 25 }, (_, i) => `line ${i}`);
    assert.deepEqual(explain('AccountNotFound', logs).failure.logs, logs.slice(15));
  });
});
