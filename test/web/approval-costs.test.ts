import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OVERRIDE_RENT } from '../../dev/validator/state.js';
import {
  approvalCosts,
  PENDING_OVERRIDE_BYTES,
  rentExemptMinimum,
  rentExplanation,
} from '../../web/approval-costs.js';
import { sol } from '../../web/format.js';

const preview = (instructions: string[]) => ({
  instructions: ['SetComputeUnitLimit', 'SetComputeUnitPrice', ...instructions],
  computeUnits: 46_000,
  priorityFeeLamports: '460',
  networkFeeLamports: '5000',
  simulationError: null,
  balanceChanges: [],
});

describe('what approving costs the owner', () => {
  test("the override account's rent is the chain's rent-exempt minimum for 131 bytes, as the test validator charges", () => {
    assert.equal(PENDING_OVERRIDE_BYTES, 131);
    assert.equal(rentExemptMinimum(PENDING_OVERRIDE_BYTES), 1_802_640n);
    assert.equal(rentExemptMinimum(PENDING_OVERRIDE_BYTES), OVERRIDE_RENT);
    // An empty account still pays for its 128 bytes of overhead (the chain's 890 880 lamports).
    assert.equal(rentExemptMinimum(0), 890_880n);
  });

  test('a request not yet on chain costs the fees plus the rent create_override locks up', () => {
    const costs = approvalCosts(
      preview(['create_override', 'approve_override', 'execute_approved_override']),
    );
    assert.deepEqual(costs, { fees: 5_460n, rent: 1_802_640n, total: 1_808_100n });
    assert.equal(
      rentExplanation(costs, sol),
      'Your wallet pays 0.0018081 SOL: 0.00000546 SOL in fees and 0.00180264 SOL of rent for the override account that create_override opens on-chain (PendingOverride, 131 bytes, the rent-exempt minimum). The rent does not come back: the vault program never closes that account, so the lamports stay locked in it after the transfer executes.',
    );
  });

  test('a request already on chain costs the fees alone, and needs no explanation', () => {
    const costs = approvalCosts(preview(['approve_override', 'execute_approved_override']));
    assert.deepEqual(costs, { fees: 5_460n, rent: 0n, total: 5_460n });
    assert.equal(rentExplanation(costs, sol), null);
  });
});
