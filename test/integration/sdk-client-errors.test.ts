// @vaultkeeper/client beyond the happy path: API keys as signers, the error envelope, wrong hosts, aborts,
// 429 retries, event stream reconnects, and the client example run as a process.
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { createVaultkeeperClient, type VaultkeeperError } from '@vaultkeeper/client';
import { createTestWallet } from '../../dev/support/wallet.js';
import { runForTest } from '../support/child-process.js';
import { randomAddress } from '../support/factories.js';
import { SOL } from '../support/ingestion-harness.js';
import { failure, useSdkService } from '../support/sdk-service.js';
import { waitForSignatures } from '../support/wait.js';

const service = useSdkService();
const { h, seen, serve, clientFor, seed } = service;

describe('@vaultkeeper/client with an API key', () => {
  test('a wallet creates a key; the key as signer calls as that wallet and cannot make keys', async () => {
    await serve();
    const owner = createTestWallet();
    const created = await clientFor(owner).apiKeys.create({ name: 'server' });
    assert.match(created.key, /^vk_[A-Za-z0-9_-]{43}$/);
    const byKey = clientFor(created.key);
    const hook = await byKey.webhooks.create({ url: 'http://127.0.0.1:9/hooks', events: ['vault.paused'] });
    assert.deepEqual(
      (await clientFor(owner).webhooks.list()).webhooks.map((w) => w.id),
      [hook.id],
    );
    assert.equal((await byKey.auth.verify()).wallet, owner.address);
    assert.equal((await byKey.apiKeys.list()).apiKeys[0]?.prefix, created.key.slice(0, 10));
    const sent = seen.at(-1)!;
    assert.equal(sent.headers.authorization, `Bearer ${created.key}`);
    assert.equal(sent.headers['x-signature'], undefined);
    const refused = await failure(byKey.apiKeys.create({ name: 'more' }));
    assert.equal(refused.status, 0);
    assert.match(refused.message, /needs a wallet signer/);
    await byKey.apiKeys.delete(created.id);
    const revoked = await failure(byKey.webhooks.list());
    assert.deepEqual([revoked.status, revoked.details.reason], [401, 'revoked_key']);
    assert.throws(() => clientFor('not-a-key'), TypeError);
  });

  test('a signature for another host: the error names the Domain the service expects and what to change', async () => {
    await serve();
    const expected = new URL(service.baseUrl).host;
    const owner = createTestWallet();
    // The same service through another name for its host: signatures name that name.
    const other = service.baseUrl.replace('127.0.0.1', 'localhost');
    const error = await failure(createVaultkeeperClient({ baseUrl: other, signer: owner }).webhooks.list());
    assert.deepEqual(
      [error.status, error.details.reason, error.details.expectedDomain],
      [401, 'wrong_request', expected],
    );
    assert.ok(error.message.includes(`the service expects Domain ${expected}`), error.message);
    assert.ok(error.message.includes("set baseUrl to the service's PUBLIC_BASE_URL"), error.message);
  });
});

describe('@vaultkeeper/client errors', () => {
  test('the error envelope becomes one VaultkeeperError with code, details and status', async () => {
    await serve();
    const client = clientFor();
    const missing = await failure(client.vaults.get(randomAddress()));
    assert.deepEqual([missing.status, missing.code], [404, 'VAULT_NOT_FOUND']);
    const invalid = await failure(client.transactions.list({ limit: 1000 }));
    assert.deepEqual([invalid.status, invalid.code], [400, 'VALIDATION_ERROR']);
    assert.ok(Array.isArray(invalid.details.issues), JSON.stringify(invalid.details));
    const noSigner = await failure(client.auth.verify());
    assert.deepEqual(
      [noSigner.status, noSigner.code, noSigner.details.reason],
      [0, 'UNAUTHORIZED', 'no_signer'],
    );
    // Signed for another host than PUBLIC_BASE_URL names: the service refuses the binding.
    const elsewhere = createVaultkeeperClient({
      baseUrl: service.baseUrl.replace('127.0.0.1', 'localhost'),
      signer: createTestWallet(),
    });
    const wrongDomain = await failure(elsewhere.auth.verify());
    assert.deepEqual(
      [wrongDomain.status, wrongDomain.code, wrongDomain.details.reason],
      [401, 'UNAUTHORIZED', 'wrong_request'],
    );
    const closed = createVaultkeeperClient({ baseUrl: 'http://127.0.0.1:9' });
    const network = await failure(closed.health());
    assert.deepEqual([network.status, network.code], [0, 'NETWORK_ERROR']);
  });

  test('an aborted signal stops a call, before it is sent and while it waits to retry', async () => {
    await serve();
    const client = clientFor();
    await assert.rejects(client.health({ signal: AbortSignal.abort() }), { name: 'AbortError' });
    service.intercept = (_req, res) => {
      res.writeHead(429, { 'retry-after': '30', 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'Too many requests', code: 'RATE_LIMIT_EXCEEDED', details: {} }));
      return true;
    };
    const controller = new AbortController();
    const call = client.health({ signal: controller.signal });
    const started = Date.now();
    while (seen.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error('caller gave up'));
    await assert.rejects(call, { message: 'caller gave up' });
    assert.ok(Date.now() - started < 5_000, 'did not wait out Retry-After');
    assert.equal(seen.length, 1);
  });
});

describe('@vaultkeeper/client on 429', () => {
  test('the service’s own rate limit: a 429 VaultkeeperError once retries would wait too long', async () => {
    await serve({ RATE_LIMIT_ENABLED: 'true' });
    const client = clientFor(undefined, { maxRetryDelayMs: 1000 });
    const vault = randomAddress();
    let refused: VaultkeeperError | undefined;
    for (let i = 0; i < 40 && refused === undefined; i += 1) {
      refused = await client.analytics.get({ vault }).then(
        () => assert.fail('an unknown vault has no analytics'),
        (e: VaultkeeperError) => (e.status === 429 ? e : undefined),
      );
    }
    assert.ok(refused, 'the analytics budget ran out');
    assert.equal(refused.code, 'RATE_LIMIT_EXCEEDED');
    assert.ok(Number(refused.details.retryAfter) > 1, JSON.stringify(refused.details));
  });

  test('waits Retry-After, signs each retry anew, and gives up after maxRetries', async () => {
    await serve();
    const wallet = createTestWallet();
    const client = clientFor(wallet, { maxRetries: 2 });
    const tooMany = (res: ServerResponse, after: string) => {
      res.writeHead(429, { 'retry-after': after, 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: 'Too many requests',
          code: 'RATE_LIMIT_EXCEEDED',
          details: { retryAfter: 1 },
        }),
      );
      return true;
    };
    service.intercept = (_req, res, index) =>
      index === 0 ? tooMany(res, '1') : index === 1 ? tooMany(res, '0') : false;
    const started = Date.now();
    assert.equal((await client.auth.verify()).wallet, wallet.address);
    assert.ok(Date.now() - started >= 1000, 'waited the first Retry-After');
    assert.equal(seen.length, 3);
    assert.equal(new Set(seen.map((r) => r.headers['x-signature'])).size, 3, 'each attempt signed anew');

    seen.length = 0;
    service.intercept = (_req, res) => tooMany(res, '0');
    const error = await failure(client.auth.verify());
    assert.deepEqual([error.status, error.code, error.details.retryAfter], [429, 'RATE_LIMIT_EXCEEDED', 1]);
    assert.equal(seen.length, 3, 'the first try and two retries');
  });
});

describe('@vaultkeeper/client event stream', () => {
  test('a stream refused with 429 is opened again after Retry-After and replays from lastEventId', async () => {
    await serve();
    const created = await h.fake.createVault({
      authority: randomAddress() as Address,
      dailyLimit: SOL,
      name: 'Streamed',
    });
    await waitForSignatures(h.storage.storage, [created.signature]);
    service.intercept = (req, res, index) => {
      if (index > 0 || !req.url?.startsWith('/api/events/stream')) return false;
      res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'Too many streams', code: 'RATE_LIMIT_EXCEEDED', details: {} }));
      return true;
    };
    const stream = clientFor().events.stream({ vault: created.vault, lastEventId: 0 });
    const first = await stream.next();
    await stream.return();
    assert.equal(first.done, false);
    assert.equal(first.value?.vault, created.vault);
    assert.equal(first.value?.signature, created.signature);
    assert.deepEqual(
      seen.map((r) => r.headers['last-event-id']),
      ['0', '0'],
    );
  });
});

describe('the client example (docs/examples/vault-report.mjs)', () => {
  test('runs as a process with a solana-keygen file and reports vaults, pending approvals and webhooks', async () => {
    await serve();
    const owner = createTestWallet();
    const s = await seed(owner);
    await clientFor(owner).webhooks.create({ url: 'http://127.0.0.1:9/hooks', events: ['vault.paused'] });
    const dir = await mkdtemp(join(tmpdir(), 'vk-report-'));
    const keypair = join(dir, 'id.json');
    await writeFile(keypair, JSON.stringify([...owner.secretKey]));
    const { code, stdout, stderr } = await runForTest(
      process.execPath,
      ['--import', 'tsx', 'docs/examples/vault-report.mjs'],
      { env: { ...process.env, VAULTKEEPER_URL: service.baseUrl, KEYPAIR: keypair } },
    );
    assert.equal(code, 0, stderr);
    const lines = stdout.trim().split('\n');
    assert.equal(lines.filter((l) => / today$/.test(l)).length, 3, stdout);
    assert.ok(lines.includes(`Agent budget ${s.vault}: 6.000 SOL of 10.000 SOL today`), stdout);
    assert.equal(lines.filter((l) => l.startsWith('  waiting for you: ')).length, 2, stdout);
    assert.ok(lines.includes('webhook http://127.0.0.1:9/hooks: active, 0 failed'), stdout);
    const signed = seen.filter((r) => r.headers['x-wallet-address'] === owner.address);
    assert.ok(signed.length >= 2, 'the webhook reads were signed by the key file');
  });
});
