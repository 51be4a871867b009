// Rejecting a blocked transfer through its Blink: at once with wallet-auth headers, or through the
// Actions sign-message flow (reject, then the signed confirm), and what a rejection leaves behind.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getBase58Decoder } from '@solana/kit';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import { vaultTag } from '../../src/cache/tags.js';
import { actionNonces, overrides, webhooks } from '../../src/storage/schema/index.js';
import {
  assertActionError,
  assertActionHeaders,
  DEVNET_ID,
  findBlink,
  findOverride,
  OPS_BUDGET_REQUEST,
  useBlinkApps,
} from '../support/blink-actions.js';
import { BLINKS_BASE_URL, type SeededOverride, SOL } from '../support/seeded-overrides.js';

const STATE_SECRET = 'a-shared-secret-of-at-least-32-characters';
const base58 = getBase58Decoder();

const { apps, clock, seed, post, postSigned } = useBlinkApps({ seed: OPS_BUDGET_REQUEST });

/** The exact Actions 2.4 sign-message text, written out independently of the service's builder. */
function signMessageText(d: Record<string, string>): string {
  const lines = [
    ...(d.chainId ? [`Chain ID: ${d.chainId}`] : []),
    `Nonce: ${d.nonce}`,
    `Issued At: ${d.issuedAt}`,
  ];
  return `${d.domain} wants you to sign a message with your account:\n${d.address}\n\n${d.statement}\n\n${lines.join('\n')}`;
}

async function subscribeWebhook(s: SeededOverride): Promise<void> {
  await apps.db.insert(webhooks).values({
    owner: s.owner.address,
    vaultId: s.vaultRow.id,
    url: 'https://hooks.example.com/vaultkeeper',
    events: ['override.rejected'],
    secret: 'whsec_dGVzdA==',
  });
}

/** Everything a rejection must leave behind, whichever path made it. */
async function assertRejected(s: SeededOverride): Promise<void> {
  const row = await findOverride(apps.db, s.override.id);
  assert.equal(row.status, 'rejected');
  assert.equal(row.rejectedAt?.getTime(), clock.nowMs);
  const deliveries = await apps.storage.rows<{ event: string; payload: string }>(
    sql`select event, payload from webhook_deliveries`,
  );
  assert.equal(deliveries.length, 1);
  assert.equal(deliveries[0]!.event, 'override.rejected');
  const { data } = JSON.parse(deliveries[0]!.payload);
  assert.deepEqual(data, {
    id: s.override.id,
    vaultId: s.vaultRow.id,
    vault: s.vault,
    nonce: String(s.nonce),
    transferSignature: null,
    chainNonce: null,
    destination: s.destination,
    amount: String(2n * SOL),
    blockReason: s.override.reason,
    status: 'rejected',
    expiresAt: s.override.expiresAt.toISOString(),
    createdAt: s.override.createdAt.toISOString(),
    decidedAt: new Date(clock.nowMs).toISOString(),
    expired: false,
    blinkUrl: `${BLINKS_BASE_URL}${s.url}`,
    approvalUrl: `${BLINKS_BASE_URL}/overrides/${s.vault}/${s.nonce}`,
  });
  const dirty = await apps.storage.rows<{ day: string }>(
    sql`select day::text as day from daily_metrics_dirty where vault_key = ${s.vaultRow.id}`,
  );
  assert.ok(dirty.some((d) => d.day === new Date(clock.nowMs).toISOString().slice(0, 10)));
  assert.equal((await findBlink(apps.db, s.override.id)).rejectCount, 1);
  assert.equal(
    await apps.deps.cache.get(`test:${s.vaultRow.id}`),
    undefined,
    'cached reads of the vault were evicted',
  );
}

async function cacheVaultRead(s: SeededOverride): Promise<void> {
  await apps.deps.cache.set(`test:${s.vaultRow.id}`, { stale: true }, 300, [vaultTag(s.vault)]);
  assert.deepEqual(await apps.deps.cache.get(`test:${s.vaultRow.id}`), { stale: true });
}

describe('POST /api/actions/:vault/:nonce/reject with wallet-auth headers', () => {
  test('rejects at once, fires override.rejected, marks metrics dirty and evicts cached reads', async () => {
    const s = await seed();
    await subscribeWebhook(s);
    await cacheVaultRead(s);
    const res = await postSigned(`${s.url}/reject`, { account: s.owner.address }, s.owner);
    assert.equal(res.statusCode, 200, res.body);
    assertActionHeaders(res);
    assert.deepEqual(res.json(), { type: 'post', message: 'Override rejected.' });
    await assertRejected(s);
    const meta = (await apps.app.inject({ url: s.url })).json();
    assert.equal(meta.disabled, true);
  });

  test('can reject an override that expired (it can only no longer be approved)', async () => {
    const s = await seed({ expiresInMs: -60_000 });
    const res = await postSigned(`${s.url}/reject`, { account: s.owner.address }, s.owner);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((await findOverride(apps.db, s.override.id)).status, 'rejected');
  });

  test('refuses headers naming another wallet (401), a non-authority (403) and a decided override (409)', async () => {
    const s = await seed();
    const other = createTestWallet();
    assertActionError(
      await postSigned(`${s.url}/reject`, { account: s.owner.address }, other),
      401,
      'UNAUTHORIZED',
    );
    assertActionError(
      await postSigned(`${s.url}/reject`, { account: other.address }, other),
      403,
      'FORBIDDEN',
    );
    assertActionError(await post(`${s.url}/reject`, { account: other.address }), 403, 'FORBIDDEN');
    const decided = await seed({ status: 'approved' });
    assertActionError(
      await postSigned(`${decided.url}/reject`, { account: decided.owner.address }, decided.owner),
      409,
      'OVERRIDE_NOT_PENDING',
    );
    assertActionError(
      await post(`${decided.url}/reject`, { account: decided.owner.address }),
      409,
      'OVERRIDE_NOT_PENDING',
    );
    assert.equal((await findOverride(apps.db, s.override.id)).status, 'pending');
    assertActionError(
      await post(`/api/actions/${s.vault}/404/reject`, { account: s.owner.address }),
      404,
      'OVERRIDE_NOT_FOUND',
    );
  });
});

interface MessageStart {
  data: Record<string, string>;
  state: string;
  next: string;
}

async function startSignMessage(
  s: SeededOverride,
  target: FastifyInstance = apps.app,
): Promise<MessageStart> {
  const res = await target.inject({
    method: 'POST',
    url: `${s.url}/reject`,
    payload: { account: s.owner.address },
  });
  assert.equal(res.statusCode, 200, res.body);
  assertActionHeaders(res);
  const body = res.json();
  assert.equal(body.type, 'message');
  assert.equal(body.links.next.type, 'post');
  return { data: body.data, state: body.state, next: new URL(body.links.next.href).pathname };
}

const sign = (wallet: TestWallet, text: string) => base58.decode(wallet.sign(text));

describe('POST /api/actions/:vault/:nonce/reject through the Actions sign-message flow', () => {
  test('asks the authority to sign SignMessageData, then the confirm POST verifies it and rejects', async () => {
    const s = await seed();
    await subscribeWebhook(s);
    await cacheVaultRead(s);
    const start = await startSignMessage(s);
    assert.equal(start.next, `${s.url}/reject/confirm`);
    const { data } = start;
    assert.equal(data.domain, 'blinks.vaultkeeper.test');
    assert.equal(data.address, s.owner.address);
    assert.equal(data.chainId, DEVNET_ID);
    assert.equal(data.issuedAt, new Date(clock.nowMs).toISOString());
    assert.match(data.nonce!, /^[A-Za-z0-9]{8,}$/);
    for (const part of [s.vault, s.destination, '2 SOL (2000000000 lamports)', `override ${s.nonce}`]) {
      assert.ok(data.statement!.includes(part), `statement names ${part}`);
    }
    assert.equal(
      (await findOverride(apps.db, s.override.id)).status,
      'pending',
      'nothing is rejected before the signature',
    );

    const signature = sign(s.owner, signMessageText(data));
    const res = await post(start.next, { account: s.owner.address, signature, data, state: start.state });
    assert.equal(res.statusCode, 200, res.body);
    assertActionHeaders(res);
    const completed = res.json();
    assert.equal(completed.type, 'completed');
    assert.equal(completed.icon, `${BLINKS_BASE_URL}/api/actions/icon.svg`);
    assert.equal(completed.title, 'Override Rejected');
    assert.equal(typeof completed.label, 'string');
    assert.ok(completed.description.includes(s.destination));
    await assertRejected(s);
    const [nonceRow] = await apps.db.select().from(actionNonces).where(eq(actionNonces.nonce, data.nonce!));
    assert.equal(nonceRow?.usedAt?.getTime(), clock.nowMs);
  });

  test('accepts the signed text itself as data', async () => {
    const s = await seed();
    const { data, state, next } = await startSignMessage(s);
    const text = signMessageText(data);
    const res = await post(next, {
      account: s.owner.address,
      signature: sign(s.owner, text),
      data: text,
      state,
    });
    assert.equal(res.statusCode, 200, res.body);
  });

  test('a signature is accepted once: a replayed confirm is 401 replayed', async () => {
    const s = await seed();
    const { data, state, next } = await startSignMessage(s);
    const payload = {
      account: s.owner.address,
      signature: sign(s.owner, signMessageText(data)),
      data,
      state,
    };
    assert.equal((await post(next, payload)).statusCode, 200);
    const body = assertActionError(await post(next, payload), 401, 'UNAUTHORIZED');
    assert.deepEqual(body.details, { reason: 'replayed' });
  });

  test('two concurrent confirms of one signature reject once', async () => {
    const s = await seed();
    await subscribeWebhook(s);
    const { data, state, next } = await startSignMessage(s);
    const payload = {
      account: s.owner.address,
      signature: sign(s.owner, signMessageText(data)),
      data,
      state,
    };
    const results = await Promise.all([post(next, payload), post(next, payload)]);
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 401]);
    const deliveries = await apps.storage.rows(sql`select id from webhook_deliveries`);
    assert.equal(deliveries.length, 1);
  });

  test('refuses a signature by another key (401 bad_signature) and a changed message (401 wrong_message)', async () => {
    const s = await seed();
    const { data, state, next } = await startSignMessage(s);
    const intruder = createTestWallet();
    const forged = await post(next, {
      account: s.owner.address,
      signature: sign(intruder, signMessageText(data)),
      data,
      state,
    });
    assert.deepEqual(assertActionError(forged, 401, 'UNAUTHORIZED').details, { reason: 'bad_signature' });
    const changed = { ...data, statement: 'Approve everything.' };
    const tampered = await post(next, {
      account: s.owner.address,
      signature: sign(s.owner, signMessageText(changed)),
      data: changed,
      state,
    });
    assert.deepEqual(assertActionError(tampered, 401, 'UNAUTHORIZED').details, { reason: 'wrong_message' });
    const garbage = await post(next, { account: s.owner.address, signature: 'not-base58!', data, state });
    assert.deepEqual(assertActionError(garbage, 401, 'UNAUTHORIZED').details, { reason: 'malformed' });
    assert.equal((await findOverride(apps.db, s.override.id)).status, 'pending');
  });

  test('refuses a state that is forged, belongs to another override or names another account (401 bad_state)', async () => {
    // With a shared ACTIONS_STATE_SECRET the state's MAC decides (without one, the signature does: below).
    const secured = await apps.start({ cache: apps.deps.cache, env: { ACTIONS_STATE_SECRET: STATE_SECRET } });
    const s = await seed();
    const other = await seed();
    const mine = await startSignMessage(s, secured.app);
    const theirs = await startSignMessage(other, secured.app);
    const payload = (state: string, account = s.owner.address) => ({
      account,
      signature: sign(s.owner, signMessageText(mine.data)),
      data: mine.data,
      state,
    });
    const forged = [payload('v2.abc.def'), payload(theirs.state), payload(mine.state, other.owner.address)];
    for (const body of forged) {
      const res = await secured.app.inject({ method: 'POST', url: mine.next, payload: body });
      assert.deepEqual(assertActionError(res, 401, 'UNAUTHORIZED').details, { reason: 'bad_state' });
    }
    // Without a shared secret another instance may have issued a state: the signed text must match.
    for (const body of forged) assertActionError(await post(mine.next, body), 401, 'UNAUTHORIZED');
    assert.equal((await findOverride(apps.db, s.override.id)).status, 'pending');
  });

  test('a sign-message request expires after ten minutes (401 expired)', async () => {
    const s = await seed();
    const { data, state, next } = await startSignMessage(s);
    clock.nowMs += 10 * 60_000 + 1;
    const res = await post(next, {
      account: s.owner.address,
      signature: sign(s.owner, signMessageText(data)),
      data,
      state,
    });
    assert.deepEqual(assertActionError(res, 401, 'UNAUTHORIZED').details, { reason: 'expired' });
  });

  test('confirm answers 409 when the override was decided meanwhile', async () => {
    const s = await seed();
    const { data, state, next } = await startSignMessage(s);
    await apps.db.update(overrides).set({ status: 'approved' }).where(eq(overrides.id, s.override.id));
    const res = await post(next, {
      account: s.owner.address,
      signature: sign(s.owner, signMessageText(data)),
      data,
      state,
    });
    assertActionError(res, 409, 'OVERRIDE_NOT_PENDING');
    assertActionError(
      await post(`/api/actions/${s.vault}/5555/reject/confirm`, {
        account: s.owner.address,
        signature: 'x',
        data,
        state,
      }),
      404,
      'OVERRIDE_NOT_FOUND',
    );
  });

  test('another instance confirms what this one issued: the state carries what the confirmation checks', async () => {
    for (const secret of [undefined, STATE_SECRET]) {
      const env: Record<string, string> = secret === undefined ? {} : { ACTIONS_STATE_SECRET: secret };
      const [a, b] = await Promise.all([
        apps.start({ cache: apps.deps.cache, env }),
        apps.start({ cache: apps.deps.cache, env }),
      ]);
      const s = await seed();
      const { data, state, next } = await startSignMessage(s, a.app);
      const payload = {
        account: s.owner.address,
        signature: sign(s.owner, signMessageText(data)),
        data,
        state,
      };
      const res = await b.app.inject({ method: 'POST', url: next, payload });
      assert.equal(res.statusCode, 200, `${secret ?? 'no secret'}: ${res.body}`);
    }
  });

  test('with ACTIONS_STATE_SECRET a state whose MAC does not verify is refused', async () => {
    const secured = await apps.start({ cache: apps.deps.cache, env: { ACTIONS_STATE_SECRET: STATE_SECRET } });
    const s = await seed();
    const { data, state, next } = await startSignMessage(s, secured.app);
    const mac = state.split('.')[3]!;
    const flipped = `${state.slice(0, -mac.length)}${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`;
    const payload = {
      account: s.owner.address,
      signature: sign(s.owner, signMessageText(data)),
      data,
      state: flipped,
    };
    const res = await secured.app.inject({ method: 'POST', url: next, payload });
    assert.deepEqual(assertActionError(res, 401, 'UNAUTHORIZED').details, { reason: 'bad_state' });
  });
});
