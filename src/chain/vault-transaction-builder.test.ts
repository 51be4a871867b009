import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Address, getAddressDecoder, type Instruction, isSignerRole } from '@solana/kit';
import { decodeInstruction } from './instruction-codecs.js';
import { findVaultAddress, findVaultAuthorityAddress } from './pdas.js';
import { DEFAULT_PROGRAM_ID } from './program.js';
import { createVaultTransactionBuilder } from './vault-transaction-builder.js';

const addr = (fill: number): Address => getAddressDecoder().decode(new Uint8Array(32).fill(fill));
const builder = createVaultTransactionBuilder(DEFAULT_PROGRAM_ID);

/** The built instructions decoded, in order, and the signers they ask for. */
function programInstructions(instructions: Instruction[]) {
  assert.ok(instructions.every((ix) => ix.programAddress === DEFAULT_PROGRAM_ID));
  const signers = new Set(
    instructions.flatMap((ix) =>
      (ix.accounts ?? []).filter((m) => isSignerRole(m.role)).map((m) => m.address),
    ),
  );
  return {
    signers: [...signers],
    instructions: instructions.map((ix) => decodeInstruction(ix.data ?? new Uint8Array())),
  };
}

describe('createVaultTransactionBuilder', () => {
  it("derives a vault's address and deposit address from its authority and nonce", async () => {
    const [vault] = await findVaultAddress(DEFAULT_PROGRAM_ID, addr(1), 7n);
    const [deposit] = await findVaultAuthorityAddress(DEFAULT_PROGRAM_ID, vault);
    assert.deepEqual(await builder.findVaultAddresses(addr(1), 7n), {
      address: vault,
      depositAddress: deposit,
    });
  });

  it('builds the creation instruction, signed by the authority', async () => {
    const addresses = await builder.findVaultAddresses(addr(1), 7n);
    const built = programInstructions(
      await builder.buildCreateVaultInstructions({
        authority: addr(1),
        nonce: 7n,
        agentSigner: addr(2),
        dailyLimit: 5_000n,
        name: 'ops',
        addresses,
      }),
    );
    assert.deepEqual(built.signers, [addr(1)]);
    assert.deepEqual(built.instructions, [
      {
        name: 'initialize_vault',
        args: { nonce: 7n, agentSigner: addr(2), dailyLimit: 5_000n, name: 'ops' },
      },
    ]);
  });

  it('carries one instruction per change, in the order given', async () => {
    const built = programInstructions(
      await builder.buildUpdateVaultInstructions({
        authority: addr(1),
        vault: addr(4),
        vaultNonce: 7n,
        changes: [
          { kind: 'resume_vault' },
          { kind: 'update_agent_signer', agentSigner: addr(2) },
          { kind: 'update_daily_limit', dailyLimit: 9n },
          { kind: 'remove_from_whitelist', address: addr(5) },
          { kind: 'add_to_whitelist', address: addr(6) },
          { kind: 'pause_vault' },
        ],
      }),
    );
    assert.deepEqual(built.signers, [addr(1)]);
    assert.deepEqual(built.instructions, [
      { name: 'resume_vault', args: { vaultNonce: 7n } },
      { name: 'update_agent_signer', args: { vaultNonce: 7n, newAgentSigner: addr(2) } },
      { name: 'update_daily_limit', args: { vaultNonce: 7n, newDailyLimit: 9n } },
      { name: 'remove_from_whitelist', args: { vaultNonce: 7n, address: addr(5) } },
      { name: 'add_to_whitelist', args: { vaultNonce: 7n, address: addr(6) } },
      { name: 'pause_vault', args: { vaultNonce: 7n } },
    ]);
  });
});
