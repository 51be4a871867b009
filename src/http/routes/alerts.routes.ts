// The owner's alert settings of a vault (off-chain): GET and PUT /api/vaults/:address/alerts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AlertSettingsService } from '../../domain/alerts/alert-settings.js';
import { described, errorResponses } from '../schemas/common.js';
import { strictValidatorCompiler } from '../validator.js';
import { AlertSettings, AlertSettingsParams, UpdateAlertSettingsBody } from './alerts.schemas.js';

export const alertRoutes: FastifyPluginAsyncTypebox<{ alerts: AlertSettingsService }> = async (
  app,
  { alerts },
) => {
  app.setValidatorCompiler(strictValidatorCompiler);

  app.get(
    '/api/vaults/:address/alerts',
    {
      config: { auth: 'required', rateLimitCategory: 'read' },
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
      config: { auth: 'required', rateLimitCategory: 'write' },
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
    async (request) => alerts.updateAlertSettings(request.wallet!, request.params.address, request.body),
  );
};
