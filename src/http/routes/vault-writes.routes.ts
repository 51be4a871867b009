// Protected vault writes: POST builds a vault's creation transaction, PATCH /api/vaults/:address (the vault
// address or its record uuid, the same parameter as the read) renames and builds updates.
// The route composes the chain's PDA and instruction builders into the domain's transaction port.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Address, address } from '@solana/kit';
import type { AppDeps } from '../../app-deps.js';
import {
  buildAddToWhitelistInstruction,
  buildInitializeVaultInstruction,
  buildPauseVaultInstruction,
  buildRemoveFromWhitelistInstruction,
  buildResumeVaultInstruction,
  buildUpdateAgentSignerInstruction,
  buildUpdateDailyLimitInstruction,
} from '../../chain/instructions.js';
import { findVaultAddress, findVaultAuthorityAddress } from '../../chain/pdas.js';
import { buildUnsignedTransaction } from '../../chain/transactions.js';
import { createLatestBlockhashSource } from '../../domain/vaults/latest-blockhash.js';
import {
  createVaultWriteService,
  type VaultChainChange,
  type VaultTransactionBuilder,
} from '../../domain/vaults/vault-writes.js';
import { errorResponses } from '../schemas/common.js';
import { strictValidatorCompiler } from '../validator.js';
import {
  CreateVaultBody,
  CreateVaultResponse,
  UpdateVaultBody,
  UpdateVaultParams,
  UpdateVaultResponse,
} from './vault-writes.schemas.js';

export const vaultWriteRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  app.setValidatorCompiler(strictValidatorCompiler);
  const latestBlockhash = createLatestBlockhashSource(
    async (signal) =>
      (await deps.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send({ abortSignal: signal })).value,
    { clock: deps.clock, onError: (error) => deps.logger.warn({ err: error }, 'getLatestBlockhash failed') },
  );
  const vaultWrites = createVaultWriteService({
    db: deps.storage.db,
    cache: deps.cache,
    clock: deps.clock,
    latestBlockhash,
    transactions: createVaultTransactionBuilder(address(deps.config.programId)),
  });

  app.post(
    '/api/vaults',
    {
      config: { auth: 'required', rateLimitCategory: 'write' },
      schema: {
        tags: ['vaults'],
        summary: 'Build the unsigned transaction that creates a vault owned by the signer',
        body: CreateVaultBody,
        response: { 201: CreateVaultResponse, ...errorResponses(401, 503) },
      },
    },
    async (request, reply) => {
      const created = await vaultWrites.createVault(request.wallet!, request.body);
      return reply.code(201).send(created);
    },
  );

  app.patch(
    '/api/vaults/:address',
    {
      config: { auth: 'required', rateLimitCategory: 'write' },
      schema: {
        tags: ['vaults'],
        summary: 'Rename a vault at once and build the transaction for its on-chain changes (owner only)',
        params: UpdateVaultParams,
        body: UpdateVaultBody,
        response: { 200: UpdateVaultResponse, ...errorResponses(401, 403, 404, 503) },
      },
    },
    async (request) => vaultWrites.updateVault(request.wallet!, request.params.address, request.body),
  );
};

/** The domain's transaction port over the program's PDAs and instruction builders. */
function createVaultTransactionBuilder(programId: Address): VaultTransactionBuilder {
  return {
    async findVaultAddresses(authority, nonce) {
      const [vault] = await findVaultAddress(programId, address(authority), nonce);
      const [deposit] = await findVaultAuthorityAddress(programId, vault);
      return { address: vault, depositAddress: deposit };
    },
    async buildCreateVaultTransaction(input) {
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
      return buildUnsignedTransaction({
        feePayer: address(input.authority),
        latestBlockhash: input.latestBlockhash,
        instructions: [instruction],
      });
    },
    async buildUpdateVaultTransaction(input) {
      const base = {
        programId,
        authority: address(input.authority),
        vault: address(input.vault),
        vaultNonce: input.vaultNonce,
      };
      const instructions = await Promise.all(input.changes.map((change) => buildChange(base, change)));
      return buildUnsignedTransaction({
        feePayer: base.authority,
        latestBlockhash: input.latestBlockhash,
        instructions,
      });
    },
  };
}

function buildChange(
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
