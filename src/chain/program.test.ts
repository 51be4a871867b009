import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  ACCOUNT_DISCRIMINATORS,
  computeDiscriminator,
  EVENT_DISCRIMINATORS,
  getInstructionLogName,
  INSTRUCTION_DISCRIMINATORS,
} from './program.js';

// Copied from vault-program.idl.json so the test does not need the file; the IDL check below adds to it.
const IDL_EVENTS: Record<string, number[]> = {
  AgentSignerUpdated: [9, 76, 133, 116, 78, 130, 96, 209],
  FeeTreasuryInitialized: [150, 203, 243, 115, 122, 73, 80, 224],
  FeesWithdrawn: [234, 15, 0, 119, 148, 241, 40, 21],
  OverrideApproved: [173, 131, 53, 85, 191, 81, 150, 221],
  OverrideCreated: [109, 39, 191, 207, 28, 235, 116, 67],
  PolicyUpdated: [225, 112, 112, 67, 95, 236, 245, 161],
  TransactionBlocked: [3, 64, 83, 53, 179, 19, 131, 87],
  TransactionExecuted: [211, 227, 168, 14, 32, 111, 189, 210],
  VaultCreated: [117, 25, 120, 254, 75, 236, 78, 115],
  VaultInitialized: [180, 43, 207, 2, 18, 71, 3, 75],
  VaultPaused: [198, 157, 22, 151, 68, 100, 162, 35],
  VaultResumed: [208, 173, 238, 64, 33, 63, 226, 151],
  WhitelistUpdated: [205, 110, 205, 193, 238, 237, 220, 22],
};
const IDL_ACCOUNTS: Record<string, number[]> = {
  FeeTreasury: [85, 11, 82, 13, 148, 202, 81, 5],
  PendingOverride: [28, 15, 81, 213, 186, 8, 97, 138],
  VaultConfig: [99, 86, 43, 216, 184, 102, 119, 77],
};
const IDL_INSTRUCTIONS: Record<string, number[]> = {
  add_to_whitelist: [157, 211, 52, 54, 144, 81, 5, 55],
  approve_override: [41, 2, 181, 184, 119, 133, 62, 52],
  create_override: [155, 251, 76, 3, 17, 208, 181, 67],
  execute_agent: [17, 189, 103, 244, 206, 233, 43, 155],
  execute_approved_override: [252, 245, 149, 133, 190, 208, 219, 207],
  execute_guarded: [158, 204, 46, 60, 195, 151, 172, 90],
  initialize_treasury: [124, 186, 211, 195, 85, 165, 129, 166],
  initialize_vault: [48, 191, 163, 44, 71, 129, 63, 164],
  pause_vault: [250, 6, 228, 57, 6, 104, 19, 210],
  remove_from_whitelist: [7, 144, 216, 239, 243, 236, 193, 235],
  resume_vault: [68, 98, 85, 13, 31, 76, 166, 50],
  update_agent_signer: [46, 230, 68, 81, 4, 213, 33, 21],
  update_daily_limit: [100, 231, 226, 195, 132, 221, 134, 71],
  withdraw_fees: [198, 212, 171, 109, 144, 215, 174, 89],
};

function asRecord(table: Readonly<Record<string, Uint8Array>>): Record<string, number[]> {
  return Object.fromEntries(Object.entries(table).map(([name, bytes]) => [name, [...bytes]]));
}

describe('program discriminators', () => {
  it('computes sha256("event:VaultCreated")[0..8] as Anchor derives event discriminators', () => {
    assert.deepEqual(
      [...computeDiscriminator('event', 'VaultCreated')],
      [117, 25, 120, 254, 75, 236, 78, 115],
    );
  });

  it('matches every event, account and instruction discriminator of the IDL', () => {
    assert.deepEqual(asRecord(EVENT_DISCRIMINATORS), IDL_EVENTS);
    assert.deepEqual(asRecord(ACCOUNT_DISCRIMINATORS), IDL_ACCOUNTS);
    assert.deepEqual(asRecord(INSTRUCTION_DISCRIMINATORS), IDL_INSTRUCTIONS);
  });

  const idlPath = new URL('../../program/vault-program.idl.json', import.meta.url);
  it("agrees with the program's IDL file the repository carries", () => {
    type Entry = { name: string; discriminator: number[] };
    const idl = JSON.parse(readFileSync(idlPath, 'utf8')) as Record<
      'events' | 'accounts' | 'instructions',
      Entry[]
    >;
    const table = (entries: Entry[]) => Object.fromEntries(entries.map((e) => [e.name, e.discriminator]));
    assert.deepEqual(asRecord(EVENT_DISCRIMINATORS), table(idl.events));
    assert.deepEqual(asRecord(ACCOUNT_DISCRIMINATORS), table(idl.accounts));
    assert.deepEqual(asRecord(INSTRUCTION_DISCRIMINATORS), table(idl.instructions));
  });

  it('names instructions the way Anchor logs them', () => {
    assert.equal(getInstructionLogName('execute_approved_override'), 'ExecuteApprovedOverride');
    assert.equal(getInstructionLogName('pause_vault'), 'PauseVault');
  });
});
