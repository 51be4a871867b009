// Owners' exports (docs/API.md, Exports): each kind is a row source and a column list; the service checks
// who may read what, takes one of the owner's export slots and hands back a stream that frees it when it
// closes. Each kind (transactions, overrides, the audit trail) is one entry in EXPORT_KINDS.
import type { Readable } from 'node:stream';
import type { Clock } from '../../lib/clock.js';
import type { Storage } from '../../storage/database.js';
import { AUDIT_EXPORT_COLUMNS, createAuditExportSource } from './audit-export.js';
import type { ExportColumn, ExportFormat } from './export-format.js';
import { buildExportEncoder } from './export-format.js';
import { createExportSlots, type ExportQuery, type ExportScope, resolveExportScope } from './export-scope.js';
import { createExportStream, type RowSource } from './export-stream.js';
import { createOverrideExportSource, OVERRIDE_EXPORT_COLUMNS } from './override-export.js';
import { createTransactionExportSource, TRANSACTION_EXPORT_COLUMNS } from './transaction-export.js';

export interface ExportKind<Row> {
  readonly columns: readonly ExportColumn<Row>[];
  readonly source: (storage: Storage, scope: ExportScope, now: Date) => RowSource<Row>;
}

/** A kind checked against its own row type, then held beside kinds of other rows. */
const defineKind = <Row>(kind: ExportKind<Row>) => kind as unknown as ExportKind<unknown>;

export const EXPORT_KINDS = {
  transactions: defineKind({
    columns: TRANSACTION_EXPORT_COLUMNS,
    source: (storage, scope) => createTransactionExportSource(storage, scope),
  }),
  overrides: defineKind({ columns: OVERRIDE_EXPORT_COLUMNS, source: createOverrideExportSource }),
  audit: defineKind({ columns: AUDIT_EXPORT_COLUMNS, source: createAuditExportSource }),
};

export type ExportKindName = keyof typeof EXPORT_KINDS;

export interface ExportRequest extends ExportQuery {
  format?: ExportFormat | undefined;
}

export interface ExportDownload {
  readonly filename: string;
  readonly contentType: string;
  readonly stream: Readable;
}

export interface ExportServiceDeps {
  readonly storage: Storage;
  readonly clock: Clock;
  /** Rows per database read (tests make it small to cross batch edges). */
  readonly batchSize?: number;
  readonly perOwner?: number;
}

const day = (date: Date) => date.toISOString().slice(0, 10);

export function createExportService(deps: ExportServiceDeps) {
  const slots = createExportSlots(deps.perOwner);

  async function startExport(kindName: ExportKindName, wallet: string, request: ExportRequest) {
    const kind = EXPORT_KINDS[kindName];
    const format = request.format ?? 'csv';
    const now = deps.clock.now();
    const scope = await resolveExportScope(deps.storage, wallet, request, now);
    const release = slots.acquire(wallet);
    const stream = createExportStream({
      source: kind.source(deps.storage, scope, now),
      columns: kind.columns,
      format,
      ...(deps.batchSize === undefined ? {} : { batchSize: deps.batchSize }),
    });
    stream.once('close', release);
    const encoder = buildExportEncoder(kind.columns, format);
    const subject = scope.subject.slice(0, 8);
    const lastDay = day(new Date(scope.to.getTime() - 1));
    return {
      filename: `vaultkeeper-${kindName}-${subject}-${day(scope.from)}-${lastDay}.${encoder.extension}`,
      contentType: encoder.contentType,
      stream,
    } satisfies ExportDownload;
  }

  return {
    /** Exports running now in this process (a gauge for tests and metrics). */
    running: slots.open,
    /** The owner's transactions (one vault, or all theirs) in a time range, oldest first. */
    exportTransactions: (wallet: string, request: ExportRequest) =>
      startExport('transactions', wallet, request),
    /** The owner's overrides by creation time, oldest first. */
    exportOverrides: (wallet: string, request: ExportRequest) => startExport('overrides', wallet, request),
    /** The owner's audit trail (or one vault's) by time, oldest first. */
    exportAudit: (wallet: string, request: ExportRequest) => startExport('audit', wallet, request),
  };
}

export type ExportService = ReturnType<typeof createExportService>;
