// `vaultkeeper export transactions|overrides|audit`: the owner's export through the service, written as it
// streams (never held in memory), to a `.part` file renamed once the service has sent all of it.
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createVaultkeeperClient } from '@vaultkeeper/client';
import { type ApiAccess, callApi, parseAddress, text, type Values } from './api-commands.js';
import { CliError, EXIT, type Output } from './output.js';

const FORMATS = ['csv', 'jsonl'] as const;
const STATUSES = {
  transactions: ['executed', 'blocked', 'pending'],
  overrides: ['pending', 'approved', 'rejected', 'executed'],
  audit: [],
} as const;

export type ExportKind = keyof typeof STATUSES;

function parseExportQuery(kind: ExportKind, values: Values) {
  const format = text(values, 'format');
  if (format !== undefined && !(FORMATS as readonly string[]).includes(format)) {
    throw new CliError(`--format must be csv or jsonl, got "${format}"`, EXIT.usage);
  }
  const status = text(values, 'status');
  if (status !== undefined && STATUSES[kind].length === 0) {
    throw new CliError(`export ${kind} takes no --status`, EXIT.usage);
  }
  if (status !== undefined && !(STATUSES[kind] as readonly string[]).includes(status)) {
    throw new CliError(`--status must be one of ${STATUSES[kind].join(', ')}, got "${status}"`, EXIT.usage);
  }
  const query: Record<string, string> = {};
  const vault = parseAddress(text(values, 'vault'), '--vault');
  for (const [name, value] of Object.entries({ vault, from: text(values, 'from'), to: text(values, 'to') })) {
    if (value !== undefined) query[name] = value;
  }
  if (status !== undefined) query.status = status;
  if (format !== undefined) query.format = format;
  return query as { format?: 'csv' | 'jsonl' };
}

/** A pipeline step that counts the bytes passing through it. */
function createByteCounter() {
  const counter = { bytes: 0, through };
  async function* through(source: AsyncIterable<Uint8Array>) {
    for await (const chunk of source) {
      counter.bytes += chunk.byteLength;
      yield chunk;
    }
  }
  return counter;
}

export async function runExportCommand(
  kind: ExportKind,
  values: Values,
  access: () => ApiAccess,
  out: Output,
  stdout: Writable = process.stdout,
): Promise<number> {
  const query = parseExportQuery(kind, values);
  const target = text(values, 'out');
  const api = access();
  const client = createVaultkeeperClient({ baseUrl: api.baseUrl, signer: api.apiKey, maxRetries: 1 });
  const file = await callApi(api, () => client.exports[kind](query));
  const source = Readable.fromWeb(file.body as unknown as WebReadableStream<Uint8Array>);
  const counter = createByteCounter();
  if (target === undefined) {
    await pipeline(source, counter.through, stdout, { end: false });
    out.note(`exported ${counter.bytes} bytes (${file.filename ?? kind})`);
    return EXIT.ok;
  }
  const partial = `${target}.part`;
  try {
    await pipeline(source, counter.through, createWriteStream(partial, { mode: 0o600 }));
    await rename(partial, target);
  } catch (error) {
    await rm(partial, { force: true });
    throw new CliError(`the export stopped before its end: ${(error as Error).message}`, EXIT.failed);
  }
  out.result({ file: target, bytes: counter.bytes, filename: file.filename, contentType: file.contentType });
  out.line(`wrote ${counter.bytes} bytes to ${target}`);
  return EXIT.ok;
}
