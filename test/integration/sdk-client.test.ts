// @vaultkeeper/client against the running service on a real socket (its ingestor on the fake validator):
// every route through a typed method, each kind of signer, pagination, errors, 429 retries and aborts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Address, createKeyPairSignerFromBytes } from '@solana/kit';
import {
  buildSignMessageText,
  fromKitSigner,
  fromSecretKey,
  fromWalletStandard,
  type TransactionPreview,
  toBase58,
} from '@vaultkeeper/client';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import { decodeTransactionBase64 } from '../../src/chain/solana-transactions.js';
import { randomAddress } from '../support/factories.js';
import { SOL } from '../support/ingestion-harness.js';
import { rpcCall } from '../support/json-rpc.js';
import { collect, failure, useSdkService } from '../support/sdk-service.js';
import { waitForSignatures } from '../support/wait.js';

const service = useSdkService();
const { h, seen, serve, clientFor, seed } = service;

describe('@vaultkeeper/client reads', () => {
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
    // The owner's pending overrides across their vaults: both are pending and within the hour.
    const open = await client.overrides.pending({ owner: owner.address, limit: 1 });
    assert.equal(open.pagination.total, 2);
    const sent = new URL(seen.at(-1)!.url!, service.baseUrl).searchParams;
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

describe('@vaultkeeper/client wallet auth', () => {
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

describe('@vaultkeeper/client Blinks and webhooks', () => {
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

describe('@vaultkeeper/client approvals', () => {
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
    // The same signature does not approve the first override.
    const mismatch = await failure(clientFor().approvals.confirm({ ...first, account, signature }));
    assert.deepEqual([mismatch.status, mismatch.code], [422, 'TRANSACTION_MISMATCH']);

    // Reject the on-chain one by its object; the first override stays pending.
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
        blinkUrl: `${service.baseUrl}/api/actions/${vault}/1`,
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
      /^approvals\.preview needs the override named unambiguously: \{ vault, nonce, transfer \}.*the override object.*\{ vault, nonce, first: true \}/,
    );
    assert.match(messages[4]!, /^actions\.approve needs/);
    assert.match(messages[6]!, /either transfer or first: true, not both/);
    assert.match(messages[7]!, /blinkUrl names another override/);
    assert.equal(seen.length, 0, 'nothing was sent');
  });
});
