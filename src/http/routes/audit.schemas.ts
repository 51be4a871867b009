import { Type } from '@fastify/type-provider-typebox';
import { AuditEntry } from '../../domain/audit/audit-entry.js';
import { DEFAULT_AUDIT_LIMIT, MAX_AUDIT_LIMIT } from '../../domain/audit/audit-service.js';
import { Address } from '../../lib/json-schema.js';

export { AuditEntry };

export const AuditQuery = Type.Object(
  {
    owner: Type.Optional(Address('the owner whose trail to read: the caller (default)')),
    vault: Type.Optional(Address('only entries about this vault (one of the caller’s)')),
    action: Type.Optional(
      Type.String({
        pattern: '^[a-z_]+\\.[a-z_]+$',
        maxLength: 64,
        description: 'only this action, e.g. `webhook.delete`',
      }),
    ),
    before: Type.Optional(
      Type.String({ maxLength: 200, description: 'the `pagination.next` of the previous page' }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_AUDIT_LIMIT, default: DEFAULT_AUDIT_LIMIT }),
    ),
  },
  { additionalProperties: false },
);

export const AuditPage = Type.Object(
  {
    entries: Type.Array(Type.Unsafe<AuditEntry>({ $ref: 'AuditEntry#' })),
    pagination: Type.Object(
      {
        limit: Type.Integer(),
        next: Type.Unsafe<string | null>({
          type: ['string', 'null'],
          description: 'pass as `before` for the next (older) page; null on the last page',
        }),
      },
      { title: 'AuditPagination' },
    ),
  },
  { title: 'AuditPage' },
);
