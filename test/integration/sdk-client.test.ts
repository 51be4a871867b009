// vaultkeeper/client against the running service on a real socket (its ingestor on the fake validator):
// every route through a typed method, each kind of signer, pagination, errors, 429 retries and aborts.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { type Address, createKeyPairSignerFromBytes } from '@solana/kit';
import type { FastifyInstance } from 'fastify';
import {
  buildSignMessageText,
  type ClientOptions,
  createVaultkeeperClient,
  fromKitSigner,
  fromSecretKey,
  fromWalletStandard,
  type TransactionPreview,
  toBase58,
  VaultkeeperError,
} from 'vaultkeeper/client';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import { buildApp } from '../../src/app.js';
import { decodeTransactionBase64 } from '../../src/chain/solana-transactions.js';
import { randomAddress } from '../support/factories.js';
import { SOL, useIngestionHarness } from '../support/ingestion-harness.js';
import { waitForSignatures } from '../support/ingestor.js';
import { rpcCall } from '../support/json-rpc.js';

const execFileAsync = promisify(execFile);
const h = useIngestionHarness();
let server: Server | undefined;
let app: FastifyInstance | undefined;
let baseUrl: string;
/** Requests the socket saw, and an optional stand-in answer before the service gets them. */
const seen: IncomingMessage[] = [];
let intercept: ((req: IncomingMessage, res: ServerResponse, index: number) => boolean) | null = null;

/** The service on 127.0.0.1, PUBLIC_BASE_URL naming its port; rate limits off unless env turns them on. */
async function serve(env: Record<string, string> = {}): Promise<void> {
  let handle: (req: IncomingMessage, res: ServerResponse) => void = () => {};
  server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await h.startLive({
    PUBLIC_BASE_URL: baseUrl,
    RATE_LIMIT_ENABLED: 'false',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    ...env,
  });
  app = await buildApp(h.deps);
  await app.ready();
  handle = (req, res) => {
    const index = seen.push(req) - 1;
    if (intercept?.(req, res, index)) return;
    app!.server.emit('request', req, res);
  };
}

afterEach(async () => {
  seen.length = 0;
  intercept = null;
  await app?.close();
  if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
  app = undefined;
  server = undefined;
});

const clientFor = (signer?: ClientOptions['signer'], options: Partial<ClientOptions> = {}) =>
  createVaultkeeperClient({ baseUrl, signer, ...options });

async function failure(promise: Promise<unknown>): Promise<VaultkeeperError> {
  const error = await promise.then(
    () => assert.fail('the call succeeded'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof VaultkeeperError, String(error));
  return error;
}

async function collect<T>(iterator: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterator) items.push(item);
  return items;
}

/** Three vaults of one owner; the first funded, with 3 executed and 2 blocked transfers ingested. */
async function seed(owner: TestWallet) {
  const created = [];
  for (const name of ['Agent budget', 'Second', 'Third']) {
    created.push(
      await h.fake.createVault({ authority: owner.address as Address, dailyLimit: 10n * SOL, name }),
    );
  }
  const vault = created[0]!.vault;
  await h.fake.deposit(vault, 100n * SOL);
  // The owner pays for what they sign (approve is simulated before it is handed out).
  await h.fake.airdrop(owner.address as Address, SOL);
  const executed = [];
  for (let i = 1n; i <= 3n; i += 1n) executed.push(await h.fake.execute(vault, { amount: i * SOL }));
  const blocked = [];
  for (const amount of [20n * SOL, 30n * SOL]) {
    blocked.push(await h.fake.block(vault, { amount, reason: 'exceeded_daily_limit' }));
  }
  await waitForSignatures(
    h.storage.storage,
    [...executed, ...blocked].map((r) => r.signature),
  );
  return { vault, vaults: created.map((c) => c.vault), executed, blocked };
}

describe('vaultkeeper/client reads', () => {
  test('health, metrics, vaults, transactions, overrides, analytics and the event stream, with every page', async () => {
    await serve();
    const owner = createTestWallet();
    const s = await seed(owner);
    const client = clientFor();

    const health = await client.health();
    assert.equal(health.database, 'connected');
    assert.match(await client.metrics(), /^# HELP /m);

    assert.equal((await client.vaults.list({ owner: owner.address })).pagination.total, 3);
    const pagesBefore = seen.length;
    const vaults = await collect(client.vaults.all({ owner: owner.address, limit: 1 }));
    assert.equal(seen.length - pagesBefore, 3, 'one request per page of one');
    assert.deepEqual(
      vaults.map((v) => v.address),
      (await client.vaults.list({ owner: owner.address, limit: 100 })).vaults.map((v) => v.address),
    );
    assert.deepEqual(new Set(vaults.map((v) => v.address)), new Set(s.vaults));
    const vault = await client.vaults.get(s.vault);
    assert.equal(vault.name, 'Agent budget');
    assert.equal(vault.stats.transactionCount, 5);

    const transactions = await collect(client.transactions.all({ vault: s.vault, limit: 2 }));
    assert.equal(transactions.length, 5);
    assert.deepEqual(transactions.filter((t) => t.status === 'executed').length, 3);
    const executed = await client.transactions.get(s.executed[0]!.signature);
    assert.equal(executed.amount, String(SOL));
    assert.equal(executed.status, 'executed');
    // A blocked list item (signature null there) opens by its id, with the attempt's signature.
    const blockedItem = transactions.find((t) => t.status === 'blocked')!;
    assert.equal(blockedItem.signature, null);
    const blocked = await client.transactions.get(blockedItem.id);
    assert.equal(blocked.id, blockedItem.id);
    assert.ok(s.blocked.some((b) => b.signature === blocked.signature));
    assert.match(blocked.explorerUrl ?? '', /^https:\/\/explorer\.solana\.com\/tx\//);

    const overrides = await collect(client.overrides.all({ vault: s.vault, limit: 1 }));
    assert.equal(overrides.length, 2);
    // The owner's open approvals across their vaults: both requests are pending and within the hour.
    const open = await client.overrides.pending({ owner: owner.address, limit: 1 });
    assert.equal(open.pagination.total, 2);
    const sent = new URL(seen.at(-1)!.url!, baseUrl).searchParams;
    assert.deepEqual(Object.fromEntries(sent), { owner: owner.address, limit: '1', status: 'pending' });
    const walked = await collect(client.overrides.allPending({ owner: owner.address, limit: 1 }));
    assert.deepEqual(walked.map((o) => o.id).sort(), overrides.map((o) => o.id).sort());
    assert.equal((await client.overrides.pending({ owner: randomAddress() })).pagination.total, 0);
    const first = await client.overrides.get({ vault: s.vault, nonce: 0 });
    const second = await client.overrides.get({
      vault: s.vault,
      nonce: 0n,
      transfer: s.blocked[1]!.signature,
    });
    assert.deepEqual(
      [first.transferSignature, second.transferSignature],
      [s.blocked[0]!.signature, s.blocked[1]!.signature],
    );

    const analytics = await client.analytics.get({ vault: s.vault, groupBy: 'day' });
    assert.equal(analytics.summary.totalSpent, String(6n * SOL));
    assert.equal(analytics.summary.blockedCount, 2);
    const realtime = await client.analytics.realtime({ vault: s.vault });
    assert.equal(realtime.vault, s.vault);
    assert.equal(realtime.balance, String(h.fake.balance(vault.depositAddress as Address)));
    // The earlier string form still works (deprecated in the types).
    assert.equal((await client.analytics.realtime(s.vault)).balance, realtime.balance);

    // The feed from its start: this vault's events, in order, until the caller stops.
    const controller = new AbortController();
    const names: string[] = [];
    for await (const event of client.events.stream({
      vault: s.vault,
      lastEventId: 0,
      signal: controller.signal,
    })) {
      assert.equal(event.vault, s.vault);
      names.push(event.name);
      if (names.length === 6) break;
    }
    assert.equal(names.length, 6);
  });
});

describe('vaultkeeper/client wallet auth', () => {
  test('every kind of signer authenticates request-bound signatures: raw keys, kit signers, Wallet Standard', async () => {
    await serve();
    const wallet = createTestWallet();
    const kit = await createKeyPairSignerFromBytes(wallet.secretKey);
    const standard = fromWalletStandard({ address: wallet.address }, async (...inputs) =>
      inputs.map(({ message }) => ({ signedMessage: message, signature: wallet.sign(message) })),
    );
    const signers = [
      await fromSecretKey(wallet.secretKey),
      await fromSecretKey(wallet.secretKey.slice(0, 32)),
      fromKitSigner(kit),
      standard,
      wallet,
    ];
    for (const signer of signers) {
      assert.equal(signer.address, wallet.address);
      const verified = await clientFor(signer).auth.verify();
      assert.equal(verified.wallet, wallet.address);
    }
    const message = seen.at(-1)!.headers['x-message'] as string;
    assert.match(
      decodeURIComponent(message),
      /\nRequest: POST \/api\/auth\/verify\nBody-SHA256: e3b0c442[0-9a-f]{56}\nDomain: 127\.0\.0\.1:\d+$/,
    );
    await assert.rejects(fromSecretKey(new Uint8Array(33)), TypeError);
    const mismatched = wallet.secretKey.slice();
    mismatched[63] = mismatched[63]! ^ 1;
    await assert.rejects(fromSecretKey(mismatched), TypeError);
  });

  test('vault writes: create builds the owner-signed transaction and update renames at once', async () => {
    await serve();
    const owner = createTestWallet();
    const created = await h.fake.createVault({
      authority: owner.address as Address,
      dailyLimit: SOL,
      name: 'Before',
    });
    await waitForSignatures(h.storage.storage, [created.signature]);
    await h.fake.airdrop(owner.address as Address, SOL);
    const client = clientFor(await fromSecretKey(owner.secretKey));
    const agent = randomAddress();
    const draft = await client.vaults.create({
      name: 'New vault',
      agentSigner: agent,
      dailyLimit: '2500000000',
    });
    assert.equal(draft.vault.authority, owner.address);
    assert.equal(draft.vault.agentSigner, agent);
    assert.ok(Buffer.from(draft.transaction, 'base64').length > 100);
    const renamed = await client.vaults.update(created.vault, { name: 'After' });
    assert.equal(renamed.vault.name, 'After');
    assert.equal(renamed.transaction, null);
    const paused = await client.vaults.update(created.vault, { paused: true });
    assert.equal(typeof paused.transaction, 'string');
    // Someone else's vault: the service's 403 as a VaultkeeperError.
    const stranger = clientFor(createTestWallet());
    const refused = await failure(stranger.vaults.update(created.vault, { name: 'Mine' }));
    assert.deepEqual([refused.status, refused.code], [403, 'FORBIDDEN']);
  });
});

describe('vaultkeeper/client Blinks and webhooks', () => {
  test('actions: rules, metadata, and the deprecated approve, reject and confirmReject name one request', async () => {
    await serve();
    const owner = createTestWallet();
    const s = await seed(owner);
    const client = clientFor(owner);
    const anonymous = clientFor();
    const first = { vault: s.vault, nonce: '0', first: true } as const;
    const second = { vault: s.vault, nonce: '0', transfer: s.blocked[1]!.signature };
    assert.ok((await anonymous.actions.rules()).rules.some((r) => r.apiPath === '/api/actions/**'));
    const metadata = await anonymous.actions.get(second);
    assert.deepEqual(
      metadata.links.actions.map((a) => a.label),
      ['Approve', 'Reject'],
    );
    const approval = await client.actions.approve(first, { account: owner.address });
    assert.equal(approval.type, 'transaction');
    assert.ok(approval.transaction.length > 100);
    assert.match(approval.links.next.href, /\/approve\/confirm$/);

    const rejected = await client.actions.reject(second, { account: owner.address });
    assert.equal(rejected.type, 'post');
    assert.equal((await anonymous.overrides.get(second)).status, 'rejected');

    const start = await anonymous.actions.reject(first, { account: owner.address, type: 'message' });
    assert.equal(start.type, 'message');
    if (start.type !== 'message') return;
    const signature = toBase58(owner.sign(buildSignMessageText(start.data)));
    const done = await anonymous.actions.confirmReject(first, {
      account: owner.address,
      signature,
      data: start.data,
      state: start.state,
    });
    assert.equal(done.type, 'completed');
    assert.equal((await anonymous.overrides.get(first)).status, 'rejected');
    const again = await failure(anonymous.actions.reject(first, { account: owner.address }));
    assert.deepEqual([again.status, again.code], [409, 'OVERRIDE_NOT_PENDING']);
  });

  test('webhooks: every route, pages of subscriptions and deliveries, and the owner-only errors', async () => {
    await serve();
    const owner = createTestWallet();
    const client = clientFor(owner);
    const url = 'http://127.0.0.1:9/hooks';
    const created = [];
    for (let i = 0; i < 3; i += 1)
      created.push(await client.webhooks.create({ url, events: ['vault.paused'] }));
    assert.ok(created.every((w) => w.secret.startsWith('whsec_')));
    const listed = await collect(client.webhooks.all({ limit: 2 }));
    assert.deepEqual(new Set(listed.map((w) => w.id)), new Set(created.map((w) => w.id)));
    const hook = created[0]!;
    assert.equal((await client.webhooks.get(hook.id)).url, url);
    const updated = await client.webhooks.update(hook.id, { events: ['vault.paused', 'vault.resumed'] });
    assert.deepEqual(updated.events, ['vault.paused', 'vault.resumed']);

    const tests = [];
    for (let i = 0; i < 3; i += 1) tests.push(await client.webhooks.test(hook.id));
    assert.ok(tests.every((d) => d.event === 'webhook.test' && d.status === 'pending'));
    const deliveries = await collect(client.webhooks.allDeliveries(hook.id, { limit: 2 }));
    assert.deepEqual(new Set(deliveries.map((d) => d.id)), new Set(tests.map((d) => d.id)));
    assert.equal((await client.webhooks.deliveries(hook.id, { status: 'pending' })).pagination.total, 3);
    const retried = await client.webhooks.retryDelivery(hook.id, tests[0]!.id);
    assert.equal(retried.id, tests[0]!.id);
    const rotated = await client.webhooks.rotateSecret(hook.id);
    assert.notEqual(rotated.secret, hook.secret);

    const stranger = await failure(clientFor(createTestWallet()).webhooks.get(hook.id));
    assert.deepEqual([stranger.status, stranger.code], [403, 'FORBIDDEN']);
    await client.webhooks.update(hook.id, { active: false });
    const disabled = await failure(client.webhooks.test(hook.id));
    assert.deepEqual([disabled.status, disabled.code], [409, 'WEBHOOK_DISABLED']);
    assert.equal(await client.webhooks.delete(hook.id), undefined);
    const gone = await failure(client.webhooks.get(hook.id));
    assert.deepEqual([gone.status, gone.code], [404, 'WEBHOOK_NOT_FOUND']);
  });
});

/**
 * The seeded vault's two blocked transfers (20 then 30 SOL, both announcing override nonce 0) and an
 * override of 5 SOL its owner then created on chain without a blocked transfer (transferSignature null).
 */
async function seedRequests(owner: TestWallet) {
  const { vault, blocked } = await seed(owner);
  const onChain = await h.fake.createOverride(vault, {
    destination: randomAddress() as Address,
    amount: 5n * SOL,
  });
  await waitForSignatures(h.storage.storage, [onChain.signature]);
  const { overrides } = await clientFor().overrides.list({ vault });
  const byAmount = (sol: bigint) => overrides.find((o) => o.amount === String(sol * SOL))!;
  return { vault, blocked, first: byAmount(20n), second: byAmount(30n), onChain: byAmount(5n) };
}

/** Signs the unsigned approve transaction as the owner and sends it to the cluster; its signature. */
async function signAndSend(owner: TestWallet, transaction: string): Promise<string> {
  const wire = Buffer.from(transaction, 'base64');
  wire.set(owner.sign(decodeTransactionBase64(transaction).messageBytes), 1);
  return rpcCall<string>(h.fake.rpcUrl, 'sendTransaction', [wire.toString('base64'), { encoding: 'base64' }]);
}

const transferred = (preview: TransactionPreview) =>
  preview.balanceChanges.find((b) => b.role === 'destination')?.delta;

describe('vaultkeeper/client approvals', () => {
  test('preview, approve and confirm act on the request the caller names: by override object, transfer or first', async () => {
    await serve();
    const owner = createTestWallet();
    const r = await seedRequests(owner);
    const client = clientFor(owner);
    const account = owner.address;
    assert.equal(r.onChain.transferSignature, null);

    // The override objects as listed: each previews its own transfer, the on-chain one included.
    assert.equal(transferred(await client.approvals.preview({ ...r.second, account })), String(30n * SOL));
    const onChain = await client.approvals.preview({ ...r.onChain, account });
    assert.equal(transferred(onChain), String(5n * SOL));
    assert.deepEqual(onChain.instructions.slice(2), ['approve_override', 'execute_approved_override']);
    const byTransfer = { vault: r.vault, nonce: 0, transfer: r.blocked[0]!.signature };
    assert.equal(transferred(await client.approvals.preview({ ...byTransfer, account })), String(20n * SOL));
    const first = { vault: r.vault, nonce: 0n, first: true } as const;
    assert.equal(transferred(await client.approvals.preview({ ...first, account })), String(20n * SOL));

    // Approve the 30 SOL request through its object: sign, send, confirm.
    const approval = await client.approvals.approve({ ...r.second, account });
    assert.equal(new URL(approval.links.next.href).searchParams.get('transfer'), r.blocked[1]!.signature);
    const signature = await signAndSend(owner, approval.transaction);
    const done = await clientFor().approvals.confirm({ ...r.second, account, signature });
    assert.equal(done.type, 'completed');
    assert.ok(done.description.includes('30 SOL'), done.description);
    assert.ok(done.description.includes(signature), done.description);
    // The same signature is not the first request's approval.
    const mismatch = await failure(clientFor().approvals.confirm({ ...first, account, signature }));
    assert.deepEqual([mismatch.status, mismatch.code], [422, 'TRANSACTION_MISMATCH']);

    // Reject the on-chain one by its object; the first request stays pending.
    const rejected = await client.approvals.reject({ ...r.onChain, account });
    assert.equal(rejected.type, 'post');
    const after = await clientFor().overrides.list({ vault: r.vault });
    const statusOf = (id: string) => after.overrides.find((o) => o.id === id)?.status;
    assert.deepEqual([statusOf(r.first.id), statusOf(r.onChain.id)], ['pending', 'rejected']);
  });

  test('a decision that names only vault and nonce is refused before anything is sent, saying how to name it', async () => {
    await serve();
    const owner = createTestWallet();
    const client = clientFor(owner);
    const vault = randomAddress();
    const account = owner.address;
    const bare = { vault, nonce: '0' } as never;
    const wrong = [
      client.approvals.preview({ vault, nonce: '0', account } as never),
      client.approvals.approve({ vault, nonce: '0', account } as never),
      client.approvals.confirm({ vault, nonce: '0', account, signature: 'x' } as never),
      client.approvals.reject({ vault, nonce: '0', account } as never),
      client.actions.approve(bare, { account }),
      client.actions.reject(bare, { account }),
      client.approvals.approve({ vault, nonce: '0', transfer: 'x', first: true, account } as never),
      // An override object whose blinkUrl is another request's.
      client.approvals.approve({
        vault,
        nonce: '0',
        transferSignature: null,
        blinkUrl: `${baseUrl}/api/actions/${vault}/1`,
        account,
      }),
    ];
    const refusals = await Promise.all(
      wrong.map((call) =>
        call.then(
          () => null,
          (error: unknown) => error,
        ),
      ),
    );
    for (const error of refusals) assert.ok(error instanceof TypeError, String(error));
    const messages = refusals.map((e) => (e as TypeError).message);
    assert.match(
      messages[0]!,
      /^approvals\.preview needs the approval request named unambiguously: \{ vault, nonce, transfer \}.*the override object.*\{ vault, nonce, first: true \}/,
    );
    assert.match(messages[4]!, /^actions\.approve needs/);
    assert.match(messages[6]!, /either transfer or first: true, not both/);
    assert.match(messages[7]!, /blinkUrl names another request/);
    assert.equal(seen.length, 0, 'nothing was sent');
  });
});

describe('vaultkeeper/client with an API key', () => {
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
    const expected = new URL(baseUrl).host;
    const owner = createTestWallet();
    // The same service through another name for its host: signatures name that name.
    const other = baseUrl.replace('127.0.0.1', 'localhost');
    const error = await failure(createVaultkeeperClient({ baseUrl: other, signer: owner }).webhooks.list());
    assert.deepEqual(
      [error.status, error.details.reason, error.details.expectedDomain],
      [401, 'wrong_request', expected],
    );
    assert.ok(error.message.includes(`the service expects Domain ${expected}`), error.message);
    assert.ok(error.message.includes("set baseUrl to the service's PUBLIC_BASE_URL"), error.message);
  });
});

describe('vaultkeeper/client errors', () => {
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
      baseUrl: baseUrl.replace('127.0.0.1', 'localhost'),
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
    intercept = (_req, res) => {
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

describe('vaultkeeper/client on 429', () => {
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
    intercept = (_req, res, index) =>
      index === 0 ? tooMany(res, '1') : index === 1 ? tooMany(res, '0') : false;
    const started = Date.now();
    assert.equal((await client.auth.verify()).wallet, wallet.address);
    assert.ok(Date.now() - started >= 1000, 'waited the first Retry-After');
    assert.equal(seen.length, 3);
    assert.equal(new Set(seen.map((r) => r.headers['x-signature'])).size, 3, 'each attempt signed anew');

    seen.length = 0;
    intercept = (_req, res) => tooMany(res, '0');
    const error = await failure(client.auth.verify());
    assert.deepEqual([error.status, error.code, error.details.retryAfter], [429, 'RATE_LIMIT_EXCEEDED', 1]);
    assert.equal(seen.length, 3, 'the first try and two retries');
  });
});

describe('vaultkeeper/client event stream', () => {
  test('a stream refused with 429 is opened again after Retry-After and replays from lastEventId', async () => {
    await serve();
    const created = await h.fake.createVault({
      authority: randomAddress() as Address,
      dailyLimit: SOL,
      name: 'Streamed',
    });
    await waitForSignatures(h.storage.storage, [created.signature]);
    intercept = (req, res, index) => {
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
    const { stdout } = await execFileAsync(
      process.execPath,
      ['--import', 'tsx', 'docs/examples/vault-report.mjs'],
      {
        env: { ...process.env, VAULTKEEPER_URL: baseUrl, KEYPAIR: keypair },
      },
    );
    const lines = stdout.trim().split('\n');
    assert.equal(lines.filter((l) => / today$/.test(l)).length, 3, stdout);
    assert.ok(lines.includes(`Agent budget ${s.vault}: 6.000 SOL of 10.000 SOL today`), stdout);
    assert.equal(lines.filter((l) => l.startsWith('  waiting for you: ')).length, 2, stdout);
    assert.ok(lines.includes('webhook http://127.0.0.1:9/hooks: active, 0 failed'), stdout);
    const signed = seen.filter((r) => r.headers['x-wallet-address'] === owner.address);
    assert.ok(signed.length >= 2, 'the webhook reads were signed by the key file');
  });
});
