import { Type } from '@fastify/type-provider-typebox';
import { EXPORT_FORMATS } from '../../domain/exports/export-format.js';
import { Address, StringEnum } from '../../lib/json-schema.js';
import { OVERRIDE_STATUSES } from '../../storage/schema/overrides.js';
import { TRANSACTION_STATUSES } from '../../storage/schema/transactions.js';

const Bound = (description: string) =>
  Type.String({ minLength: 10, maxLength: 40, pattern: '^\\d{4}-\\d{2}-\\d{2}', description });

const exportQuery = <const T extends readonly string[]>(resource: string, statuses: T) =>
  Type.Object(
    {
      vault: Type.Optional(Address(`only the ${resource} of this vault (yours)`)),
      owner: Type.Optional(Address(`every vault of this owner (yours; the default when vault is not given)`)),
      from: Type.Optional(
        Bound(
          'first day (YYYY-MM-DD, UTC) or instant (ISO 8601 with offset), inclusive; default: the first record',
        ),
      ),
      to: Type.Optional(
        Bound(
          'last day (YYYY-MM-DD, UTC, included) or instant (ISO 8601 with offset, excluded); default: now',
        ),
      ),
      status: Type.Optional(StringEnum(statuses)),
      format: Type.Optional(StringEnum(EXPORT_FORMATS, { description: 'csv (default) or jsonl' })),
    },
    { additionalProperties: false },
  );

export const TransactionExportQuery = exportQuery('transactions', TRANSACTION_STATUSES);
export const OverrideExportQuery = exportQuery('overrides', OVERRIDE_STATUSES);
/** The audit trail's export takes no status: its entries have an outcome, and are all exported. */
const { status: _status, ...auditFields } = exportQuery('audit entries', ['ok'] as const).properties;
export const AuditExportQuery = Type.Object(auditFields, { additionalProperties: false });

/** The file: CSV with a header row, or JSON Lines; streamed, `Content-Disposition: attachment`. */
export const ExportFileResponse = (columns: readonly string[]) => ({
  description:
    'The export as a download (`Content-Disposition: attachment; filename="vaultkeeper-<kind>-<vault or ' +
    `owner>-<first day>-<last day>.<csv|jsonl>"\`), oldest first. Columns: ${columns.join(', ')}`,
  content: {
    'text/csv': { schema: Type.String({ description: 'RFC 4180, a header row, CRLF line ends' }) },
    'application/x-ndjson': {
      schema: Type.String({ description: 'one JSON object a line, keyed by the column names' }),
    },
  },
});
