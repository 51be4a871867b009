// The encoders of an export: CSV (RFC 4180: a header row, CRLF line ends, fields with a comma, quote or
// line break quoted, quotes doubled) and JSONL (one JSON object a line, keyed by the column names).

export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** A cell: text, a number (JSONL keeps it a number), a boolean, or null (empty in CSV). */
export type ExportCell = string | number | boolean | null;

export interface ExportColumn<Row> {
  readonly name: string;
  readonly value: (row: Row) => ExportCell;
  /**
   * Free text someone typed (a vault name): in CSV, a value a spreadsheet would run as a formula
   * (starting with = + - @, a tab or a carriage return) gets a leading apostrophe.
   */
  readonly freeText?: boolean;
}

export interface ExportEncoder<Row> {
  readonly contentType: string;
  readonly extension: string;
  /** What comes before the first row (the CSV header); empty for JSONL. */
  readonly header: string;
  /** One row as its line, line end included. */
  encode(row: Row): string;
}

const NEEDS_QUOTES = /[",\r\n]/;
const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV field per RFC 4180: quoted only when it must be. */
export function csvField(value: ExportCell, freeText = false): string {
  if (value === null) return '';
  let text = String(value);
  if (freeText && FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function csvEncoder<Row>(columns: readonly ExportColumn<Row>[]): ExportEncoder<Row> {
  return {
    contentType: 'text/csv; charset=utf-8; header=present',
    extension: 'csv',
    header: `${columns.map((c) => csvField(c.name)).join(',')}\r\n`,
    encode(row) {
      let line = '';
      for (let i = 0; i < columns.length; i++) {
        const column = columns[i]!;
        line += (i === 0 ? '' : ',') + csvField(column.value(row), column.freeText === true);
      }
      return `${line}\r\n`;
    },
  };
}

function jsonlEncoder<Row>(columns: readonly ExportColumn<Row>[]): ExportEncoder<Row> {
  return {
    contentType: 'application/x-ndjson; charset=utf-8',
    extension: 'jsonl',
    header: '',
    encode(row) {
      const object: Record<string, ExportCell> = {};
      for (const column of columns) object[column.name] = column.value(row);
      return `${JSON.stringify(object)}\n`;
    },
  };
}

export function buildExportEncoder<Row>(
  columns: readonly ExportColumn<Row>[],
  format: ExportFormat,
): ExportEncoder<Row> {
  return format === 'csv' ? csvEncoder(columns) : jsonlEncoder(columns);
}

/** Lamports (a decimal integer string) as SOL with exactly nine decimals, by text alone: "1500000000" → "1.500000000". */
export function lamportsToSolText(lamports: string): string {
  const padded = lamports.padStart(10, '0');
  return `${padded.slice(0, -9)}.${padded.slice(-9)}`;
}
