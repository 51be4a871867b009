// Wallet authentication through a real protected route (PATCH /api/vaults/:address renaming a vault).
import assert from 'node:assert/strict';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { beforeEach, describe, test } from 'node:test';
import { type Address, getBase58Decoder } from '@solana/kit';
import type { FastifyInstance } from 'fastify';
import { startTcpProxy } from '../../dev/support/tcp-proxy.js';
import {
  createAuthMessage,
  createTestWallet,
  encodeMessageHeader,
  type MessageHeaderForm,
  type SignedTestRequest,
  TEST_DOMAIN,
  type TestWallet,
  testRequestBinding,
} from '../../dev/support/wallet.js';
import { startFakeValidator } from '../../dev/validator/index.js';
import { createMemoryCache, createRedisCache } from '../../src/cache/index.js';
import type { VaultRow } from '../../src/storage/schema/index.js';
import { createLogCapture, createTestCache } from '../support/app.js';
import { randomAddress } from '../support/factories.js';
import { seedOwnedVault } from '../support/owned-vault.js';
import { type TestAppOptions, useTestApps } from '../support/test-apps.js';

const SENTENCE = 'Sign this message to authenticate with Vaultkeeper.';

// Many signed writes per test: the per-IP write budget is the rate-limit tests' subject.
const apps = useTestApps({ env: { RATE_LIMIT_ENABLED: 'false' } });
const start = async (options: TestAppOptions = {}) => (await apps.start(options)).app;
let owner: TestWallet;
let vault: VaultRow;
beforeEach(async () => {
  ({ owner, vault } = await seedOwnedVault(apps.db));
});

function rename(app: FastifyInstance, headers: Record<string, string>, name = 'Renamed') {
  return app.inject({ method: 'PATCH', url: `/api/vaults/${vault.address}`, headers, payload: { name } });
}

const renameRequest = (name = 'Renamed'): SignedTestRequest => ({
  method: 'PATCH',
  path: `/api/vaults/${vault.address}`,
  body: { name },
});

/** `wallet`'s headers for rename(…, name): a fresh message bound to that very request. */
function renameHeaders(
  wallet: TestWallet,
  options: { timestampMs?: number; form?: MessageHeaderForm } = {},
  name = 'Renamed',
) {
  return wallet.authHeaders({ ...options, request: renameRequest(name) });
}

/** A fresh message bound to rename(…, name), for tests that sign a given text. */
const renameMessage = (name = 'Renamed') =>
  createAuthMessage(undefined, testRequestBinding(renameRequest(name)));

/** Headers of `wallet` over an arbitrary text (a wrong sentence, an odd timestamp). */
function signedText(wallet: TestWallet, text: string, form: 'percent' | 'escaped' | 'base64' = 'percent') {
  return { ...wallet.authHeaders({ message: text }), 'x-message': encodeMessageHeader(text, form) };
}

function assertUnauthorized(response: { statusCode: number; json(): unknown }, reason: string) {
  assert.equal(response.statusCode, 401, JSON.stringify(response.json()));
  const body = response.json() as { code: string; error: string; details: { reason: string } };
  assert.equal(body.code, 'UNAUTHORIZED');
  assert.equal(body.details.reason, reason);
  assert.equal(typeof body.error, 'string');
}

describe('accepted requests', () => {
  for (const form of ['percent', 'escaped', 'base64'] as const) {
    test(`accepts X-Message ${form}`, async () => {
      const app = await start();
      const response = await rename(
        app,
        renameHeaders(owner, { form }, `Renamed ${form}`),
        `Renamed ${form}`,
      );
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().vault.name, `Renamed ${form}`);
      assert.equal(response.headers['cache-control'], 'no-store');
    });
  }

  test('accepts a timestamp exactly 300 s old and exactly 60 s ahead', async () => {
    const now = Date.parse('2026-11-22T01:27:42.000Z');
    const app = await start({ clock: { now: () => new Date(now) } });
    assert.equal((await rename(app, renameHeaders(owner, { timestampMs: now - 300_000 }))).statusCode, 200);
    assert.equal((await rename(app, renameHeaders(owner, { timestampMs: now + 60_000 }))).statusCode, 200);
  });

  test('checks the signature, not the header text, against the decoded message', async () => {
    const app = await start();
    const message = renameMessage();
    const headers = owner.authHeaders({ message });
    // Lower-case percent escapes encode the same message.
    headers['x-message'] = encodeURIComponent(message).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase());
    assert.equal((await rename(app, headers)).statusCode, 200);
  });
});

describe('401 UNAUTHORIZED reasons', () => {
  test('missing_headers: none, any one of the three absent, or an empty value', async () => {
    const app = await start();
    assertUnauthorized(await rename(app, {}), 'missing_headers');
    for (const name of ['x-wallet-address', 'x-signature', 'x-message']) {
      const headers = renameHeaders(owner);
      delete headers[name];
      assertUnauthorized(await rename(app, headers), 'missing_headers');
      assertUnauthorized(await rename(app, { ...renameHeaders(owner), [name]: '' }), 'missing_headers');
    }
  });

  test('malformed: an address, signature or message header that does not decode', async () => {
    const app = await start();
    const cases: Record<string, string>[] = [
      { 'x-wallet-address': 'not-a-base58-address!' },
      { 'x-wallet-address': '3yZe7d' },
      { 'x-wallet-address': getBase58Decoder().decode(new Uint8Array(33).fill(7)) },
      { 'x-signature': '0OIl+/' },
      { 'x-signature': owner.address },
      { 'x-signature': `2${'1'.repeat(100)}` },
      { 'x-message': 'Sign%20this%20message%E0%A4%A' },
      { 'x-message': 'base64:***' },
      { 'x-message': `base64:${Buffer.from([0xff, 0xfe, 0x41]).toString('base64')}` },
    ];
    for (const change of cases) {
      assertUnauthorized(await rename(app, { ...renameHeaders(owner), ...change }), 'malformed');
    }
  });

  test('wrong_message: any text other than the sentence, a blank line and a millisecond timestamp', async () => {
    const app = await start();
    const now = Date.now();
    const texts = [
      `Sign in to Vaultkeeper.\n\nTimestamp: ${now}`,
      `${SENTENCE}\nTimestamp: ${now}`,
      `${SENTENCE}\n\nTimestamp: 0${now}`,
      `${SENTENCE}\n\nTimestamp: ${now}.5`,
      `${SENTENCE}\n\nTimestamp: ${new Date(now).toISOString()}`,
      `${SENTENCE}\n\nTimestamp: ${now}\n`,
      `${SENTENCE}\n\nTimestamp: `,
      `${SENTENCE.toLowerCase()}\n\nTimestamp: ${now}`,
    ];
    for (const text of texts) assertUnauthorized(await rename(app, signedText(owner, text)), 'wrong_message');
  });

  test('bad_signature: another key, another message, or a corrupted signature', async () => {
    const app = await start();
    const other = createTestWallet();
    const message = renameMessage();
    const byOther = other.authHeaders({ message });
    assertUnauthorized(
      await rename(app, { ...owner.authHeaders({ message }), 'x-signature': byOther['x-signature']! }),
      'bad_signature',
    );
    const forLater = renameHeaders(owner, { timestampMs: Date.now() + 1_000 });
    assertUnauthorized(
      await rename(app, { ...renameHeaders(owner), 'x-signature': forLater['x-signature']! }),
      'bad_signature',
    );
    const signature = owner.sign(message);
    signature[10] = (signature[10] ?? 0) ^ 1;
    const corrupted = owner.authHeaders({ message });
    corrupted['x-signature'] = getBase58Decoder().decode(signature);
    assertUnauthorized(await rename(app, corrupted), 'bad_signature');
  });

  test('expired: more than 300 s old or more than 60 s ahead', async () => {
    const now = Date.parse('2026-11-22T01:27:42.000Z');
    const app = await start({ clock: { now: () => new Date(now) } });
    assertUnauthorized(await rename(app, renameHeaders(owner, { timestampMs: now - 300_001 })), 'expired');
    assertUnauthorized(await rename(app, renameHeaders(owner, { timestampMs: now + 60_001 })), 'expired');
    assertUnauthorized(await rename(app, renameHeaders(owner, { timestampMs: 0 })), 'expired');
  });

  test('expired follows AUTH_MAX_AGE_SECONDS', async () => {
    const now = Date.parse('2026-11-22T01:27:42.000Z');
    const app = await start({ clock: { now: () => new Date(now) }, env: { AUTH_MAX_AGE_SECONDS: '10' } });
    assertUnauthorized(await rename(app, renameHeaders(owner, { timestampMs: now - 10_001 })), 'expired');
    assert.equal((await rename(app, renameHeaders(owner, { timestampMs: now - 10_000 }))).statusCode, 200);
  });

  test('replayed: a signature is accepted once, whichever X-Message form carries it', async () => {
    const app = await start();
    const message = renameMessage();
    const headers = owner.authHeaders({ message });
    assert.equal((await rename(app, headers)).statusCode, 200);
    assertUnauthorized(await rename(app, headers), 'replayed');
    assertUnauthorized(await rename(app, owner.authHeaders({ message, form: 'base64' })), 'replayed');
    assertUnauthorized(await rename(app, owner.authHeaders({ message, form: 'escaped' })), 'replayed');
  });

  test('a request refused before the replay check does not use up its signature', async () => {
    const app = await start();
    const headers = renameHeaders(owner);
    const wrongSigner = await rename(app, { ...headers, 'x-wallet-address': createTestWallet().address });
    assertUnauthorized(wrongSigner, 'bad_signature');
    assert.equal((await rename(app, headers)).statusCode, 200);
  });
});

describe('request-bound messages', () => {
  const path = () => `/api/vaults/${vault.address}`;
  const bound = (request: SignedTestRequest, form: 'percent' | 'escaped' | 'base64' = 'percent') =>
    owner.authHeaders({ request, form });

  for (const form of ['percent', 'escaped', 'base64'] as const) {
    test(`accepts a message naming exactly this request (X-Message ${form})`, async () => {
      const app = await start();
      const headers = bound({ method: 'PATCH', path: path(), body: { name: `Bound ${form}` } }, form);
      const response = await rename(app, headers, `Bound ${form}`);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().vault.name, `Bound ${form}`);
    });
  }

  test('wrong_request: headers signed for another method, path, query, body or domain change nothing', async () => {
    const app = await start();
    const body = { name: 'Hijacked' };
    const signedFor: SignedTestRequest[] = [
      // The review's case: headers signed for a harmless read, sent to a write.
      { method: 'GET', path: '/api/webhooks' },
      { method: 'POST', path: path(), body },
      { method: 'PATCH', path: `/api/vaults/${randomAddress()}`, body },
      { method: 'PATCH', path: `${path()}?x=1`, body },
      { method: 'PATCH', path: path(), body: { name: 'Something else' } },
      { method: 'PATCH', path: path() },
      { method: 'PATCH', path: path(), body, domain: 'evil.example' },
      { method: 'PATCH', path: path(), body, domain: 'localhost' },
    ];
    for (const request of signedFor) {
      assertUnauthorized(await rename(app, bound(request), 'Hijacked'), 'wrong_request');
    }
    const read = await app.inject({ method: 'GET', url: path() });
    assert.equal(read.json().name, 'Before');
  });

  test('hashes the body bytes as received, not a re-serialisation of the parsed JSON', async () => {
    const app = await start();
    const raw = '{ "name" : "Spaced"\n}';
    const send = (headers: Record<string, string>) =>
      app.inject({
        method: 'PATCH',
        url: path(),
        headers: { ...headers, 'content-type': 'application/json' },
        payload: raw,
      });
    const reserialised = bound({ method: 'PATCH', path: path(), body: { name: 'Spaced' } });
    assertUnauthorized(await send(reserialised), 'wrong_request');
    const exact = bound({ method: 'PATCH', path: path(), body: raw });
    const response = await send(exact);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().vault.name, 'Spaced');
  });

  test('a request without a body is bound to the SHA-256 of nothing', async () => {
    const app = await start();
    const headers = bound({ method: 'POST', path: '/api/auth/verify' });
    assert.match(
      decodeURIComponent(headers['x-message']!),
      /\nBody-SHA256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n/,
    );
    const response = await app.inject({ method: 'POST', url: '/api/auth/verify', headers });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().wallet, owner.address);
  });

  test('the domain is the host of PUBLIC_BASE_URL, with its port only when it names one', async () => {
    const app = await start({ env: { PUBLIC_BASE_URL: 'https://vk.example/' } });
    const request = { method: 'PATCH', path: path(), body: { name: 'Renamed' } };
    assertUnauthorized(await rename(app, bound({ ...request, domain: 'vk.example:443' })), 'wrong_request');
    assertUnauthorized(await rename(app, bound(request)), 'wrong_request');
    assert.equal((await rename(app, bound({ ...request, domain: 'vk.example' }))).statusCode, 200);
    const withPort = await start({ env: { PUBLIC_BASE_URL: 'http://vk.example:8080' } });
    assert.equal((await rename(withPort, bound({ ...request, domain: 'vk.example:8080' }))).statusCode, 200);
  });

  test('wrong_request names the Domain the service expects, in details and in the message', async () => {
    const app = await start({ env: { PUBLIC_BASE_URL: 'http://localhost:3000' } });
    const request = { method: 'PATCH', path: path(), body: { name: 'Renamed' } };
    const response = await rename(app, bound({ ...request, domain: '127.0.0.1:3000' }));
    assertUnauthorized(response, 'wrong_request');
    const body = response.json() as { error: string; details: Record<string, unknown> };
    assert.equal(body.details.expectedDomain, 'localhost:3000');
    assert.match(body.error, /expects Domain: localhost:3000/);
  });

  test('wrong_message: binding lines out of shape', async () => {
    const app = await start();
    const base = createAuthMessage();
    const hash = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    const texts = [
      `${base}\nRequest: POST /api/auth/verify`,
      `${base}\nRequest: POST /api/auth/verify\nBody-SHA256: ${hash}`,
      `${base}\nRequest: POST /api/auth/verify\nBody-SHA256: ${hash.toUpperCase()}\nDomain: ${TEST_DOMAIN}`,
      `${base}\nDomain: ${TEST_DOMAIN}\nRequest: POST /api/auth/verify\nBody-SHA256: ${hash}`,
      `${base}\nRequest: POST /api/auth/verify\nBody-SHA256: ${hash}\nDomain: ${TEST_DOMAIN}\n`,
      `${base}\n\nRequest: POST /api/auth/verify\nBody-SHA256: ${hash}\nDomain: ${TEST_DOMAIN}`,
    ];
    for (const text of texts) {
      const response = await app.inject({
        method: 'POST',
        url: '/api/auth/verify',
        headers: signedText(owner, text),
      });
      assertUnauthorized(response, 'wrong_message');
    }
  });

  test('by default an unbound message is refused (unbound_message), saying how to sign', async () => {
    for (const env of [{}, { AUTH_REQUIRE_REQUEST_BINDING: 'true' }] as Record<string, string>[]) {
      const app = await start({ env });
      const response = await rename(app, owner.authHeaders(), 'Unbound');
      assertUnauthorized(response, 'unbound_message');
      const body = response.json() as { error: string; details: Record<string, unknown> };
      for (const line of ['Request: <METHOD> <path and query>', 'Body-SHA256: ', `Domain: ${TEST_DOMAIN}`]) {
        assert.ok(body.error.includes(line), `the message names ${line}: ${body.error}`);
      }
      assert.match(body.error, /docs\/AUTH\.md#binding-a-signature-to-its-request/);
      assert.deepEqual(body.details, {
        reason: 'unbound_message',
        expectedDomain: TEST_DOMAIN,
        docs: 'docs/AUTH.md#binding-a-signature-to-its-request',
      });
      assert.notEqual((await app.inject(`/api/vaults/${vault.address}`)).json().name, 'Unbound');
      assert.equal((await rename(app, renameHeaders(owner))).statusCode, 200);
    }
  });

  test('AUTH_REQUIRE_REQUEST_BINDING=false (a compatibility switch) accepts the two unbound lines', async () => {
    const lenient = await start({ env: { AUTH_REQUIRE_REQUEST_BINDING: 'false' } });
    assert.equal((await rename(lenient, owner.authHeaders(), 'Unbound')).statusCode, 200);
    // A bound message is still held to its request.
    const other = renameHeaders(owner, {}, 'Other');
    assertUnauthorized(await rename(lenient, other, 'Hijacked'), 'wrong_request');
  });
});

describe('POST /api/auth/verify', () => {
  test('answers the wallet for valid headers, then refuses the same signature; 401 with the reason otherwise', async () => {
    const app = await start();
    const headers = owner.authHeaders({ request: { method: 'POST', path: '/api/auth/verify' } });
    const verified = await app.inject({ method: 'POST', url: '/api/auth/verify', headers });
    assert.equal(verified.statusCode, 200, verified.body);
    assert.equal(verified.json().wallet, owner.address);
    assert.equal(verified.headers['cache-control'], 'no-store');
    assertUnauthorized(await app.inject({ method: 'POST', url: '/api/auth/verify', headers }), 'replayed');
    assertUnauthorized(await app.inject({ method: 'POST', url: '/api/auth/verify' }), 'missing_headers');
  });
});

describe('replay across instances', () => {
  // With REDIS_URL two caches on one key prefix act as two instances' Redis clients; without it both
  // apps share ONE in-process memory cache (the in-process guard is per process by design).
  test('a signature used on one instance is refused on another', async () => {
    const prefix = `vk-test-replay-${process.pid}-${Date.now()}:`;
    const first = process.env.REDIS_URL ? createTestCache(prefix) : createMemoryCache();
    const second = process.env.REDIS_URL ? createTestCache(prefix) : first;
    const appA = await start({ cache: first });
    const appB = await start({ cache: second });
    const headers = renameHeaders(owner);
    assert.equal((await rename(appA, headers)).statusCode, 200);
    assertUnauthorized(await rename(appB, headers), 'replayed');
    assertUnauthorized(await rename(appA, headers), 'replayed');
  });

  test('while Redis is unreachable, two instances sharing the database accept a signature once between them', async () => {
    const unreachable = () => createRedisCache('redis://127.0.0.1:1', { prefix: 'vk-test-down:' });
    const appA = await start({ cache: unreachable() });
    const appB = await start({ cache: unreachable() });
    const headers = renameHeaders(owner, {}, 'First');
    assert.equal((await rename(appA, headers, 'First')).statusCode, 200);
    assertUnauthorized(await rename(appB, headers, 'First'), 'replayed');
    // At the same moment on both, one wins.
    const again = renameHeaders(owner, {}, 'Both');
    const both = await Promise.all([rename(appA, again, 'Both'), rename(appB, again, 'Both')]);
    assert.deepEqual(both.map((r) => r.statusCode).sort(), [200, 401]);
  });

  test('replay protection holds inside an instance while Redis is unreachable', async () => {
    const unreachable = createRedisCache('redis://127.0.0.1:1', { prefix: 'vk-test-down:' });
    const app = await start({ cache: unreachable });
    const headers = renameHeaders(owner);
    assert.equal((await rename(app, headers)).statusCode, 200);
    assertUnauthorized(await rename(app, headers), 'replayed');
  });
});

describe('around authentication', () => {
  test('authenticates before validating the body: a bad body without headers is 401', async () => {
    const app = await start();
    const response = await app.inject({
      method: 'PATCH',
      url: `/api/vaults/${vault.address}`,
      payload: { name: '', unknown: true },
    });
    assertUnauthorized(response, 'missing_headers');
    assert.equal(response.headers['cache-control'], 'no-store');
  });

  test('403 FORBIDDEN for a valid signer who is not the vault authority; nothing changes', async () => {
    const app = await start();
    const response = await rename(app, renameHeaders(createTestWallet(), {}, 'Hijacked'), 'Hijacked');
    assert.equal(response.statusCode, 403);
    assert.equal(response.json().code, 'FORBIDDEN');
    const detail = await app.inject(`/api/vaults/${vault.address}`);
    assert.equal(detail.json().name, 'Before');
  });

  test('public routes ignore wallet headers, even broken ones', async () => {
    const app = await start();
    const response = await app.inject({
      url: `/api/vaults/${vault.address}`,
      headers: { 'x-wallet-address': 'junk', 'x-signature': 'junk', 'x-message': 'junk' },
    });
    assert.equal(response.statusCode, 200);
  });

  test('signatures and signed messages never reach a log line', async () => {
    const logs = createLogCapture();
    const app = await start({ logs });
    const good = renameHeaders(owner);
    const bad: Record<string, string> = {
      ...renameHeaders(owner),
      'x-wallet-address': createTestWallet().address,
    };
    await rename(app, good);
    await rename(app, good);
    await rename(app, bad);
    const nope = owner.authHeaders({ request: { method: 'PATCH', path: '/api/vaults/nope', body: {} } });
    await app.inject({ method: 'PATCH', url: '/api/vaults/nope', headers: nope, payload: {} });
    assert.ok(logs.lines.length > 0, 'trace logging produced lines');
    for (const headers of [good, bad]) {
      const timestamp = decodeURIComponent(headers['x-message']!).split('Timestamp: ')[1]!.split('\n')[0]!;
      for (const secret of [headers['x-signature']!, headers['x-message']!, `Timestamp: ${timestamp}`]) {
        assert.ok(
          !logs.lines.some((line) => line.includes(secret)),
          `a log line holds ${secret.slice(0, 12)}…`,
        );
      }
    }
  });

  test('OpenAPI lists an API key or the wallet headers as the security of protected routes, with their 401', async () => {
    const app = await start();
    const spec = (await app.inject('/api/openapi.json')).json();
    const protectedOperations = [
      spec.paths['/api/vaults'].post,
      spec.paths['/api/vaults/{address}'].patch,
      spec.paths['/api/auth/verify'].post,
    ];
    for (const operation of protectedOperations) {
      assert.deepEqual(operation.security, [
        { apiKey: [] },
        { walletAddress: [], walletSignature: [], walletMessage: [] },
      ]);
      assert.ok(operation.responses['401'], 'documents 401');
    }
    assert.equal(spec.paths['/api/vaults'].get.security, undefined);
    // Optional wallet auth (Blink approve: wallets cannot send headers) documents "none, or all three".
    assert.deepEqual(spec.paths['/api/actions/{vault}/{nonce}/approve'].post.security, [
      {},
      { walletAddress: [], walletSignature: [], walletMessage: [] },
    ]);
  });
});

describe('the docs/AUTH.md examples', () => {
  /** The body of docs/AUTH.md's ```ts block that starts with `// <file>:`. */
  async function readmeBlock(file: string): Promise<string> {
    const readme = await readFile(new URL('../../docs/AUTH.md', import.meta.url), 'utf8');
    const block = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].find((m) => m[1]!.startsWith(`// ${file}:`));
    assert.ok(block, `docs/AUTH.md has a ${file} block`);
    return block[1]!;
  }

  test('shows exactly the helper in dev/support/wallet.ts', async () => {
    const source = await readFile(new URL('../../dev/support/wallet.ts', import.meta.url), 'utf8');
    const region = source
      .split('// #region readme-auth-helper')[1]!
      .split('// #endregion readme-auth-helper')[0]!;
    const helper = region.slice(region.indexOf('\n') + 1).trim();
    assert.equal((await readmeBlock('vaultkeeper-auth.ts')).trim(), helper);
  });

  test("runs as written: a key file signs the request and the vault's transaction, and the chain has it", async () => {
    const validator = await startFakeValidator();
    const dir = join(process.cwd(), 'test-artifacts', `readme-${process.pid}-${Date.now()}`);
    await mkdir(dir, { recursive: true });
    // PUBLIC_BASE_URL must be the address the example calls (its host is the signed domain), so the
    // service listens behind a proxy whose port is known before the service starts.
    let servicePort = 0;
    const proxy = await startTcpProxy(() => ({ host: '127.0.0.1', port: servicePort }));
    const apiUrl = `http://127.0.0.1:${proxy.port}`;
    const app = await start({
      env: {
        SOLANA_RPC_URL: validator.rpcUrl,
        SOLANA_WS_URL: validator.wsUrl,
        PUBLIC_BASE_URL: apiUrl,
      },
    });
    try {
      await writeFile(join(dir, 'vaultkeeper-auth.ts'), await readmeBlock('vaultkeeper-auth.ts'));
      await writeFile(join(dir, 'create-vault.ts'), await readmeBlock('create-vault.ts'));
      const keyFile = join(dir, 'id.json');
      const wallet = createTestWallet();
      await writeFile(keyFile, JSON.stringify([...wallet.secretKey]));
      await validator.airdrop(wallet.address as Address, 5_000_000_000n);
      await app.listen({ host: '127.0.0.1', port: 0 });
      servicePort = (app.server.address() as AddressInfo).port;

      const example = (await import(join(dir, 'create-vault.ts'))) as {
        createVault(
          options: Record<string, string>,
        ): Promise<{ vault: { address: string }; signature: string }>;
      };
      const agentSigner = randomAddress();
      const { vault, signature } = await example.createVault({
        apiUrl,
        rpcUrl: validator.rpcUrl,
        keyFile,
        name: 'From the README',
        agentSigner,
        dailyLimit: '1000000000',
      });
      assert.match(signature, /^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
      const onChain = validator.getVault(vault.address as Address);
      assert.equal(onChain?.config.name, 'From the README');
      assert.equal(onChain?.config.authority, wallet.address);
      assert.equal(onChain?.config.agentSigner, agentSigner);
    } finally {
      await rm(dir, { recursive: true, force: true });
      await proxy.close();
      await validator.close();
    }
  });
});
