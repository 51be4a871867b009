// Dialect's Blink client end to end: the service runs on a real socket with its ingestor on the fake
// validator; blinks-core unfurls, renders and executes approve and reject exactly as wallets do.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import type { FastifyInstance } from 'fastify';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import { buildApp } from '../../src/app.js';
import {
  type BlinkRun,
  clickBlinkButton,
  createTestBlinkAdapter,
  fetchBlink,
  type WalletLog,
} from '../support/blink-client.js';
import { randomAddress } from '../support/factories.js';
import { useIngestionHarness } from '../support/ingestion-harness.js';
import { waitFor, waitForSignatures } from '../support/wait.js';

const SOL = 1_000_000_000n;
const DEVNET_ID = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';

const h = useIngestionHarness();
let baseUrl: string;
let app: FastifyInstance;

beforeEach(async () => {
  // The socket comes first: PUBLIC_BASE_URL (in every href the client follows) must name its port.
  const origin = await h.world.openOrigin();
  baseUrl = origin.url;
  // One owner approving eighteen transfers a minute is past the per-address write budget; the budgets
  // have their own tests, this file is about the client's protocol.
  await h.startLive({ PUBLIC_BASE_URL: baseUrl, RATE_LIMIT_ENABLED: 'false' });
  app = await buildApp(h.deps);
  await app.ready();
  origin.serve({ app, deps: h.deps });
});

interface Blocked {
  destination: Address;
  amount: bigint;
  signature: string;
  blinkUrl: string;
  approvalUrl: string;
}

/** A funded vault whose agent had `amounts` blocked before the owner did anything, as ingested. */
async function blockTransfers(
  amounts: readonly bigint[],
): Promise<{ owner: TestWallet; vault: Address; blocked: Blocked[] }> {
  const owner = createTestWallet();
  const created = await h.fake.createVault({
    authority: owner.address as Address,
    dailyLimit: SOL,
    name: 'Agent budget',
  });
  await h.fake.deposit(created.vault, 100n * SOL);
  await h.fake.airdrop(owner.address as Address, SOL);
  const attempts = [];
  for (const amount of amounts) {
    const destination = randomAddress() as Address;
    const result = await h.fake.block(created.vault, { destination, amount, reason: 'exceeded_daily_limit' });
    attempts.push({ destination, amount, signature: result.signature, overrideNonce: result.overrideNonce });
  }
  // The program announces its current nonce in every one of them: nothing changed on chain in between.
  assert.deepEqual(
    attempts.map((a) => a.overrideNonce),
    attempts.map(() => 0n),
  );
  await waitForSignatures(
    h.storage.storage,
    attempts.map((a) => a.signature),
  );
  const blocked = await Promise.all(
    attempts.map(async (a) => {
      const list = await getJson(`/api/overrides?vault=${created.vault}`);
      const request = list.overrides.find(
        (o: { transferSignature: string }) => o.transferSignature === a.signature,
      );
      assert.ok(request, `an override for ${a.signature}`);
      return { ...a, blinkUrl: request.blinkUrl, approvalUrl: request.approvalUrl };
    }),
  );
  return { owner, vault: created.vault, blocked };
}

// biome-ignore lint/suspicious/noExplicitAny: API bodies are read field by field and asserted.
async function getJson(path: string): Promise<any> {
  const res = await fetch(new URL(path, baseUrl));
  assert.equal(res.status, 200, path);
  return res.json();
}

async function waitForStatus(url: string, status: string) {
  const path = new URL(url);
  const api = `/api/overrides/${path.pathname.split('/').slice(-2).join('/')}${path.search}`;
  return waitFor(
    async () => {
      const override = await getJson(api);
      return override.status === status ? override : undefined;
    },
    { message: `${api} ${status}`, intervalMs: 100 },
  );
}

const adapterFor = (owner: TestWallet) =>
  createTestBlinkAdapter(owner, { rpcUrl: h.fake.rpcUrl, blockchainId: DEVNET_ID });

/**
 * The client followed links.next after sending: it posted the signature and now shows the completed
 * Action, which names the amount, the destination and the signature it sent.
 */
function assertApproved(
  run: BlinkRun,
  b: { destination: string; amount: bigint },
  adapter: { log: WalletLog },
) {
  const label = JSON.stringify({ status: run.status, caption: run.caption, title: run.blink.title });
  assert.equal(run.blink.type, 'completed', label);
  assert.equal(run.blink.title, 'Override Approved', label);
  const signature = adapter.log.sent.at(-1)!;
  assert.match(
    run.blink.description,
    new RegExp(`sent ${b.amount / SOL} SOL \\(${b.amount} lamports\\) to ${b.destination}`),
  );
  assert.ok(run.blink.description.endsWith(`in transaction ${signature}.`), run.blink.description);
}

const PERMUTATIONS = [
  [0, 1, 2],
  [0, 2, 1],
  [1, 0, 2],
  [1, 2, 0],
  [2, 0, 1],
  [2, 1, 0],
];

describe("Dialect's Blink client (@dialectlabs/blinks-core) against the running service", () => {
  test('the first request of a nonce is addressed by it alone, later ones by ?transfer=, and pages unfurl to the same Action', async () => {
    const { blocked, vault } = await blockTransfers([3n * SOL, 4n * SOL, 5n * SOL]);
    assert.equal(blocked[0]!.blinkUrl, `${baseUrl}/api/actions/${vault}/0`);
    assert.equal(blocked[0]!.approvalUrl, `${baseUrl}/overrides/${vault}/0`);
    for (const b of blocked.slice(1)) {
      assert.equal(b.blinkUrl, `${baseUrl}/api/actions/${vault}/0?transfer=${b.signature}`);
      assert.equal(b.approvalUrl, `${baseUrl}/overrides/${vault}/0?transfer=${b.signature}`);
    }
    for (const b of blocked) {
      const shown = await fetchBlink(b.blinkUrl);
      const unfurled = await fetchBlink(b.approvalUrl);
      assert.equal(shown.apiUrl, b.blinkUrl);
      assert.equal(unfurled.apiUrl, b.blinkUrl, 'the approval page unfurls to its own Blink');
      // Each card describes its own transfer: destination and amount.
      assert.match(unfurled.blink.description, new RegExp(b.destination));
      assert.match(unfurled.blink.description, new RegExp(`${b.amount} lamports`));
      assert.deepEqual(
        unfurled.blink.actions.map((a) => a.label),
        ['Approve', 'Reject'],
      );
      assert.equal(unfurled.blink.disabled, false);
    }
  });

  test('three transfers blocked before the owner acts are each approved, in every order, paying exactly their own destination and amount', async () => {
    for (const order of PERMUTATIONS) {
      const { owner, blocked } = await blockTransfers([3n * SOL, 4n * SOL, 5n * SOL]);
      const adapter = adapterFor(owner);
      for (const [step, index] of order.entries()) {
        const b = blocked[index]!;
        const run = await clickBlinkButton(step % 2 === 0 ? b.blinkUrl : b.approvalUrl, 'Approve', adapter);
        assertApproved(run, b, adapter);
        assert.equal(h.fake.balance(b.destination), b.amount, `${order}: step ${step} paid its own transfer`);
        const executed = await waitForStatus(b.blinkUrl, 'executed');
        assert.equal(executed.transferSignature, b.signature);
        assert.equal(executed.chainNonce, String(step), 'created at the chain nonce current when approved');
      }
      for (const b of blocked) assert.equal(h.fake.balance(b.destination), b.amount, `${order}: paid once`);
      assert.equal(adapter.log.sent.length, 3);
    }
  });

  test('reject goes through the sign-message flow and resolves only its own request', async () => {
    const { owner, blocked } = await blockTransfers([3n * SOL, 4n * SOL, 5n * SOL]);
    const adapter = adapterFor(owner);
    const run = await clickBlinkButton(blocked[1]!.approvalUrl, 'Reject', adapter);
    assert.equal(run.blink.type, 'completed', JSON.stringify(run.caption));
    assert.equal(run.blink.title, 'Override Rejected');
    assert.equal(adapter.log.signedMessages.length, 1);
    assert.match(adapter.log.signedMessages[0]!, /wants you to sign a message with your account:/);
    assert.equal(adapter.log.sent.length, 0, 'rejecting sends no transaction');
    await waitForStatus(blocked[1]!.blinkUrl, 'rejected');
    for (const b of [blocked[0]!, blocked[2]!])
      assert.equal((await waitForStatus(b.blinkUrl, 'pending')).status, 'pending');
    // The rejected card is disabled; the others still approve exactly their own transfer.
    assert.equal((await fetchBlink(blocked[1]!.blinkUrl)).blink.disabled, true);
    const approved = await clickBlinkButton(blocked[2]!.blinkUrl, 'Approve', adapter);
    assertApproved(approved, blocked[2]!, adapter);
    assert.equal(h.fake.balance(blocked[2]!.destination), blocked[2]!.amount);
    assert.equal(h.fake.balance(blocked[1]!.destination), 0n);
    await waitForStatus(blocked[2]!.blinkUrl, 'executed');
  });

  test('one transfer, and two transfers in both orders, each pay exactly their own destination and amount', async () => {
    for (const order of [[0], [0, 1], [1, 0]]) {
      const { owner, blocked } = await blockTransfers(order.length === 1 ? [2n * SOL] : [2n * SOL, 7n * SOL]);
      const adapter = adapterFor(owner);
      for (const index of order) {
        const b = blocked[index]!;
        const run = await clickBlinkButton(b.blinkUrl, 'Approve', adapter);
        assertApproved(run, b, adapter);
        assert.equal(h.fake.balance(b.destination), b.amount);
        await waitForStatus(b.blinkUrl, 'executed');
      }
    }
  });

  test('an approve transaction built before another override was created is refused by the program (2006), and a fresh one works', async () => {
    const { owner, blocked } = await blockTransfers([3n * SOL, 4n * SOL]);
    const post = async (url: string) => {
      const target = new URL(url);
      target.pathname += '/approve';
      const res = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ account: owner.address, type: 'transaction' }),
      });
      assert.equal(res.status, 200);
      return ((await res.json()) as { transaction: string }).transaction;
    };
    const stale = await post(blocked[1]!.blinkUrl);
    const adapter = adapterFor(owner);
    assertApproved(await clickBlinkButton(blocked[0]!.blinkUrl, 'Approve', adapter), blocked[0]!, adapter);
    const refused = await adapter.signTransaction(stale, {} as never);
    assert.ok('error' in refused && /0x7d6|2006/.test(refused.error), JSON.stringify(refused));
    assert.equal(h.fake.balance(blocked[1]!.destination), 0n);
    const run = await clickBlinkButton(blocked[1]!.blinkUrl, 'Approve', adapter);
    assertApproved(run, blocked[1]!, adapter);
    assert.equal(h.fake.balance(blocked[1]!.destination), blocked[1]!.amount);
  });
});
