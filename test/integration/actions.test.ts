import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import {
  type Address,
  getAddressEncoder,
  getBase58Decoder,
  getBase58Encoder,
  getProgramDerivedAddress,
} from '@solana/kit';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import { type FakeValidator, startFakeValidator } from '../../dev/validator/index.js';
import type { Cache } from '../../src/cache/cache.js';
import { vaultTag } from '../../src/cache/tags.js';
import { decodeTransactionBase64 } from '../../src/chain/solana-transactions.js';
import { actionNonces, blinks, overrides, vaults, webhooks } from '../../src/storage/schema/index.js';
import { createTestApp, createTestCache } from '../support/app.js';
import { createTestStorage, type TestStorage } from '../support/database.js';
import { createOverride, createTransaction, createVault, randomAddress } from '../support/factories.js';
import { waitFor } from '../support/wait.js';

const BASE_URL = 'https://blinks.vaultkeeper.test';
const SOL = 1_000_000_000n;
const DEVNET_ID = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';
const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const COMPUTE_BUDGET = 'ComputeBudget111111111111111111111111111111';
// Discriminators as the IDL lists them (not recomputed by the code under test).
const DISCRIMINATORS = {
  create_override: [155, 251, 76, 3, 17, 208, 181, 67],
  approve_override: [41, 2, 181, 184, 119, 133, 62, 52],
  execute_approved_override: [252, 245, 149, 133, 190, 208, 219, 207],
};

let storage: TestStorage;
let fake: FakeValidator;
let cache: Cache;
let app: FastifyInstance;
const clock = { nowMs: Date.now(), now: () => new Date(clock.nowMs) };
const base58 = getBase58Decoder();
const db = () => storage.storage.db;

const env = () => ({ SOLANA_RPC_URL: fake.rpcUrl, PUBLIC_BASE_URL: BASE_URL, RATE_LIMIT_ENABLED: 'false' });

before(async () => {
  [storage, fake] = await Promise.all([createTestStorage(), startFakeValidator()]);
  cache = createTestCache();
  ({ app } = await createTestApp({ storage: storage.storage, cache, clock, env: env() }));
});
after(async () => {
  await app.close();
  await cache.close();
  await fake.close();
  await storage.close();
});
beforeEach(async () => {
  await storage.reset();
  clock.nowMs = Date.now();
  fake.setOutage(false);
});

interface Seeded {
  owner: TestWallet;
  vault: Awaited<ReturnType<typeof createVault>>;
  override: Awaited<ReturnType<typeof createOverride>>;
  destination: Address;
  nonce: bigint;
  url: string;
}

/** A vault on the fake chain (owned by a test wallet) whose agent was blocked, as ingestion stores it. */
async function seedBlockedTransfer(
  options: {
    expiresInMs?: number;
    status?: 'pending' | 'approved' | 'rejected' | 'executed';
    reason?: string | null;
  } = {},
): Promise<Seeded> {
  const owner = createTestWallet();
  const created = await fake.createVault({
    authority: owner.address as Address,
    dailyLimit: SOL,
    name: 'Ops budget',
  });
  await fake.deposit(created.vault, 10n * SOL);
  await fake.airdrop(owner.address as Address, SOL);
  const destination = randomAddress() as Address;
  const blocked = await fake.block(created.vault, {
    destination,
    amount: 2n * SOL,
    reason: 'exceeded_daily_limit',
  });
  const nonce = blocked.overrideNonce!;
  const vault = await createVault(db(), {
    authority: owner.address,
    vaultNonce: created.nonce,
    name: 'Ops budget',
  });
  assert.equal(vault.address, created.vault);
  const override = await createOverride(db(), {
    vault,
    nonce,
    destination,
    amount: 2n * SOL,
    reason: options.reason === undefined ? 'exceeded_daily_limit' : options.reason,
    status: options.status ?? 'pending',
    createdAt: new Date(clock.nowMs - 60_000),
    expiresAt: new Date(clock.nowMs + (options.expiresInMs ?? 42 * 60_000 + 30_000)),
    publicBaseUrl: BASE_URL,
  });
  await createTransaction(db(), { vault, override, status: 'blocked', destination, amount: 2n * SOL });
  return { owner, vault, override, destination, nonce, url: `/api/actions/${vault.address}/${nonce}` };
}

function assertActionHeaders(res: LightMyRequestResponse, label = `${res.statusCode}`): void {
  const h = res.headers;
  assert.equal(h['access-control-allow-origin'], '*', label);
  assert.equal(h['access-control-allow-methods'], 'GET,POST,PUT,OPTIONS', label);
  assert.equal(
    h['access-control-allow-headers'],
    'Content-Type, Authorization, Content-Encoding, Accept-Encoding, X-Accept-Action-Version, X-Accept-Blockchain-Ids, X-Wallet-Address, X-Signature, X-Message',
    label,
  );
  assert.equal(h['access-control-expose-headers'], 'X-Action-Version, X-Blockchain-Ids', label);
  assert.equal(h['x-action-version'], '2.4', label);
  assert.equal(h['x-blockchain-ids'], DEVNET_ID, label);
}

function assertActionError(
  res: LightMyRequestResponse,
  status: number,
  code: string,
): Record<string, unknown> {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json();
  assert.equal(body.code, code);
  assert.equal(typeof body.error, 'string');
  // A wallet shows only `message`: for invalid input it names the first wrong field.
  assert.equal(body.message, body.error);
  const first = (body.details as { issues?: { path: string; message: string }[] }).issues?.[0];
  if (code === 'VALIDATION_ERROR' && first !== undefined) {
    const field = first.path.replace(/^(body|query|params)\./, '');
    assert.equal(body.error, `${field}: ${first.message}`);
  }
  assert.equal(typeof body.details, 'object');
  assertActionHeaders(res, `${status} ${code}`);
  return body;
}

const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url, payload: payload as object, headers });

/** The exact Actions 2.4 sign-message text, written out independently of the service's builder. */
function signMessageText(d: Record<string, string>): string {
  const lines = [
    ...(d.chainId ? [`Chain ID: ${d.chainId}`] : []),
    `Nonce: ${d.nonce}`,
    `Issued At: ${d.issuedAt}`,
  ];
  return `${d.domain} wants you to sign a message with your account:\n${d.address}\n\n${d.statement}\n\n${lines.join('\n')}`;
}

async function findOverride(id: string) {
  const [row] = await db().select().from(overrides).where(eq(overrides.id, id));
  return row!;
}

async function findBlinkOrNull(overrideId: string) {
  const [row] = await db().select().from(blinks).where(eq(blinks.overrideId, overrideId));
  return row ?? null;
}

async function findBlink(overrideId: string) {
  const row = await findBlinkOrNull(overrideId);
  assert.ok(row, 'the override has a Blink record');
  return row;
}

describe('GET /api/actions/:vault/:nonce', () => {
  test('describes the blocked transfer for a person: vault name, SOL and lamports, destination, reason, time left', async () => {
    const s = await seedBlockedTransfer();
    const res = await app.inject({ method: 'GET', url: s.url });
    assert.equal(res.statusCode, 200, res.body);
    assertActionHeaders(res);
    const body = res.json();
    assert.equal(body.type, 'action');
    assert.equal(body.title, 'Approve Transaction Override');
    assert.equal(body.label, 'Approve');
    assert.equal(body.icon, `${BASE_URL}/api/actions/icon.svg`);
    assert.deepEqual(body.links.actions, [
      { type: 'transaction', label: 'Approve', href: `${BASE_URL}${s.url}/approve` },
      { type: 'message', label: 'Reject', href: `${BASE_URL}${s.url}/reject` },
    ]);
    assert.equal(body.disabled, undefined);
    assert.equal(body.error, undefined);
    for (const part of [
      'Vault "Ops budget"',
      '2 SOL (2000000000 lamports)',
      s.destination,
      'daily spending limit',
    ]) {
      assert.ok(body.description.includes(part), `description names ${part}: ${body.description}`);
    }
    assert.match(body.description, /Expires in 42 minutes \(\d{4}-\d\d-\d\dT[\d:.]+Z\)/);
  });

  test('counts each view on the Blink record (written in batches, within a moment)', async () => {
    const s = await seedBlockedTransfer();
    await app.inject({ method: 'GET', url: s.url });
    await app.inject({ method: 'GET', url: s.url });
    const blink = await waitFor(async () => {
      const row = await findBlink(s.override.id);
      return row.viewCount === 2 ? row : null;
    });
    assert.equal(blink.approveCount, 0);
    assert.equal(blink.url, `${BASE_URL}${s.url}`);
    assert.equal(blink.lastUsedAt?.getTime(), clock.nowMs);
  });

  test('creates the Blink record on first use when ingestion has not', async () => {
    const s = await seedBlockedTransfer();
    await db().delete(blinks).where(eq(blinks.overrideId, s.override.id));
    await app.inject({ method: 'GET', url: s.url });
    await waitFor(async () => (await findBlinkOrNull(s.override.id))?.viewCount === 1);
  });

  test('view counts still in memory are saved when the app closes', async () => {
    const closing = await createTestApp({ storage: storage.storage, cache, clock, env: env() });
    const s = await seedBlockedTransfer();
    await closing.app.inject({ method: 'GET', url: s.url });
    await closing.app.close();
    assert.equal((await findBlink(s.override.id)).viewCount, 1);
  });

  test('answers the same shape disabled, with error.message, once expired or decided', async () => {
    const cases = [
      { options: { expiresInMs: -5 * 60_000 }, expect: /expired at .*can no longer be approved/ },
      { options: { status: 'approved' as const }, expect: /already approved/ },
      { options: { status: 'rejected' as const }, expect: /rejected/ },
      { options: { status: 'executed' as const }, expect: /executed/ },
    ];
    for (const { options, expect } of cases) {
      const s = await seedBlockedTransfer(options);
      const res = await app.inject({ method: 'GET', url: s.url });
      assert.equal(res.statusCode, 200);
      assertActionHeaders(res);
      const body = res.json();
      assert.equal(body.type, 'action');
      assert.equal(body.disabled, true);
      assert.match(body.error.message, expect);
      assert.equal(body.links.actions.length, 2);
    }
  });

  test('names an unknown vault or nonce with 404 and the Action error envelope', async () => {
    const s = await seedBlockedTransfer();
    assertActionError(await app.inject({ url: `/api/actions/${randomAddress()}/0` }), 404, 'VAULT_NOT_FOUND');
    const body = assertActionError(
      await app.inject({ url: `/api/actions/${s.vault.address}/999` }),
      404,
      'OVERRIDE_NOT_FOUND',
    );
    assert.deepEqual(body.details, { vault: s.vault.address, nonce: '999' });
  });

  test('refuses a malformed vault address or nonce with 400', async () => {
    assertActionError(await app.inject({ url: '/api/actions/not-an-address/1' }), 400, 'VALIDATION_ERROR');
    const s = await seedBlockedTransfer();
    assertActionError(
      await app.inject({ url: `/api/actions/${s.vault.address}/-1` }),
      400,
      'VALIDATION_ERROR',
    );
    assertActionError(
      await app.inject({ url: `/api/actions/${s.vault.address}/18446744073709551616` }),
      400,
      'VALIDATION_ERROR',
    );
  });
});

describe('Action plumbing', () => {
  test('actions.json maps /api/actions/** onto itself and each approval page onto its Action', async () => {
    const res = await app.inject({ url: '/actions.json' });
    assert.equal(res.statusCode, 200);
    assertActionHeaders(res);
    assert.deepEqual(res.json(), {
      rules: [
        { pathPattern: '/api/actions/**', apiPath: '/api/actions/**' },
        { pathPattern: '/overrides/*/*', apiPath: '/api/actions/*/*' },
      ],
    });
  });

  test('serves its own icon as an SVG image at the URL the metadata names', async () => {
    const s = await seedBlockedTransfer();
    const { icon } = (await app.inject({ url: s.url })).json();
    const res = await app.inject({ url: new URL(icon).pathname });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^image\/svg\+xml/);
    assert.match(res.body, /^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assertActionHeaders(res);
  });

  test('answers OPTIONS on every Action route with the CORS headers', async () => {
    const s = await seedBlockedTransfer();
    const paths = [
      '/actions.json',
      s.url,
      `${s.url}/approve`,
      `${s.url}/reject`,
      `${s.url}/reject/confirm`,
      '/api/actions/icon.svg',
    ];
    for (const url of paths) {
      const res = await app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: 'https://dial.to', 'access-control-request-method': 'POST' },
      });
      assert.equal(res.statusCode, 204, url);
      assertActionHeaders(res, url);
    }
  });

  test('sends the Action headers and the message envelope on errors the framework produces', async () => {
    const s = await seedBlockedTransfer();
    assertActionError(await app.inject({ method: 'GET', url: '/api/actions/a/b/c/d' }), 404, 'NOT_FOUND');
    assertActionError(await app.inject({ method: 'DELETE', url: s.url }), 404, 'NOT_FOUND');
    const missing = assertActionError(await post(`${s.url}/approve`, {}), 400, 'VALIDATION_ERROR');
    assert.equal(missing.message, 'account: is required');
    const wrongType = assertActionError(
      await post(`${s.url}/approve`, { account: s.owner.address, type: 42 }),
      400,
      'VALIDATION_ERROR',
    );
    assert.equal(wrongType.message, 'type: must be one of transaction, message, post, external-link');
    const unknownType = assertActionError(
      await post(`${s.url}/approve`, { account: s.owner.address, type: 'sign' }),
      400,
      'VALIDATION_ERROR',
    );
    assert.equal(unknownType.message, 'type: must be one of transaction, message, post, external-link');
    assert.equal(
      (unknownType.details as { issues: unknown[] }).issues.length,
      1,
      'one issue, not one per value',
    );
    const notJson = await app.inject({
      method: 'POST',
      url: `${s.url}/approve`,
      payload: 'account=x',
      headers: { 'content-type': 'text/plain' },
    });
    assertActionError(notJson, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const broken = await app.inject({
      method: 'POST',
      url: `${s.url}/reject`,
      payload: '{"account":',
      headers: { 'content-type': 'application/json' },
    });
    assertActionError(broken, 400, 'VALIDATION_ERROR');
  });

  test('a rate-limited Action request still answers with the Action headers and message', async () => {
    const limitedCache = createTestCache();
    const limited = await createTestApp({
      storage: storage.storage,
      cache: limitedCache,
      clock,
      env: { ...env(), RATE_LIMIT_ENABLED: 'true' },
    });
    try {
      const s = await seedBlockedTransfer();
      const stranger = createTestWallet();
      let res: LightMyRequestResponse | undefined;
      for (let i = 0; i < 25 && res?.statusCode !== 429; i++) {
        res = await limited.app.inject({
          method: 'POST',
          url: `${s.url}/approve`,
          payload: { account: stranger.address },
        });
      }
      assertActionError(res!, 429, 'RATE_LIMIT_EXCEEDED');
    } finally {
      await limited.app.close();
      await limitedCache.close();
    }
  });

  test('POST responses are never cached', async () => {
    const s = await seedBlockedTransfer();
    const res = await post(`${s.url}/reject`, { account: s.owner.address });
    assert.equal(res.headers['cache-control'], 'no-store');
  });
});

/** Derives the program's PDAs here, from the seeds the program's IDL declares. */
async function pda(...seeds: (string | Uint8Array)[]): Promise<Address> {
  const [address] = await getProgramDerivedAddress({ programAddress: fake.programId, seeds });
  return address;
}
const u64le = (value: bigint) => {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64LE(value);
  return new Uint8Array(bytes);
};
const addressBytes = (a: string) => new Uint8Array(getAddressEncoder().encode(a as Address));

/** Signs the unsigned transaction as the wallet would and sends it to the fake validator. */
async function signAndSend(owner: TestWallet, transaction: string): Promise<{ error?: { message: string } }> {
  const decoded = decodeTransactionBase64(transaction);
  const wire = Buffer.from(transaction, 'base64');
  assert.equal(wire[0], 1, 'one signature slot');
  wire.set(owner.sign(decoded.messageBytes), 1);
  const res = await fetch(fake.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'sendTransaction',
      params: [wire.toString('base64'), { encoding: 'base64' }],
    }),
  });
  return (await res.json()) as { error?: { message: string } };
}

describe('one approval request per blocked transfer: addressing', () => {
  /** A second transfer blocked before the owner acted: it announced the same nonce. */
  async function seedSecondRequest(s: Seeded) {
    const destination = randomAddress() as Address;
    const blocked = await fake.block(s.vault.address as Address, {
      destination,
      amount: 3n * SOL,
      reason: 'exceeded_daily_limit',
    });
    assert.equal(blocked.overrideNonce, s.nonce);
    const override = await createOverride(db(), {
      vault: s.vault,
      nonce: s.nonce,
      destination,
      amount: 3n * SOL,
      transferSignature: blocked.signature,
      addressSignature: blocked.signature,
      publicBaseUrl: BASE_URL,
    });
    return {
      override,
      destination,
      url: `${s.url}?transfer=${blocked.signature}`,
      signature: blocked.signature,
    };
  }

  test('the nonce alone names the first request; ?transfer= names each later one, on GET and POST', async () => {
    const s = await seedBlockedTransfer();
    const second = await seedSecondRequest(s);
    const first = (await app.inject({ url: s.url })).json();
    const later = (await app.inject({ url: second.url })).json();
    assert.match(first.description, new RegExp(s.destination));
    assert.match(later.description, new RegExp(second.destination));
    assert.deepEqual(
      later.links.actions.map((a: { href: string }) => a.href),
      [
        `${BASE_URL}${s.url}/approve?transfer=${second.signature}`,
        `${BASE_URL}${s.url}/reject?transfer=${second.signature}`,
      ],
    );
    const approve = await post(`${s.url}/approve?transfer=${second.signature}`, {
      account: s.owner.address,
      type: 'transaction',
    });
    assert.equal(approve.statusCode, 200, approve.body);
    const sent = await signAndSend(s.owner, approve.json().transaction);
    assert.equal(sent.error, undefined, JSON.stringify(sent.error));
    assert.equal(fake.balance(second.destination), 3n * SOL, 'the later request paid its own transfer');
    assert.equal(fake.balance(s.destination), 0n);
    const resource = (
      await app.inject({ url: `/api/overrides/${s.vault.address}/${s.nonce}?transfer=${second.signature}` })
    ).json();
    assert.equal(resource.id, second.override.id);
    assert.equal(resource.transferSignature, second.signature);
    assert.equal(resource.blinkUrl, `${BASE_URL}${second.url}`);
  });

  test('an unknown or mismatched transfer is 404 OVERRIDE_NOT_FOUND, a malformed one 400', async () => {
    const s = await seedBlockedTransfer();
    const second = await seedSecondRequest(s);
    const unknown = 'z'.repeat(87);
    assertActionError(await app.inject({ url: `${s.url}?transfer=${unknown}` }), 404, 'OVERRIDE_NOT_FOUND');
    const otherNonce = `/api/actions/${s.vault.address}/${s.nonce + 1n}?transfer=${second.signature}`;
    assertActionError(await app.inject({ url: otherNonce }), 404, 'OVERRIDE_NOT_FOUND');
    const malformed = assertActionError(
      await app.inject({ url: `${s.url}?transfer=abc` }),
      400,
      'VALIDATION_ERROR',
    );
    assert.match(String(malformed.message), /^transfer: /);
    const api = await app.inject({ url: `/api/overrides/${s.vault.address}/${s.nonce}?transfer=${unknown}` });
    assert.equal(api.statusCode, 404);
  });

  test('Action POST bodies are ActionPostRequests: type and data are accepted, other fields ignored', async () => {
    const s = await seedBlockedTransfer();
    for (const body of [
      { account: s.owner.address, type: 'transaction' },
      { account: s.owner.address, type: 'transaction', data: { note: 'x', tags: ['a', 'b'] } },
      { account: s.owner.address, clientVersion: '9.9', type: 'transaction' },
    ]) {
      const res = await post(`${s.url}/approve`, body);
      assert.equal(res.statusCode, 200, `${JSON.stringify(body)}: ${res.body}`);
    }
    const reject = await post(`${s.url}/reject`, { account: s.owner.address, type: 'message' });
    assert.equal(reject.statusCode, 200, reject.body);
    assert.equal(reject.json().type, 'message');
    const [nonces] = await storage.storage.rows<{ n: number }>(
      sql`select count(*)::int as n from action_nonces`,
    );
    assert.equal(nonces?.n, 0, 'asking for a signature stores nothing');
  });
});

describe('POST /api/actions/:vault/:nonce/approve', () => {
  test('builds create_override, approve_override and execute_approved_override exactly as the program expects', async () => {
    const s = await seedBlockedTransfer();
    const res = await post(`${s.url}/approve`, { account: s.owner.address });
    assert.equal(res.statusCode, 200, res.body);
    assertActionHeaders(res);
    const body = res.json();
    assert.equal(body.type, 'transaction');
    assert.equal(body.message, 'Override approved. Transaction will execute automatically.');

    const tx = decodeTransactionBase64(body.transaction);
    assert.equal(tx.feePayer, s.owner.address);
    assert.deepEqual(tx.signatures, [{ address: s.owner.address, signature: null }]);
    assert.equal(tx.blockhash, fake.state.latestBlockhash().blockhash);

    const vault = s.vault.address;
    const pending = await pda('override', addressBytes(vault), u64le(s.nonce));
    const vaultAuthority = await pda('vault_authority', addressBytes(vault));
    const treasury = await pda('treasury');
    assert.equal(vault, await pda('vault', addressBytes(s.owner.address), u64le(s.vault.vaultNonce!)));
    assert.equal(vaultAuthority, s.vault.depositAddress);

    const [limit, price, create, approve, execute, ...rest] = tx.instructions;
    assert.equal(rest.length, 0);
    assert.equal(limit?.programAddress, COMPUTE_BUDGET);
    assert.equal(limit?.data[0], 2, 'SetComputeUnitLimit first');
    assert.equal(price?.programAddress, COMPUTE_BUDGET);
    assert.equal(price?.data[0], 3, 'SetComputeUnitPrice second');
    const units = Buffer.from(limit!.data).readUInt32LE(1);

    const signerW = { isSigner: true, isWritable: true };
    const w = { isSigner: false, isWritable: true };
    const r = { isSigner: false, isWritable: false };
    const vaultNonce = u64le(s.vault.vaultNonce!);
    // Flags are those of the compiled message: vault is writable there because create/execute write it.
    assert.equal(create?.programAddress, fake.programId);
    assert.deepEqual(create?.accounts, [
      { address: vault, ...w },
      { address: s.owner.address, ...signerW },
      { address: pending, ...w },
      { address: SYSTEM_PROGRAM, ...r },
    ]);
    assert.deepEqual(
      [...create!.data],
      [
        ...DISCRIMINATORS.create_override,
        ...vaultNonce,
        ...addressBytes(s.destination),
        ...u64le(2n * SOL),
        1,
      ],
      'vault_nonce, destination, amount, reason = ExceededDailyLimit (1)',
    );
    assert.equal(approve?.programAddress, fake.programId);
    assert.deepEqual(approve?.accounts, [
      { address: vault, ...w },
      { address: s.owner.address, ...signerW },
      { address: pending, ...w },
    ]);
    assert.deepEqual([...approve!.data], [...DISCRIMINATORS.approve_override, ...vaultNonce]);
    assert.equal(execute?.programAddress, fake.programId);
    assert.deepEqual(execute?.accounts, [
      { address: vault, ...w },
      { address: pending, ...w },
      { address: s.owner.address, ...signerW },
      { address: vaultAuthority, ...w },
      { address: s.destination, ...w },
      { address: treasury, ...w },
      { address: SYSTEM_PROGRAM, ...r },
    ]);
    assert.deepEqual([...execute!.data], [...DISCRIMINATORS.execute_approved_override, ...vaultNonce]);

    // Signed by the owner, the program runs it: the transfer reaches the destination.
    const sent = await signAndSend(s.owner, body.transaction);
    assert.equal(sent.error, undefined, JSON.stringify(sent.error));
    const events = fake
      .ledger()
      .at(-1)!
      .events.map((e) => e.name);
    assert.deepEqual(events, ['OverrideCreated', 'OverrideApproved', 'TransactionExecuted']);
    assert.equal(fake.balance(s.destination), 2n * SOL);
    // The limit covers what the run consumed, with at most 20 % headroom.
    const consumed = fake.state.transactions.at(-1)!.computeUnitsConsumed;
    assert.ok(units >= consumed && units <= consumed * 1.2, `limit ${units} for ${consumed} units`);
  });

  test('leaves out create_override when the pending override is already on-chain', async () => {
    const s = await seedBlockedTransfer();
    await fake.createOverride(s.vault.address as Address, {
      destination: s.destination,
      amount: 2n * SOL,
      nonce: s.nonce,
    });
    // Ingesting its OverrideCreated links the request to the on-chain override.
    await db().update(overrides).set({ chainNonce: s.nonce }).where(eq(overrides.id, s.override.id));
    const res = await post(`${s.url}/approve`, { account: s.owner.address });
    assert.equal(res.statusCode, 200, res.body);
    const tx = decodeTransactionBase64(res.json().transaction);
    const discriminators = tx.instructions.slice(2).map((ix) => [...ix.data.subarray(0, 8)]);
    assert.deepEqual(discriminators, [
      DISCRIMINATORS.approve_override,
      DISCRIMINATORS.execute_approved_override,
    ]);
    assert.equal(tx.instructions[0]?.programAddress, COMPUTE_BUDGET);
    const sent = await signAndSend(s.owner, res.json().transaction);
    assert.equal(sent.error, undefined, JSON.stringify(sent.error));
    assert.equal(fake.balance(s.destination), 2n * SOL);
  });

  test('reads the vault nonce from the VaultConfig account when ingestion has not stored it', async () => {
    const s = await seedBlockedTransfer();
    await db().update(vaults).set({ vaultNonce: null }).where(eq(vaults.id, s.vault.id));
    const res = await post(`${s.url}/approve`, { account: s.owner.address });
    assert.equal(res.statusCode, 200, res.body);
    const approve = decodeTransactionBase64(res.json().transaction).instructions[3]!;
    assert.deepEqual([...approve.data.subarray(8)], [...u64le(s.vault.vaultNonce!)]);
  });

  test('maps the stored block reason onto create_override and defaults an unknown one', async () => {
    for (const [reason, index] of [
      ['not_whitelisted', 0],
      ['insufficient_funds', 2],
      [null, 1],
    ] as const) {
      const s = await seedBlockedTransfer({ reason });
      if (reason === null)
        await db().execute(
          sql`update transactions set block_reason = null where override_id = ${s.override.id}`,
        );
      const res = await post(`${s.url}/approve`, { account: s.owner.address });
      const create = decodeTransactionBase64(res.json().transaction).instructions[2]!;
      assert.equal(create.data.at(-1), index, String(reason));
    }
  });

  test('takes the reason of the blocked attempt when the override row has none', async () => {
    const s = await seedBlockedTransfer({ reason: null });
    await db().execute(
      sql`update transactions set block_reason = 'not_whitelisted' where override_id = ${s.override.id}`,
    );
    const res = await post(`${s.url}/approve`, { account: s.owner.address });
    assert.equal(decodeTransactionBase64(res.json().transaction).instructions[2]!.data.at(-1), 0);
  });

  test('an approve POST without wallet-auth headers writes nothing', async () => {
    const s = await seedBlockedTransfer();
    const before = await findBlink(s.override.id);
    const res = await post(`${s.url}/approve`, { account: s.owner.address });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(await findBlink(s.override.id), before);
    assert.deepEqual(await findOverride(s.override.id), s.override);
  });

  test('accepts wallet-auth headers that name the account', async () => {
    const s = await seedBlockedTransfer();
    const res = await post(`${s.url}/approve`, { account: s.owner.address }, s.owner.authHeaders());
    assert.equal(res.statusCode, 200, res.body);
  });

  test('refuses wallet-auth headers that are invalid or name another wallet (401)', async () => {
    const s = await seedBlockedTransfer();
    const other = createTestWallet();
    const body = assertActionError(
      await post(`${s.url}/approve`, { account: s.owner.address }, other.authHeaders()),
      401,
      'UNAUTHORIZED',
    );
    assert.deepEqual(body.details, { reason: 'account_mismatch' });
    const stale = s.owner.authHeaders({ timestampMs: clock.nowMs - 3_600_000 });
    const expired = assertActionError(
      await post(`${s.url}/approve`, { account: s.owner.address }, stale),
      401,
      'UNAUTHORIZED',
    );
    assert.deepEqual(expired.details, { reason: 'expired' });
  });

  test('refuses an account that is not the vault authority (403)', async () => {
    const s = await seedBlockedTransfer();
    const stranger = createTestWallet();
    assertActionError(await post(`${s.url}/approve`, { account: stranger.address }), 403, 'FORBIDDEN');
    assertActionError(
      await post(`${s.url}/approve`, { account: stranger.address }, stranger.authHeaders()),
      403,
      'FORBIDDEN',
    );
  });

  test('refuses an override that is no longer pending (409 OVERRIDE_NOT_PENDING)', async () => {
    for (const status of ['approved', 'rejected', 'executed'] as const) {
      const s = await seedBlockedTransfer({ status });
      const body = assertActionError(
        await post(`${s.url}/approve`, { account: s.owner.address }),
        409,
        'OVERRIDE_NOT_PENDING',
      );
      assert.deepEqual(body.details, { status });
    }
  });

  test('cannot approve an expired override (409 OVERRIDE_EXPIRED)', async () => {
    const s = await seedBlockedTransfer({ expiresInMs: -1 });
    assertActionError(await post(`${s.url}/approve`, { account: s.owner.address }), 409, 'OVERRIDE_EXPIRED');
    assert.equal((await findBlink(s.override.id)).approveCount, 0);
  });

  test('cannot approve when the on-chain override has expired, whatever the stored expiry says', async () => {
    const s = await seedBlockedTransfer();
    fake.setTime(Math.floor(clock.nowMs / 1000) - 2 * 3600);
    await fake.createOverride(s.vault.address as Address, {
      destination: s.destination,
      amount: 2n * SOL,
      nonce: s.nonce,
    });
    await db().update(overrides).set({ chainNonce: s.nonce }).where(eq(overrides.id, s.override.id));
    fake.setTime(Math.floor(clock.nowMs / 1000));
    assertActionError(await post(`${s.url}/approve`, { account: s.owner.address }), 409, 'OVERRIDE_EXPIRED');
  });

  test('answers 503 RPC_UNAVAILABLE when the RPC node is down', async () => {
    const s = await seedBlockedTransfer();
    fake.setOutage(true);
    assertActionError(await post(`${s.url}/approve`, { account: s.owner.address }), 503, 'RPC_UNAVAILABLE');
  });

  test('answers 404 for an unknown vault or nonce', async () => {
    const s = await seedBlockedTransfer();
    assertActionError(
      await post(`/api/actions/${randomAddress()}/${s.nonce}/approve`, { account: s.owner.address }),
      404,
      'VAULT_NOT_FOUND',
    );
    assertActionError(
      await post(`/api/actions/${s.vault.address}/77/approve`, { account: s.owner.address }),
      404,
      'OVERRIDE_NOT_FOUND',
    );
  });
});

async function subscribeWebhook(s: Seeded): Promise<void> {
  await db()
    .insert(webhooks)
    .values({
      owner: s.owner.address,
      vaultId: s.vault.id,
      url: 'https://hooks.example.com/vaultkeeper',
      events: ['override.rejected'],
      secret: 'whsec_dGVzdA==',
    });
}

/** Everything a rejection must leave behind, whichever path made it. */
async function assertRejected(s: Seeded): Promise<void> {
  const row = await findOverride(s.override.id);
  assert.equal(row.status, 'rejected');
  assert.equal(row.rejectedAt?.getTime(), clock.nowMs);
  const deliveries = await storage.storage.rows<{ event: string; payload: string }>(
    sql`select event, payload from webhook_deliveries`,
  );
  assert.equal(deliveries.length, 1);
  assert.equal(deliveries[0]!.event, 'override.rejected');
  const { data } = JSON.parse(deliveries[0]!.payload);
  assert.deepEqual(data, {
    id: s.override.id,
    vaultId: s.vault.id,
    vault: s.vault.address,
    nonce: String(s.nonce),
    transferSignature: null,
    chainNonce: null,
    destination: s.destination,
    amount: String(2n * SOL),
    blockReason: s.override.reason,
    status: 'rejected',
    expiresAt: s.override.expiresAt.toISOString(),
    createdAt: s.override.createdAt.toISOString(),
    expired: false,
    blinkUrl: `${BASE_URL}${s.url}`,
    approvalUrl: `${BASE_URL}/overrides/${s.vault.address}/${s.nonce}`,
  });
  const dirty = await storage.storage.rows<{ day: string }>(
    sql`select day::text as day from daily_metrics_dirty where vault_key = ${s.vault.id}`,
  );
  assert.ok(dirty.some((d) => d.day === new Date(clock.nowMs).toISOString().slice(0, 10)));
  assert.equal((await findBlink(s.override.id)).rejectCount, 1);
  assert.equal(await cache.get(`test:${s.vault.id}`), undefined, 'cached reads of the vault were evicted');
}

async function cacheVaultRead(s: Seeded): Promise<void> {
  await cache.set(`test:${s.vault.id}`, { stale: true }, 300, [vaultTag(s.vault.address)]);
  assert.deepEqual(await cache.get(`test:${s.vault.id}`), { stale: true });
}

describe('POST /api/actions/:vault/:nonce/reject with wallet-auth headers', () => {
  test('rejects at once, fires override.rejected, marks metrics dirty and evicts cached reads', async () => {
    const s = await seedBlockedTransfer();
    await subscribeWebhook(s);
    await cacheVaultRead(s);
    const res = await post(`${s.url}/reject`, { account: s.owner.address }, s.owner.authHeaders());
    assert.equal(res.statusCode, 200, res.body);
    assertActionHeaders(res);
    assert.deepEqual(res.json(), { type: 'post', message: 'Override rejected.' });
    await assertRejected(s);
    const meta = (await app.inject({ url: s.url })).json();
    assert.equal(meta.disabled, true);
  });

  test('can reject an override that expired (it can only no longer be approved)', async () => {
    const s = await seedBlockedTransfer({ expiresInMs: -60_000 });
    const res = await post(`${s.url}/reject`, { account: s.owner.address }, s.owner.authHeaders());
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((await findOverride(s.override.id)).status, 'rejected');
  });

  test('refuses headers naming another wallet (401), a non-authority (403) and a decided override (409)', async () => {
    const s = await seedBlockedTransfer();
    const other = createTestWallet();
    assertActionError(
      await post(`${s.url}/reject`, { account: s.owner.address }, other.authHeaders()),
      401,
      'UNAUTHORIZED',
    );
    assertActionError(
      await post(`${s.url}/reject`, { account: other.address }, other.authHeaders()),
      403,
      'FORBIDDEN',
    );
    assertActionError(await post(`${s.url}/reject`, { account: other.address }), 403, 'FORBIDDEN');
    const decided = await seedBlockedTransfer({ status: 'approved' });
    assertActionError(
      await post(`${decided.url}/reject`, { account: decided.owner.address }, decided.owner.authHeaders()),
      409,
      'OVERRIDE_NOT_PENDING',
    );
    assertActionError(
      await post(`${decided.url}/reject`, { account: decided.owner.address }),
      409,
      'OVERRIDE_NOT_PENDING',
    );
    assert.equal((await findOverride(s.override.id)).status, 'pending');
    assertActionError(
      await post(`/api/actions/${s.vault.address}/404/reject`, { account: s.owner.address }),
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

async function startSignMessage(s: Seeded, target: FastifyInstance = app): Promise<MessageStart> {
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
    const s = await seedBlockedTransfer();
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
    for (const part of [
      s.vault.address,
      s.destination,
      '2 SOL (2000000000 lamports)',
      `override ${s.nonce}`,
    ]) {
      assert.ok(data.statement!.includes(part), `statement names ${part}`);
    }
    assert.equal(
      (await findOverride(s.override.id)).status,
      'pending',
      'nothing is rejected before the signature',
    );

    const signature = sign(s.owner, signMessageText(data));
    const res = await post(start.next, { account: s.owner.address, signature, data, state: start.state });
    assert.equal(res.statusCode, 200, res.body);
    assertActionHeaders(res);
    const completed = res.json();
    assert.equal(completed.type, 'completed');
    assert.equal(completed.icon, `${BASE_URL}/api/actions/icon.svg`);
    assert.equal(completed.title, 'Override Rejected');
    assert.equal(typeof completed.label, 'string');
    assert.ok(completed.description.includes(s.destination));
    await assertRejected(s);
    const [nonceRow] = await db().select().from(actionNonces).where(eq(actionNonces.nonce, data.nonce!));
    assert.equal(nonceRow?.usedAt?.getTime(), clock.nowMs);
  });

  test('accepts the signed text itself as data', async () => {
    const s = await seedBlockedTransfer();
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
    const s = await seedBlockedTransfer();
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
    const s = await seedBlockedTransfer();
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
    const deliveries = await storage.storage.rows(sql`select id from webhook_deliveries`);
    assert.equal(deliveries.length, 1);
  });

  test('refuses a signature by another key (401 bad_signature) and a changed message (401 wrong_message)', async () => {
    const s = await seedBlockedTransfer();
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
    assert.equal((await findOverride(s.override.id)).status, 'pending');
  });

  test('refuses a state that is forged, belongs to another override or names another account (401 bad_state)', async () => {
    // With a shared ACTIONS_STATE_SECRET the state's MAC decides (without one, the signature does: below).
    const secured = await createTestApp({
      storage: storage.storage,
      cache,
      clock,
      env: { ...env(), ACTIONS_STATE_SECRET: 'a-shared-secret-of-at-least-32-characters' },
    });
    const s = await seedBlockedTransfer();
    const other = await seedBlockedTransfer();
    const mine = await startSignMessage(s, secured.app);
    const theirs = await startSignMessage(other, secured.app);
    const payload = (state: string, account = s.owner.address) => ({
      account,
      signature: sign(s.owner, signMessageText(mine.data)),
      data: mine.data,
      state,
    });
    const forged = [payload('v2.abc.def'), payload(theirs.state), payload(mine.state, other.owner.address)];
    try {
      for (const body of forged) {
        const res = await secured.app.inject({ method: 'POST', url: mine.next, payload: body });
        assert.deepEqual(assertActionError(res, 401, 'UNAUTHORIZED').details, { reason: 'bad_state' });
      }
    } finally {
      await secured.app.close();
    }
    // Without a shared secret another instance may have issued a state: the signed text must match.
    for (const body of forged) assertActionError(await post(mine.next, body), 401, 'UNAUTHORIZED');
    assert.equal((await findOverride(s.override.id)).status, 'pending');
  });

  test('a sign-message request expires after ten minutes (401 expired)', async () => {
    const s = await seedBlockedTransfer();
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
    const s = await seedBlockedTransfer();
    const { data, state, next } = await startSignMessage(s);
    await db().update(overrides).set({ status: 'approved' }).where(eq(overrides.id, s.override.id));
    const res = await post(next, {
      account: s.owner.address,
      signature: sign(s.owner, signMessageText(data)),
      data,
      state,
    });
    assertActionError(res, 409, 'OVERRIDE_NOT_PENDING');
    assertActionError(
      await post(`/api/actions/${s.vault.address}/5555/reject/confirm`, {
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
    for (const secret of [undefined, 'a-shared-secret-of-at-least-32-characters']) {
      const extra: Record<string, string> = secret === undefined ? {} : { ACTIONS_STATE_SECRET: secret };
      const [a, b] = await Promise.all([
        createTestApp({ storage: storage.storage, cache, clock, env: { ...env(), ...extra } }),
        createTestApp({ storage: storage.storage, cache, clock, env: { ...env(), ...extra } }),
      ]);
      try {
        const s = await seedBlockedTransfer();
        const { data, state, next } = await startSignMessage(s, a.app);
        const payload = {
          account: s.owner.address,
          signature: sign(s.owner, signMessageText(data)),
          data,
          state,
        };
        const res = await b.app.inject({ method: 'POST', url: next, payload });
        assert.equal(res.statusCode, 200, `${secret ?? 'no secret'}: ${res.body}`);
      } finally {
        await Promise.all([a.app.close(), b.app.close()]);
      }
    }
  });

  test('with ACTIONS_STATE_SECRET a state whose MAC does not verify is refused', async () => {
    const secured = await createTestApp({
      storage: storage.storage,
      cache,
      clock,
      env: { ...env(), ACTIONS_STATE_SECRET: 'a-shared-secret-of-at-least-32-characters' },
    });
    try {
      const s = await seedBlockedTransfer();
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
    } finally {
      await secured.app.close();
    }
  });
});

test('discriminators in this file are sha256("global:<name>")[0..8], as Anchor defines them', () => {
  for (const [name, bytes] of Object.entries(DISCRIMINATORS)) {
    assert.deepEqual([...createHash('sha256').update(`global:${name}`).digest().subarray(0, 8)], bytes);
  }
  assert.equal(getBase58Encoder().encode(SYSTEM_PROGRAM).length, 32);
});
