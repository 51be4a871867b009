// Owners' exports: the file as it streams (to save it without holding it), or its rows one at a time
// (the JSON Lines form read as it arrives).
import { type CallOptions, type Transport, VaultkeeperError } from './transport.js';
import type { AuditExportQuery, OverrideExportQuery, TransactionExportQuery } from './types.js';

type ExportQuery = TransactionExportQuery | OverrideExportQuery | AuditExportQuery;

export type ExportKind = 'transactions' | 'overrides' | 'audit';

export interface ExportFile {
  /** The file name the service suggests (Content-Disposition), or null. */
  filename: string | null;
  contentType: string;
  /** The file's bytes as they arrive; read it to the end or cancel it (the service stops reading). */
  body: ReadableStream<Uint8Array>;
}

/** A row of the transactions export (JSON Lines): amounts are exact decimal strings. */
export interface ExportedTransaction {
  signature: string | null;
  slot: number | null;
  block_time: string;
  vault: string;
  vault_name: string;
  status: 'executed' | 'blocked' | 'pending';
  amount_lamports: string;
  amount_sol: string;
  fee_lamports: string | null;
  destination: string;
  block_reason: string | null;
  override_nonce: string | null;
  commitment: string;
}

/** A row of the overrides export (JSON Lines). */
export interface ExportedOverride {
  nonce: string;
  vault: string;
  vault_name: string;
  status: 'pending' | 'approved' | 'rejected' | 'executed';
  expired: boolean;
  amount_lamports: string;
  amount_sol: string;
  destination: string;
  block_reason: string | null;
  transfer_signature: string | null;
  created_at: string;
  expires_at: string;
  approved_at: string | null;
  rejected_at: string | null;
  executed_at: string | null;
}

/** A row of the audit trail export (JSON Lines). */
export interface ExportedAuditEntry {
  at: string;
  actor: string;
  action: string;
  target: string;
  vault: string | null;
  outcome: string;
  client: string | null;
  request_id: string | null;
  id: string;
}

const FILENAME = /filename="([^"]*)"/;

async function* readLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let rest = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      rest += done ? decoder.decode() : decoder.decode(value, { stream: true });
      const lines = rest.split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) if (line !== '') yield line;
      if (done) break;
    }
    if (rest !== '') yield rest;
  } finally {
    await reader.cancel().catch(() => {});
  }
}

export function exportMethods(t: Transport) {
  async function open(kind: ExportKind, query: ExportQuery, o: CallOptions): Promise<ExportFile> {
    const response = await t.open({
      method: 'GET',
      path: `/api/exports/${kind}`,
      query,
      auth: 'required',
      headers: { accept: query.format === 'jsonl' ? 'application/x-ndjson' : 'text/csv' },
      ...o,
    });
    if (response.body === null) {
      throw new VaultkeeperError('INVALID_RESPONSE', 'The export answered no body', response.status);
    }
    const disposition = response.headers.get('content-disposition') ?? '';
    return {
      filename: FILENAME.exec(disposition)?.[1] ?? null,
      contentType: response.headers.get('content-type') ?? '',
      body: response.body,
    };
  }

  async function* rows<Row>(kind: ExportKind, query: Omit<ExportQuery, 'format'>, o: CallOptions) {
    const file = await open(kind, { ...query, format: 'jsonl' }, o);
    for await (const line of readLines(file.body)) yield JSON.parse(line) as Row;
  }

  return {
    /** The owner's transactions in a time range as a file (CSV unless `format: 'jsonl'`), streamed. */
    transactions: (query: TransactionExportQuery = {}, o: CallOptions = {}) => open('transactions', query, o),
    /** The owner's overrides by creation time as a file, streamed. */
    overrides: (query: OverrideExportQuery = {}, o: CallOptions = {}) => open('overrides', query, o),
    /** Each exported transaction as an object, oldest first, read as the export streams. */
    transactionRows: (query: Omit<TransactionExportQuery, 'format'> = {}, o: CallOptions = {}) =>
      rows<ExportedTransaction>('transactions', query, o),
    /** Each exported override as an object, oldest first. */
    overrideRows: (query: Omit<OverrideExportQuery, 'format'> = {}, o: CallOptions = {}) =>
      rows<ExportedOverride>('overrides', query, o),
    /** The owner's audit trail (or one vault's) by time as a file, streamed. */
    audit: (query: AuditExportQuery = {}, o: CallOptions = {}) => open('audit', query, o),
    /** Each exported audit entry as an object, oldest first. */
    auditRows: (query: Omit<AuditExportQuery, 'format'> = {}, o: CallOptions = {}) =>
      rows<ExportedAuditEntry>('audit', query, o),
  };
}
