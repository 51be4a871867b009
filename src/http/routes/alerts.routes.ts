// The owner's alert settings of a vault (off-chain): GET and PUT /api/vaults/:address/alerts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AlertSettingsService } from '../../domain/alerts/alert-settings.js';
import { vaultTarget } from '../plugins/audit-trail.js';
import type { KeyVaultSource } from '../plugins/route-scope.js';
import { described, errorResponses } from '../schemas/common.js';
import { strictValidatorCompiler } from '../validator.js';
import { AlertSettings, AlertSettingsParams, UpdateAlertSettingsBody } from './alerts.schemas.js';

const VAULT_PARAM: KeyVaultSource = { in: 'params', name: 'address', kind: 'vault' };

export const alertRoutes: FastifyPluginAsyncTypebox<{ alerts: AlertSettingsService }> = async (
  app,
  { alerts },
) => {
  app.setValidatorCompiler(strictValidatorCompiler);

  app.get(
    '/api/vaults/:address/alerts',
    {
      config: { auth: 'required', scope: 'read', keyVault: VAULT_PARAM, rateLimitCategory: 'read' },
      schema: {
        operationId: 'getAlertSettings',
        tags: ['alerts'],
        summary: "The vault's alert settings (owner only)",
        params: AlertSettingsParams,
        response: {
          200: described(AlertSettings, 'The settings; a vault never set up has the defaults'),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => alerts.getAlertSettings(request.wallet!, request.params.address),
  );

  app.put(
    '/api/vaults/:address/alerts',
    {
      config: {
        auth: 'required',
        scope: 'vaults:write',
        keyVault: VAULT_PARAM,
        rateLimitCategory: 'write',
        audit: { action: 'alerts.update', target: vaultTarget },
      },
      schema: {
        operationId: 'updateAlertSettings',
        tags: ['alerts'],
        summary: "Change the vault's alert settings (owner only); fields left out keep their value",
        params: AlertSettingsParams,
        body: UpdateAlertSettingsBody,
        response: {
          200: described(AlertSettings, 'The whole settings object after the change'),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) =>
      alerts.updateAlertSettings(request.wallet!, request.params.address, request.body, request.auditStamp),
  );
};
