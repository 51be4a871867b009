// Protected vault writes: POST builds a vault's creation transaction, PATCH /api/vaults/:address (the vault
// address or its record uuid, the same parameter as the read) renames and builds updates.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { VaultWriteService } from '../../domain/vaults/vault-writes.js';
import { type AuditAnswer, vaultTarget } from '../plugins/audit-trail.js';
import { described, errorResponses } from '../schemas/common.js';
import { strictValidatorCompiler } from '../validator.js';
import {
  CreateVaultBody,
  CreateVaultResponse,
  UpdateVaultBody,
  UpdateVaultParams,
  UpdateVaultResponse,
} from './vault-writes.schemas.js';

export const vaultWriteRoutes: FastifyPluginAsyncTypebox<{ vaultWrites: VaultWriteService }> = async (
  app,
  { vaultWrites },
) => {
  app.setValidatorCompiler(strictValidatorCompiler);

  app.post(
    '/api/vaults',
    {
      config: {
        auth: 'required',
        scope: 'vaults:write',
        rateLimitCategory: 'write',
        audit: {
          action: 'vault.create',
          target: (_, answer) => `vault:${createdVault(answer) ?? 'new'}`,
          vault: (_, answer) => createdVault(answer),
        },
      },
      schema: {
        operationId: 'createVault',
        tags: ['vaults'],
        summary: 'Build the unsigned transaction that creates a vault owned by the signer',
        body: CreateVaultBody,
        response: {
          201: described(
            CreateVaultResponse,
            'The unsigned initialize_vault transaction for the signer, and the vault it will create',
          ),
          ...errorResponses(401, 503),
        },
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
      config: {
        auth: 'required',
        scope: 'vaults:write',
        keyVault: { in: 'params', name: 'address', kind: 'vault' },
        rateLimitCategory: 'write',
        audit: { action: 'vault.update', target: vaultTarget },
      },
      schema: {
        operationId: 'updateVault',
        tags: ['vaults'],
        summary: 'Rename a vault at once and build the transaction for its on-chain changes (owner only)',
        params: UpdateVaultParams,
        body: UpdateVaultBody,
        response: {
          200: described(
            UpdateVaultResponse,
            'The vault as it will be, and the unsigned transaction for the chain-backed changes (null when only the name changed)',
          ),
          ...errorResponses(401, 403, 404, 503),
        },
      },
    },
    async (request) =>
      vaultWrites.updateVault(request.wallet!, request.params.address, request.body, request.auditStamp),
  );
};

/** The address of the vault a build answer creates. */
function createdVault(answer: AuditAnswer): string | undefined {
  const vault = answer?.vault as { address?: unknown } | undefined;
  return typeof vault?.address === 'string' ? vault.address : undefined;
}
