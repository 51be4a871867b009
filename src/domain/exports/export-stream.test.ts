import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { buildExportEncoder, csvField, type ExportColumn, lamportsToSolText } from './export-format.js';
import { createExportStream, type RowSource } from './export-stream.js';

interface Row {
  id: number;
  name: string;
  amount: string;
}

const COLUMNS: readonly ExportColumn<Row>[] = [
  { name: 'id', value: (r) => r.id },
  { name: 'name', value: (r) => r.name, freeText: true },
  { name: 'amount_sol', value: (r) => lamportsToSolText(r.amount) },
];

/** Rows 1..total, counting the reads. */
function countingSource(total: number): RowSource<Row> & { reads: number } {
  const source = {
    reads: 0,
    async readBatch(after: Row | null, limit: number) {
      source.reads += 1;
      const first = (after?.id ?? 0) + 1;
      const last = Math.min(total, first + limit - 1);
      return Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => ({
        id: first + i,
        name: `row ${first + i}`,
        amount: String(first + i),
      }));
    },
  };
  return source;
}

/** Characters CSV must carry through: separators, quotes, both line ends, and wide ones. */
const CHARACTERS = fc.constantFrom('a', ',', '"', '\r', '\n', ' ', ';', '\t', '=', 'é', '😀');

const text = async (stream: NodeJS.ReadableStream) => {
  let all = '';
  for await (const chunk of stream) all += String(chunk);
  return all;
};

describe('export encoders', () => {
  test('CSV quotes only what RFC 4180 says, doubles quotes, and empty is null', () => {
    assert.equal(csvField('plain'), 'plain');
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('two\r\nlines'), '"two\r\nlines"');
    assert.equal(csvField('lf\nonly'), '"lf\nonly"');
    assert.equal(csvField(null), '');
    assert.equal(csvField(12), '12');
    assert.equal(csvField(false), 'false');
  });

  test('free text a spreadsheet would run as a formula gets an apostrophe in CSV only', () => {
    assert.equal(csvField('=HYPERLINK("x")', true), '"\'=HYPERLINK(""x"")"');
    assert.equal(csvField('+1', true), "'+1");
    assert.equal(csvField('@sum', true), "'@sum");
    assert.equal(csvField('-2', false), '-2');
    const jsonl = buildExportEncoder(COLUMNS, 'jsonl');
    assert.equal(
      jsonl.encode({ id: 1, name: '=1+1', amount: '5' }),
      '{"id":1,"name":"=1+1","amount_sol":"0.000000005"}\n',
    );
  });

  test('SOL has exactly nine decimals, by text alone', () => {
    assert.equal(lamportsToSolText('0'), '0.000000000');
    assert.equal(lamportsToSolText('1'), '0.000000001');
    assert.equal(lamportsToSolText('1500000000'), '1.500000000');
    assert.equal(lamportsToSolText('18446744073709551615'), '18446744073.709551615');
  });

  test('any text survives CSV encoding read back by csv-parse', () => {
    const encoder = buildExportEncoder(COLUMNS, 'csv');
    fc.assert(
      fc.property(fc.array(fc.string({ unit: CHARACTERS }), { minLength: 1, maxLength: 5 }), (names) => {
        const rows = names.map((name, id) => ({ id, name: name.replace(/^[=+\-@\t\r]/, 'x'), amount: '7' }));
        const csv = encoder.header + rows.map((row) => encoder.encode(row)).join('');
        const read = parse(csv, { columns: true }) as Record<string, string>[];
        assert.deepEqual(
          read.map((r) => r.name),
          rows.map((r) => r.name),
        );
      }),
    );
  });
});

describe('export stream', () => {
  test('reads keyset batches until a short one, header first', async () => {
    const source = countingSource(5);
    const csv = await text(createExportStream({ source, columns: COLUMNS, format: 'csv', batchSize: 2 }));
    assert.equal(
      csv,
      'id,name,amount_sol\r\n1,row 1,0.000000001\r\n2,row 2,0.000000002\r\n3,row 3,0.000000003\r\n4,row 4,0.000000004\r\n5,row 5,0.000000005\r\n',
    );
    assert.equal(source.reads, 3);
  });

  test('a client that stops reading stops the database reads; leaving ends them', async () => {
    const source = countingSource(Number.MAX_SAFE_INTEGER);
    const stream = createExportStream({ source, columns: COLUMNS, format: 'jsonl', batchSize: 2_000 });
    // A socket whose peer never reads: it takes one chunk and never asks for more.
    const stuck = new Writable({ highWaterMark: 16 * 1024, write: () => {} });
    stream.pipe(stuck);
    for (let turn = 0; turn < 200; turn++) await new Promise((resolve) => setImmediate(resolve));
    assert.ok(source.reads >= 1 && source.reads <= 3, `read ${source.reads} batches for a stuck client`);
    assert.ok(stream.readableLength <= 2 * 2_000 * 80, `buffered ${stream.readableLength} bytes`);
    const readsWhenGone = source.reads;
    const closed = new Promise((resolve) => stream.once('close', resolve));
    stream.destroy();
    await closed;
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(source.reads, readsWhenGone);
  });
});
