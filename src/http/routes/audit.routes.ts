// GET /api/audit: the owner's audit trail, newest first, a page at a time. Nothing here, or anywhere,
// changes or deletes an entry.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AuditService } from '../../domain/audit/audit-service.js';
import { described, errorResponses } from '../schemas/common.js';
import { AuditPage, AuditQuery } from './audit.schemas.js';

export const auditRoutes: FastifyPluginAsyncTypebox<{ audit: AuditService }> = async (app, { audit }) => {
  app.get(
    '/api/audit',
    {
      config: {
        auth: 'required',
        scope: 'audit',
        keyVault: { in: 'query', name: 'vault', kind: 'vault' },
        rateLimitCategory: 'read',
      },
      schema: {
        operationId: 'listAuditEntries',
        tags: ['audit'],
        summary: "The owner's audit trail, newest first (owner only; cursor pagination with `before`)",
        querystring: AuditQuery,
        response: {
          200: described(AuditPage, 'A page of entries, newest first'),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => audit.listAuditEntries(request.wallet!, request.query),
  );
};
