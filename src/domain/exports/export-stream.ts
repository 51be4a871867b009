// An export as a byte stream read from the database in keyset batches: the next batch is read only when
// the client has taken the previous one (Readable.from pulls on demand), so a slow client holds the
// server to about one batch in memory however long the export.
import { Readable } from 'node:stream';
import { buildExportEncoder, type ExportColumn, type ExportFormat } from './export-format.js';

/** Rows in the export's order, read after the last row of the previous batch (keyset, never an offset). */
export interface RowSource<Row> {
  /** Up to `limit` rows after `after` (null: from the start). */
  readBatch(after: Row | null, limit: number): Promise<Row[]>;
}

export interface ExportStreamSpec<Row> {
  readonly source: RowSource<Row>;
  readonly columns: readonly ExportColumn<Row>[];
  readonly format: ExportFormat;
  /** Rows a database read brings (default 1 000). */
  readonly batchSize?: number;
  /** Stops reading at the next batch. */
  readonly signal?: AbortSignal;
}

export const EXPORT_BATCH_ROWS = 1_000;
/** The stream buffers no more than this before it stops reading (one batch's text may pass it once). */
const HIGH_WATER_MARK = 64 * 1024;

async function* exportChunks<Row>(spec: ExportStreamSpec<Row>): AsyncGenerator<string> {
  const encoder = buildExportEncoder(spec.columns, spec.format);
  const batchSize = spec.batchSize ?? EXPORT_BATCH_ROWS;
  if (encoder.header !== '') yield encoder.header;
  let after: Row | null = null;
  for (;;) {
    spec.signal?.throwIfAborted();
    const rows = await spec.source.readBatch(after, batchSize);
    if (rows.length === 0) return;
    let text = '';
    for (const row of rows) text += encoder.encode(row);
    yield text;
    if (rows.length < batchSize) return;
    after = rows[rows.length - 1]!;
  }
}

/** The export's bytes; destroying the stream (the client left) stops the reads. */
export function createExportStream<Row>(spec: ExportStreamSpec<Row>): Readable {
  return Readable.from(exportChunks(spec), { objectMode: false, highWaterMark: HIGH_WATER_MARK });
}
