// The vault writes' transaction port (domain/vaults/vault-writes.ts), over the program's PDAs and
// instruction builders: unsigned transactions the vault owner signs.
import { type Address, address } from '@solana/kit';
import type { VaultChainChange, VaultTransactionBuilder } from '../domain/vaults/vault-writes.js';
import {
  buildAddToWhitelistInstruction,
  buildInitializeVaultInstruction,
  buildPauseVaultInstruction,
  buildRemoveFromWhitelistInstruction,
  buildResumeVaultInstruction,
  buildUpdateAgentSignerInstruction,
  buildUpdateDailyLimitInstruction,
} from './instructions.js';
import { findVaultAddress, findVaultAuthorityAddress } from './pdas.js';

export function createVaultTransactionBuilder(programId: Address): VaultTransactionBuilder {
  return {
    async findVaultAddresses(authority, nonce) {
      const [vault] = await findVaultAddress(programId, address(authority), nonce);
      const [deposit] = await findVaultAuthorityAddress(programId, vault);
      return { address: vault, depositAddress: deposit };
    },
    async buildCreateVaultInstructions(input) {
      const instruction = await buildInitializeVaultInstruction({
        programId,
        authority: address(input.authority),
        nonce: input.nonce,
        agentSigner: address(input.agentSigner),
        dailyLimit: input.dailyLimit,
        name: input.name,
        vault: address(input.addresses.address),
        vaultAuthority: address(input.addresses.depositAddress),
      });
      return [instruction];
    },
    async buildUpdateVaultInstructions(input) {
      const base = {
        programId,
        authority: address(input.authority),
        vault: address(input.vault),
        vaultNonce: input.vaultNonce,
      };
      return Promise.all(input.changes.map((change) => buildChangeInstruction(base, change)));
    },
  };
}

function buildChangeInstruction(
  base: { programId: Address; authority: Address; vault: Address; vaultNonce: bigint },
  change: VaultChainChange,
) {
  switch (change.kind) {
    case 'resume_vault':
      return buildResumeVaultInstruction(base);
    case 'pause_vault':
      return buildPauseVaultInstruction(base);
    case 'update_agent_signer':
      return buildUpdateAgentSignerInstruction({ ...base, newAgentSigner: address(change.agentSigner) });
    case 'update_daily_limit':
      return buildUpdateDailyLimitInstruction({ ...base, newDailyLimit: change.dailyLimit });
    case 'add_to_whitelist':
      return buildAddToWhitelistInstruction({ ...base, address: address(change.address) });
    case 'remove_from_whitelist':
      return buildRemoveFromWhitelistInstruction({ ...base, address: address(change.address) });
  }
}
