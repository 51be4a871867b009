// Owners' exports: CSV read back by a real CSV parser and JSON Lines equal the API's rows for the same
// range (exact amounts, names with commas, quotes and line breaks intact); only the owner exports; a
// third export at once is 429; the client package and the CLI write the same file.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { get, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, test } from 'node:test';
import { createVaultkeeperClient } from '@vaultkeeper/client';
import { parse } from 'csv-parse/sync';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import { runExportCommand } from '../../src/cli/export-command.js';
import { CliError, createOutput } from '../../src/cli/output.js';
import { auditEntries, type VaultRow } from '../../src/storage/schema/index.js';
import { createOverride, createTransaction, createVault } from '../support/factories.js';
import { useTestApps } from '../support/test-apps.js';
import { waitFor } from '../support/wait.js';

const apps = useTestApps({ env: { RATE_LIMIT_ENABLED: 'false' } });
const start = async () => (await apps.start()).app;

const TRANSACTION_COLUMNS = [
  'signature',
  'slot',
  'block_time',
  'vault',
  'vault_name',
  'status',
  'amount_lamports',
  'amount_sol',
  'fee_lamports',
  'destination',
  'block_reason',
  'override_nonce',
  'commitment',
];
const HARD_NAME = 'Ops, "main"\r\nsecond line, with = and ;';
const U64_MAX = 18_446_744_073_709_551_615n;

let owner: TestWallet;
let stranger: TestWallet;
let vault: VaultRow;
let other: VaultRow;
let nonce: bigint;

beforeEach(async () => {
  owner = createTestWallet();
  stranger = createTestWallet();
  vault = await createVault(apps.db, { authority: owner.address, name: HARD_NAME });
  other = await createVault(apps.db, { authority: owner.address, name: 'Payroll' });
  const strangers = await createVault(apps.db, { authority: stranger.address });
  const day = (d: number, h = 12) => new Date(Date.UTC(2025, 10, d, h, 0, 0, 123));
  const override = await createOverride(apps.db, { vault, createdAt: day(3, 9) });
  nonce = override.nonce;
  await createTransaction(apps.db, { vault, amount: 1n, timestamp: day(1) });
  await createTransaction(apps.db, { vault, amount: U64_MAX, feeCollected: 7n, timestamp: day(2) });
  await createTransaction(apps.db, {
    vault,
    status: 'blocked',
    override,
    amount: 2_500_000_000n,
    timestamp: day(3),
  });
  await createTransaction(apps.db, { vault, status: 'pending', amount: 123_456_789n, timestamp: day(4, 23) });
  await createTransaction(apps.db, { vault: other, amount: 5_000_000_000n, timestamp: day(3, 1) });
  await createTransaction(apps.db, { vault: strangers, amount: 42n, timestamp: day(3) });
  await createTransaction(apps.db, { vault, amount: 9n, timestamp: day(6) });
});

/** Wallet headers bound to this GET (method, path and query). */
const signedGet = (wallet: TestWallet, url: string) =>
  wallet.authHeaders({ request: { method: 'GET', path: url } });

async function exportText(app: FastifyInstance, query: string, wallet = owner) {
  const url = `/api/exports/transactions?${query}`;
  const response = await app.inject({ method: 'GET', url, headers: signedGet(wallet, url) });
  assert.equal(response.statusCode, 200, response.body);
  return { text: response.body, headers: response.headers };
}

/** What the API's list says of the vault's transactions in [from, to), as the export's columns. */
async function apiRows(app: FastifyInstance, of: VaultRow, from: string, to: string) {
  const list = await app.inject({ method: 'GET', url: `/api/transactions?vault=${of.address}&limit=100` });
  const detail = await app.inject({ method: 'GET', url: `/api/vaults/${of.address}` });
  const name = (detail.json() as { name: string }).name;
  type Item = {
    signature: string | null;
    vault: string;
    status: string;
    amount: string;
    feeCollected?: string;
    destination: string;
    blockReason: string | null;
    timestamp: string;
    blinkUrl?: string;
  };
  return (list.json() as { transactions: Item[] }).transactions
    .filter((t) => t.timestamp >= from && t.timestamp < to)
    .reverse()
    .map((t) => ({
      block_time: t.timestamp,
      vault: t.vault,
      vault_name: name,
      status: t.status,
      amount_lamports: t.amount,
      fee_lamports: t.feeCollected ?? null,
      destination: t.destination,
      block_reason: t.blockReason,
      override_nonce: t.blinkUrl === undefined ? null : String(nonce),
      ...(t.status === 'executed' ? { signature: t.signature } : {}),
    }));
}

/** The export's rows reduced to what the list shows (the list hides blocked attempts' signatures). */
function comparable(rows: Record<string, unknown>[]) {
  return rows.map(({ signature, slot: _slot, amount_sol: _sol, commitment: _c, ...rest }) => ({
    ...rest,
    fee_lamports: rest.fee_lamports === '' ? null : rest.fee_lamports,
    block_reason: rest.block_reason === '' ? null : rest.block_reason,
    override_nonce: rest.override_nonce === '' ? null : rest.override_nonce,
    ...(rest.status === 'executed' ? { signature } : {}),
  }));
}

const solOf = (lamports: string) => {
  const padded = lamports.padStart(10, '0');
  return `${padded.slice(0, -9)}.${padded.slice(-9)}`;
};

describe('transactions export', () => {
  test('CSV parsed back by csv-parse equals the API rows of the range: exact amounts, the name intact', async () => {
    const app = await start();
    const { text, headers } = await exportText(app, `vault=${vault.address}&from=2025-11-02&to=2025-11-04`);
    assert.match(String(headers['content-type']), /^text\/csv/);
    assert.match(
      String(headers['content-disposition']),
      /^attachment; filename="vaultkeeper-transactions-\w{8}-2025-11-02-2025-11-04\.csv"$/,
    );
    assert.equal(headers['cache-control'], 'no-store');
    const records = parse(text, { columns: true }) as Record<string, string>[];
    assert.deepEqual(Object.keys(records[0]!), TRANSACTION_COLUMNS);
    assert.ok(text.startsWith(`${TRANSACTION_COLUMNS.join(',')}\r\n`));
    assert.deepEqual(comparable(records), await apiRows(app, vault, '2025-11-02', '2025-11-05'));
    assert.equal(records.length, 3);
    assert.equal(records[0]!.vault_name, HARD_NAME);
    assert.equal(records[0]!.amount_lamports, U64_MAX.toString());
    assert.equal(records[0]!.amount_sol, '18446744073.709551615');
    for (const r of records) {
      assert.equal(r.amount_sol, solOf(r.amount_lamports!));
      assert.equal(r.commitment, 'confirmed');
      assert.match(r.slot!, /^\d+$/);
    }
    assert.ok(records[1]!.signature, 'a blocked attempt keeps the signature of its transaction');
    assert.equal(records[2]!.amount_sol, '0.123456789');
  });

  test('JSONL: one object a line, the same rows; the owner export covers every vault of the owner only', async () => {
    const app = await start();
    const { text, headers } = await exportText(app, `from=2025-11-01&to=2025-11-05&format=jsonl`);
    assert.match(String(headers['content-type']), /^application\/x-ndjson/);
    assert.ok(text.endsWith('\n'));
    const rows = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(Object.keys(rows[0]!), TRANSACTION_COLUMNS);
    assert.deepEqual(new Set(rows.map((r) => r.vault)), new Set([vault.address, other.address]));
    const mine = rows.filter((r) => r.vault === vault.address);
    assert.deepEqual(comparable(mine), await apiRows(app, vault, '2025-11-01', '2025-11-06'));
    assert.equal(typeof rows[0]!.slot, 'number');
    const times = rows.map((r) => String(r.block_time));
    assert.deepEqual(times, [...times].sort(), 'oldest first');
    const status = await exportText(app, `owner=${owner.address}&status=blocked&format=jsonl`);
    assert.deepEqual(
      status.text
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { status: string }).status),
      ['blocked'],
    );
  });

  test('an instant range is [from, to); an empty range still has its header', async () => {
    const app = await start();
    const { text } = await exportText(
      app,
      `vault=${vault.address}&from=2025-11-02T12:00:00.123Z&to=2025-11-03T12:00:00.123Z`,
    );
    assert.equal((parse(text, { columns: true }) as unknown[]).length, 1);
    const empty = await exportText(app, `vault=${vault.address}&from=2020-01-01&to=2020-01-02`);
    assert.equal(empty.text, `${TRANSACTION_COLUMNS.join(',')}\r\n`);
  });

  test('only the owner exports: no credentials 401, another wallet 403, bad input 400, unknown vault 404', async () => {
    const app = await start();
    const refused = async (url: string, wallet: TestWallet | null, status: number, code: string) => {
      const headers = wallet === null ? {} : signedGet(wallet, url);
      const response = await app.inject({ method: 'GET', url, headers });
      assert.equal(response.statusCode, status, `${url}: ${response.body}`);
      assert.equal((response.json() as { code: string }).code, code);
      assert.doesNotMatch(response.body, /Payroll|Ops/);
    };
    await refused(`/api/exports/transactions?vault=${vault.address}`, null, 401, 'UNAUTHORIZED');
    await refused(`/api/exports/overrides?vault=${vault.address}`, null, 401, 'UNAUTHORIZED');
    await refused(`/api/exports/transactions?vault=${vault.address}`, stranger, 403, 'FORBIDDEN');
    await refused(`/api/exports/overrides?vault=${vault.address}`, stranger, 403, 'FORBIDDEN');
    await refused(`/api/exports/transactions?owner=${owner.address}`, stranger, 403, 'FORBIDDEN');
    await refused(
      `/api/exports/transactions?vault=${createTestWallet().address}`,
      owner,
      404,
      'VAULT_NOT_FOUND',
    );
    await refused('/api/exports/transactions?from=yesterday', owner, 400, 'VALIDATION_ERROR');
    await refused('/api/exports/transactions?from=2025-11-05&to=2025-11-01', owner, 400, 'VALIDATION_ERROR');
    await refused('/api/exports/transactions?format=xlsx', owner, 400, 'VALIDATION_ERROR');
    await refused(
      `/api/exports/transactions?vault=${vault.address}&owner=${owner.address}`,
      owner,
      400,
      'VALIDATION_ERROR',
    );
  });
});

describe('overrides export', () => {
  test('one row per override with its documented columns, CSV and JSONL alike', async () => {
    const app = await start();
    const csvUrl = `/api/exports/overrides?vault=${vault.address}&from=2025-11-01`;
    const response = await app.inject({ method: 'GET', url: csvUrl, headers: signedGet(owner, csvUrl) });
    assert.equal(response.statusCode, 200, response.body);
    const [row, ...rest] = parse(response.body, { columns: true }) as Record<string, string>[];
    assert.equal(rest.length, 0);
    assert.deepEqual(Object.keys(row!), [
      'nonce',
      'vault',
      'vault_name',
      'status',
      'expired',
      'amount_lamports',
      'amount_sol',
      'destination',
      'block_reason',
      'transfer_signature',
      'created_at',
      'expires_at',
      'approved_at',
      'rejected_at',
      'executed_at',
    ]);
    assert.equal(row!.nonce, String(nonce));
    assert.equal(row!.vault_name, HARD_NAME);
    assert.equal(row!.created_at, '2025-11-03T09:00:00.123Z');
    assert.equal(row!.expired, 'true');
    assert.equal(row!.amount_sol, '2.000000000');
    const jsonlUrl = `${csvUrl}&format=jsonl`;
    const jsonl = await app.inject({ method: 'GET', url: jsonlUrl, headers: signedGet(owner, jsonlUrl) });
    const object = JSON.parse(jsonl.body.trim()) as Record<string, unknown>;
    assert.equal(object.expired, true);
    assert.equal(object.approved_at, null);
    assert.equal(object.vault_name, HARD_NAME);
  });

  test("the audit trail exports oldest first, equal to GET /api/audit; a vault's export holds that vault's only", async () => {
    const app = await start();
    const at = (minute: number) => new Date(Date.UTC(2025, 10, 5, 10, minute, 0, 7));
    const entry = (minute: number, who: TestWallet, about: VaultRow | null, target: string) => ({
      at: at(minute),
      owner: who.address,
      vault: about?.address ?? null,
      actor: `wallet:${who.address}`,
      action: about === null ? 'api_key.create' : 'vault.update',
      target,
      requestId: `req-${minute}`,
      client: '203.0.113.0/24',
      outcome: minute === 3 ? 'refused:VALIDATION_FAILED' : 'ok',
    });
    await apps.db
      .insert(auditEntries)
      .values([
        entry(1, owner, vault, `vault:${vault.address}`),
        entry(2, owner, null, 'api_key:k1'),
        entry(3, owner, other, `vault:${other.address}, "renamed"`),
        entry(4, stranger, null, 'api_key:k2'),
      ]);
    const listUrl = `/api/audit?owner=${owner.address}`;
    const listed = await app.inject({ method: 'GET', url: listUrl, headers: signedGet(owner, listUrl) });
    assert.equal(listed.statusCode, 200, listed.body);
    const newestFirst = (listed.json() as { entries: Record<string, unknown>[] }).entries;
    assert.equal(newestFirst.length, 3);

    const csvUrl = `/api/exports/audit?from=2025-11-05`;
    const csv = await app.inject({ method: 'GET', url: csvUrl, headers: signedGet(owner, csvUrl) });
    assert.equal(csv.statusCode, 200, csv.body);
    assert.match(String(csv.headers['content-disposition']), /^attachment; filename="vaultkeeper-audit-/);
    const rows = parse(csv.body, { columns: true }) as Record<string, string>[];
    assert.deepEqual(Object.keys(rows[0]!), [
      'at',
      'actor',
      'action',
      'target',
      'vault',
      'outcome',
      'client',
      'request_id',
      'id',
    ]);
    assert.deepEqual(
      rows.map((r) => ({ ...r, vault: r.vault === '' ? null : r.vault, requestId: r.request_id })),
      [...newestFirst].reverse().map((e) => ({
        at: e.at,
        actor: e.actor,
        action: e.action,
        target: e.target,
        vault: e.vault,
        outcome: e.outcome,
        client: e.client,
        request_id: e.requestId,
        id: e.id,
        requestId: e.requestId,
      })),
    );
    const jsonlUrl = `/api/exports/audit?vault=${other.address}&format=jsonl`;
    const jsonl = await app.inject({ method: 'GET', url: jsonlUrl, headers: signedGet(owner, jsonlUrl) });
    assert.equal(jsonl.statusCode, 200, jsonl.body);
    const lines = jsonl.body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(
      lines.map((l) => [l.target, l.outcome]),
      [[`vault:${other.address}, "renamed"`, 'refused:VALIDATION_FAILED']],
    );
    const theirs = await app.inject({ method: 'GET', url: jsonlUrl, headers: signedGet(stranger, jsonlUrl) });
    assert.equal(theirs.statusCode, 403);
  });
});

/** The app on a socket, and an API key of the owner. */
async function serve() {
  const app = await start();
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address() as { port: number };
  const body = { name: 'exports' };
  const created = await app.inject({
    method: 'POST',
    url: '/api/api-keys',
    headers: owner.authHeaders({ request: { method: 'POST', path: '/api/api-keys', body } }),
    payload: body,
  });
  assert.equal(created.statusCode, 201, created.body);
  return {
    app,
    baseUrl: `http://127.0.0.1:${address.port}`,
    apiKey: (created.json() as { key: string }).key,
  };
}

/**
 * Rows enough (set-based, each carrying a 2 KB vault name) that an unread export fills the sockets'
 * buffers and stays open.
 */
async function seedMany(count: number) {
  await apps.storage.rows(sql`update vaults set name = repeat('n', 2000) where id = ${vault.id}::uuid`);
  await apps.storage.rows(sql`
    insert into transactions (vault_id, signature, event_index, destination, amount, fee_collected, status, slot, timestamp)
    select ${vault.id}::uuid, 'sig' || i, 0, ${other.address}, 1000000 + i, 1000, 'executed', 5000 + i,
      '2025-10-01T00:00:00Z'::timestamptz + i * interval '1 second'
    from generate_series(1, ${count}) as i`);
}

/** An export request whose body the test does not read. */
function openUnread(baseUrl: string, apiKey: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = get(`${baseUrl}/api/exports/transactions?vault=${vault.address}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    request.once('response', (response) => {
      response.pause();
      resolve(response);
    });
    request.once('error', reject);
  });
}

describe('exports in flight', () => {
  test('a third export at once is 429 in the error envelope; a slot frees when a client leaves', async () => {
    await seedMany(10_000);
    const { baseUrl, apiKey } = await serve();
    const held = [await openUnread(baseUrl, apiKey), await openUnread(baseUrl, apiKey)];
    for (const response of held) assert.equal(response.statusCode, 200);
    const headers = { authorization: `Bearer ${apiKey}` };
    const third = await fetch(`${baseUrl}/api/exports/overrides?vault=${vault.address}`, { headers });
    assert.equal(third.status, 429);
    assert.ok(Number(third.headers.get('retry-after')) > 0);
    const envelope = (await third.json()) as { code: string; details: { limit: number } };
    assert.equal(envelope.code, 'RATE_LIMIT_EXCEEDED');
    assert.equal(envelope.details.limit, 2);
    held[0]!.destroy();
    await waitFor(async () => {
      const again = await fetch(`${baseUrl}/api/exports/overrides?vault=${vault.address}`, { headers });
      await again.arrayBuffer();
      return again.status === 200;
    });
    held[1]!.destroy();
  });
});

describe('client package and CLI', () => {
  test('client.exports reads the rows as they stream and the file with its name', async () => {
    const { baseUrl, apiKey } = await serve();
    const client = createVaultkeeperClient({ baseUrl, signer: apiKey });
    const rows = [];
    for await (const row of client.exports.transactionRows({
      vault: vault.address,
      from: '2025-11-01',
      to: '2025-11-05',
    }))
      rows.push(row);
    assert.deepEqual(
      rows.map((r) => r.amount_lamports),
      ['1', U64_MAX.toString(), '2500000000', '123456789'],
    );
    assert.equal(rows[0]!.vault_name, HARD_NAME);
    const file = await client.exports.overrides({ vault: vault.address });
    assert.match(file.filename ?? '', /^vaultkeeper-overrides-\w{8}-1970-01-01-\d{4}-\d{2}-\d{2}\.csv$/);
    assert.equal((parse(await new Response(file.body).text(), { columns: true }) as unknown[]).length, 1);
    await assert.rejects(client.exports.transactions({ owner: stranger.address }), { status: 403 });
  });

  test('vaultkeeper export transactions writes the same CSV to --out, and nothing on a refusal', async () => {
    const { app, baseUrl, apiKey } = await serve();
    const dir = await mkdtemp(join(tmpdir(), 'vk-export-'));
    try {
      const out = join(dir, 'nov.csv');
      const lines: string[] = [];
      const output = createOutput({
        json: false,
        stdout: { write: (text: string) => lines.push(text) } as never,
        stderr: { write: () => true } as never,
      });
      const values = { vault: vault.address, from: '2025-11-02', to: '2025-11-04', out };
      const code = await runExportCommand('transactions', values, () => ({ baseUrl, apiKey }), output);
      assert.equal(code, 0);
      const expected = await exportText(app, `vault=${vault.address}&from=2025-11-02&to=2025-11-04`);
      assert.equal(await readFile(out, 'utf8'), expected.text);
      assert.match(lines.join(''), /^wrote \d+ bytes to .*nov\.csv\n$/);
      const refusedOut = join(dir, 'theirs.csv');
      await assert.rejects(
        runExportCommand(
          'transactions',
          { vault: stranger.address, out: refusedOut },
          () => ({ baseUrl, apiKey }),
          output,
        ),
        (error) =>
          error instanceof CliError && error.exitCode === 1 && /404 VAULT_NOT_FOUND/.test(error.message),
      );
      await assert.rejects(
        runExportCommand('transactions', { format: 'xlsx' }, () => ({ baseUrl, apiKey }), output),
        (error) => error instanceof CliError && error.exitCode === 2,
      );
      assert.deepEqual(await readdir(dir), ['nov.csv']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
