// Owners' exports (docs/API.md, Exports): a file streamed from the database, the owner's only.
import type { FastifyPluginAsyncTypebox, TSchema } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { AUDIT_EXPORT_COLUMNS } from '../../domain/exports/audit-export.js';
import type { ExportDownload, ExportService } from '../../domain/exports/export-service.js';
import { OVERRIDE_EXPORT_COLUMNS } from '../../domain/exports/override-export.js';
import { TRANSACTION_EXPORT_COLUMNS } from '../../domain/exports/transaction-export.js';
import '../plugins/route-scope.js';
import { errorResponses } from '../schemas/common.js';
import { strictValidatorCompiler } from '../validator.js';
import {
  AuditExportQuery,
  ExportFileResponse,
  OverrideExportQuery,
  TransactionExportQuery,
} from './exports.schemas.js';

const tags = ['exports'];
const config = {
  auth: 'required',
  scope: 'exports',
  keyVault: { in: 'query', name: 'vault', kind: 'vault' },
  rateLimitCategory: 'read',
} as const;
const names = (columns: readonly { name: string }[]) => columns.map((c) => c.name);

/** One export route's schema: its query, and the file with its columns as the 200. */
function exportSchema<Query extends TSchema>(
  operationId: string,
  summary: string,
  querystring: Query,
  columns: readonly { name: string }[],
) {
  return {
    operationId,
    tags,
    summary: `${summary} as CSV or JSON Lines (owner only, 2 at once)`,
    querystring,
    response: { 200: ExportFileResponse(names(columns)), ...errorResponses(401, 403, 404, 429) },
  };
}

/** Sends the stream as an attachment; a client that leaves ends the database reads. */
function sendDownload(reply: FastifyReply, download: ExportDownload) {
  reply.raw.once('close', () => download.stream.destroy());
  return reply
    .type(download.contentType)
    .header('content-disposition', `attachment; filename="${download.filename}"`)
    .send(download.stream);
}

export const exportRoutes: FastifyPluginAsyncTypebox<{ exports: ExportService }> = async (
  app,
  { exports },
) => {
  app.setValidatorCompiler(strictValidatorCompiler);

  app.get(
    '/api/exports/transactions',
    {
      config,
      schema: exportSchema(
        'exportTransactions',
        "The owner's transactions in a time range",
        TransactionExportQuery,
        TRANSACTION_EXPORT_COLUMNS,
      ),
    },
    async (request, reply) =>
      sendDownload(reply, await exports.exportTransactions(request.wallet!, request.query)),
  );

  app.get(
    '/api/exports/overrides',
    {
      config,
      schema: exportSchema(
        'exportOverrides',
        "The owner's overrides by creation time",
        OverrideExportQuery,
        OVERRIDE_EXPORT_COLUMNS,
      ),
    },
    async (request, reply) =>
      sendDownload(reply, await exports.exportOverrides(request.wallet!, request.query)),
  );

  app.get(
    '/api/exports/audit',
    {
      config,
      schema: exportSchema(
        'exportAudit',
        "The owner's audit trail (or one vault's)",
        AuditExportQuery,
        AUDIT_EXPORT_COLUMNS,
      ),
    },
    async (request, reply) => sendDownload(reply, await exports.exportAudit(request.wallet!, request.query)),
  );
};
