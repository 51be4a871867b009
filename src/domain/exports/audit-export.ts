// The audit trail export: the owner's entries (or one vault's) in a time range, oldest first, read a
// page at a time through the audit trail's own ascending range query; columns in docs/API.md, Exports.
import type { Storage } from '../../storage/database.js';
import { encodeAuditCursor } from '../audit/audit-cursor.js';
import type { AuditEntry } from '../audit/audit-entry.js';
import { listAuditEntriesAscending } from '../audit/audit-service.js';
import type { ExportColumn } from './export-format.js';
import type { ExportScope } from './export-scope.js';
import type { RowSource } from './export-stream.js';

export const AUDIT_EXPORT_COLUMNS: readonly ExportColumn<AuditEntry>[] = [
  { name: 'at', value: (r) => r.at },
  { name: 'actor', value: (r) => r.actor },
  { name: 'action', value: (r) => r.action },
  { name: 'target', value: (r) => r.target },
  { name: 'vault', value: (r) => r.vault },
  { name: 'outcome', value: (r) => r.outcome },
  { name: 'client', value: (r) => r.client },
  { name: 'request_id', value: (r) => r.requestId },
  { name: 'id', value: (r) => r.id },
];

/** The scope's audit entries by (at, id): the owner's trail, or the one vault's when a vault was asked for. */
export function createAuditExportSource(storage: Storage, scope: ExportScope): RowSource<AuditEntry> {
  return {
    async readBatch(after, limit) {
      const page = await listAuditEntriesAscending(storage.db, {
        owner: scope.owner,
        vault: scope.vault ?? undefined,
        from: scope.from,
        to: scope.to,
        after: after === null ? undefined : encodeAuditCursor(after),
        limit,
      });
      return page.entries;
    },
  };
}
