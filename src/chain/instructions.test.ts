import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AccountRole, type Address, getAddressDecoder } from '@solana/kit';
import {
  buildAddToWhitelistInstruction,
  buildApproveOverrideInstruction,
  buildCreateOverrideInstruction,
  buildExecuteApprovedOverrideInstruction,
  buildInitializeVaultInstruction,
  buildPauseVaultInstruction,
  buildRemoveFromWhitelistInstruction,
  buildResumeVaultInstruction,
  buildUpdateAgentSignerInstruction,
  buildUpdateDailyLimitInstruction,
  decodeInstruction,
} from './instructions.js';
import {
  findPendingOverrideAddress,
  findTreasuryAddress,
  findVaultAddress,
  findVaultAuthorityAddress,
} from './pdas.js';
import {
  INSTRUCTION_DISCRIMINATORS,
  DEFAULT_PROGRAM_ID as PROGRAM,
  SYSTEM_PROGRAM_ADDRESS,
} from './program.js';

const addr = (fill: number): Address => getAddressDecoder().decode(new Uint8Array(32).fill(fill));
const authority = addr(1);
const { READONLY: R, WRITABLE: W, READONLY_SIGNER: RS, WRITABLE_SIGNER: WS } = AccountRole;

describe('instruction builders', () => {
  it('initialize_vault: accounts, roles and borsh data as the IDL says', async () => {
    const ix = await buildInitializeVaultInstruction({
      authority,
      nonce: 9n,
      agentSigner: addr(2),
      dailyLimit: 1_000n,
      name: 'Ops',
    });
    const [vault] = await findVaultAddress(PROGRAM, authority, 9n);
    const [deposit] = await findVaultAuthorityAddress(PROGRAM, vault);
    assert.equal(ix.programAddress, PROGRAM);
    assert.deepEqual(ix.accounts, [
      { address: vault, role: W },
      { address: deposit, role: R },
      { address: authority, role: WS },
      { address: SYSTEM_PROGRAM_ADDRESS, role: R },
    ]);
    const expected = Buffer.concat([
      Buffer.from(INSTRUCTION_DISCRIMINATORS.initialize_vault),
      Buffer.from([9, 0, 0, 0, 0, 0, 0, 0]),
      Buffer.alloc(32, 2),
      Buffer.from([0xe8, 0x03, 0, 0, 0, 0, 0, 0]),
      Buffer.from([3, 0, 0, 0]),
      Buffer.from('Ops'),
    ]);
    assert.deepEqual(Buffer.from(ix.data), expected);
    assert.deepEqual(decodeInstruction(ix.data), {
      name: 'initialize_vault',
      args: { nonce: 9n, agentSigner: addr(2), dailyLimit: 1_000n, name: 'Ops' },
    });
  });

  it('override instructions: create (seeded with the current override nonce), approve, execute', async () => {
    const [vault] = await findVaultAddress(PROGRAM, authority, 3n);
    const [pending] = await findPendingOverrideAddress(PROGRAM, vault, 4n);
    const base = { authority, vaultNonce: 3n, overrideNonce: 4n };
    const create = await buildCreateOverrideInstruction({
      ...base,
      destination: addr(5),
      amount: 7n,
      reason: 'not_whitelisted',
    });
    assert.deepEqual(
      create.accounts.map((a) => [a.address, a.role]),
      [
        [vault, W],
        [authority, WS],
        [pending, W],
        [SYSTEM_PROGRAM_ADDRESS, R],
      ],
    );
    assert.deepEqual(decodeInstruction(create.data), {
      name: 'create_override',
      args: { vaultNonce: 3n, destination: addr(5), amount: 7n, reason: 'not_whitelisted' },
    });
    const approve = await buildApproveOverrideInstruction(base);
    assert.deepEqual(
      approve.accounts.map((a) => [a.address, a.role]),
      [
        [vault, R],
        [authority, RS],
        [pending, W],
      ],
    );
    const execute = await buildExecuteApprovedOverrideInstruction({ ...base, destination: addr(5) });
    const [deposit] = await findVaultAuthorityAddress(PROGRAM, vault);
    const [treasury] = await findTreasuryAddress(PROGRAM);
    assert.deepEqual(
      execute.accounts.map((a) => [a.address, a.role]),
      [
        [vault, W],
        [pending, W],
        [authority, RS],
        [deposit, W],
        [addr(5), W],
        [treasury, W],
        [SYSTEM_PROGRAM_ADDRESS, R],
      ],
    );
    assert.deepEqual(decodeInstruction(execute.data), {
      name: 'execute_approved_override',
      args: { vaultNonce: 3n },
    });
  });

  it('owner updates: vault writable, authority a readonly signer, args decode back', async () => {
    const vault = addr(8);
    const base = { authority, vaultNonce: 2n, vault };
    const built = [
      [
        await buildUpdateDailyLimitInstruction({ ...base, newDailyLimit: 5n }),
        { name: 'update_daily_limit', args: { vaultNonce: 2n, newDailyLimit: 5n } },
      ],
      [
        await buildUpdateAgentSignerInstruction({ ...base, newAgentSigner: addr(9) }),
        { name: 'update_agent_signer', args: { vaultNonce: 2n, newAgentSigner: addr(9) } },
      ],
      [
        await buildAddToWhitelistInstruction({ ...base, address: addr(9) }),
        { name: 'add_to_whitelist', args: { vaultNonce: 2n, address: addr(9) } },
      ],
      [
        await buildRemoveFromWhitelistInstruction({ ...base, address: addr(9) }),
        { name: 'remove_from_whitelist', args: { vaultNonce: 2n, address: addr(9) } },
      ],
      [await buildPauseVaultInstruction(base), { name: 'pause_vault', args: { vaultNonce: 2n } }],
      [await buildResumeVaultInstruction(base), { name: 'resume_vault', args: { vaultNonce: 2n } }],
    ] as const;
    for (const [ix, decoded] of built) {
      assert.deepEqual(ix.accounts, [
        { address: vault, role: W },
        { address: authority, role: RS },
      ]);
      assert.deepEqual(decodeInstruction(ix.data), decoded);
    }
  });

  it('decodeInstruction returns null for unknown or truncated data', () => {
    assert.equal(decodeInstruction(new Uint8Array([1, 2, 3])), null);
    assert.equal(decodeInstruction(new Uint8Array(16)), null);
    assert.equal(decodeInstruction(INSTRUCTION_DISCRIMINATORS.update_daily_limit), null);
  });
});
