// Approving a blocked transfer through its Blink: the transaction the approve POST builds (byte by byte
// against the program's interface, then run by the fake validator), who may ask for it, and which
// request a URL names when several transfers were blocked at one nonce.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { type Address, getAddressEncoder, getBase58Encoder, getProgramDerivedAddress } from '@solana/kit';
import { eq, sql } from 'drizzle-orm';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import { decodeTransactionBase64 } from '../../src/chain/solana-transactions.js';
import { overrides, vaults } from '../../src/storage/schema/index.js';
import {
  assertActionError,
  assertActionHeaders,
  findBlink,
  findOverride,
  OPS_BUDGET_REQUEST,
  useBlinkApps,
} from '../support/blink-actions.js';
import { createOverride, randomAddress } from '../support/factories.js';
import { rpcAnswer } from '../support/json-rpc.js';
import { BLINKS_BASE_URL, type SeededOverride, SOL } from '../support/seeded-overrides.js';

const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const COMPUTE_BUDGET = 'ComputeBudget111111111111111111111111111111';
// Discriminators as the IDL lists them (not recomputed by the code under test).
const DISCRIMINATORS = {
  create_override: [155, 251, 76, 3, 17, 208, 181, 67],
  approve_override: [41, 2, 181, 184, 119, 133, 62, 52],
  execute_approved_override: [252, 245, 149, 133, 190, 208, 219, 207],
};

const { apps, clock, seed, post, postSigned } = useBlinkApps({ seed: OPS_BUDGET_REQUEST });

/** Derives the program's PDAs here, from the seeds the program's IDL declares. */
async function pda(...seeds: (string | Uint8Array)[]): Promise<Address> {
  const [address] = await getProgramDerivedAddress({ programAddress: apps.chain.programId, seeds });
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
  return rpcAnswer(apps.chain.rpcUrl, 'sendTransaction', [wire.toString('base64'), { encoding: 'base64' }]);
}

describe('one override per blocked transfer: addressing', () => {
  /** A second transfer blocked before the owner acted: it announced the same nonce. */
  async function seedSecondRequest(s: SeededOverride) {
    const destination = randomAddress() as Address;
    const blocked = await apps.chain.block(s.vault, {
      destination,
      amount: 3n * SOL,
      reason: 'exceeded_daily_limit',
    });
    assert.equal(blocked.overrideNonce, s.nonce);
    const override = await createOverride(apps.db, {
      vault: s.vaultRow,
      nonce: s.nonce,
      destination,
      amount: 3n * SOL,
      transferSignature: blocked.signature,
      addressSignature: blocked.signature,
      publicBaseUrl: BLINKS_BASE_URL,
    });
    return {
      override,
      destination,
      url: `${s.url}?transfer=${blocked.signature}`,
      signature: blocked.signature,
    };
  }

  test('the nonce alone names the first request; ?transfer= names each later one, on GET and POST', async () => {
    const s = await seed();
    const second = await seedSecondRequest(s);
    const first = (await apps.app.inject({ url: s.url })).json();
    const later = (await apps.app.inject({ url: second.url })).json();
    assert.match(first.description, new RegExp(s.destination));
    assert.match(later.description, new RegExp(second.destination));
    assert.deepEqual(
      later.links.actions.map((a: { href: string }) => a.href),
      [
        `${BLINKS_BASE_URL}${s.url}/approve?transfer=${second.signature}`,
        `${BLINKS_BASE_URL}${s.url}/reject?transfer=${second.signature}`,
      ],
    );
    const approve = await post(`${s.url}/approve?transfer=${second.signature}`, {
      account: s.owner.address,
      type: 'transaction',
    });
    assert.equal(approve.statusCode, 200, approve.body);
    const sent = await signAndSend(s.owner, approve.json().transaction);
    assert.equal(sent.error, undefined, JSON.stringify(sent.error));
    assert.equal(apps.chain.balance(second.destination), 3n * SOL, 'the later request paid its own transfer');
    assert.equal(apps.chain.balance(s.destination), 0n);
    const resource = (
      await apps.app.inject({ url: `/api/overrides/${s.vault}/${s.nonce}?transfer=${second.signature}` })
    ).json();
    assert.equal(resource.id, second.override.id);
    assert.equal(resource.transferSignature, second.signature);
    assert.equal(resource.blinkUrl, `${BLINKS_BASE_URL}${second.url}`);
  });

  test('an unknown or mismatched transfer is 404 OVERRIDE_NOT_FOUND, a malformed one 400', async () => {
    const s = await seed();
    const second = await seedSecondRequest(s);
    const unknown = 'z'.repeat(87);
    assertActionError(
      await apps.app.inject({ url: `${s.url}?transfer=${unknown}` }),
      404,
      'OVERRIDE_NOT_FOUND',
    );
    const otherNonce = `/api/actions/${s.vault}/${s.nonce + 1n}?transfer=${second.signature}`;
    assertActionError(await apps.app.inject({ url: otherNonce }), 404, 'OVERRIDE_NOT_FOUND');
    const malformed = assertActionError(
      await apps.app.inject({ url: `${s.url}?transfer=abc` }),
      400,
      'VALIDATION_ERROR',
    );
    assert.match(String(malformed.message), /^transfer: /);
    const api = await apps.app.inject({ url: `/api/overrides/${s.vault}/${s.nonce}?transfer=${unknown}` });
    assert.equal(api.statusCode, 404);
  });

  test('Action POST bodies are ActionPostRequests: type and data are accepted, other fields ignored', async () => {
    const s = await seed();
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
    const [nonces] = await apps.storage.rows<{ n: number }>(
      sql`select count(*)::int as n from action_nonces`,
    );
    assert.equal(nonces?.n, 0, 'asking for a signature stores nothing');
  });
});

describe('POST /api/actions/:vault/:nonce/approve', () => {
  test('builds create_override, approve_override and execute_approved_override exactly as the program expects', async () => {
    const s = await seed();
    const res = await post(`${s.url}/approve`, { account: s.owner.address });
    assert.equal(res.statusCode, 200, res.body);
    assertActionHeaders(res);
    const body = res.json();
    assert.equal(body.type, 'transaction');
    assert.equal(body.message, 'Override approved. Transaction will execute automatically.');

    const tx = decodeTransactionBase64(body.transaction);
    assert.equal(tx.feePayer, s.owner.address);
    assert.deepEqual(tx.signatures, [{ address: s.owner.address, signature: null }]);
    assert.equal(tx.blockhash, apps.chain.state.latestBlockhash().blockhash);

    const vault = s.vault;
    const pending = await pda('override', addressBytes(vault), u64le(s.nonce));
    const vaultAuthority = await pda('vault_authority', addressBytes(vault));
    const treasury = await pda('treasury');
    assert.equal(vault, await pda('vault', addressBytes(s.owner.address), u64le(s.vaultRow.vaultNonce!)));
    assert.equal(vaultAuthority, s.vaultRow.depositAddress);

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
    const vaultNonce = u64le(s.vaultRow.vaultNonce!);
    // Flags are those of the compiled message: vault is writable there because create/execute write it.
    assert.equal(create?.programAddress, apps.chain.programId);
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
    assert.equal(approve?.programAddress, apps.chain.programId);
    assert.deepEqual(approve?.accounts, [
      { address: vault, ...w },
      { address: s.owner.address, ...signerW },
      { address: pending, ...w },
    ]);
    assert.deepEqual([...approve!.data], [...DISCRIMINATORS.approve_override, ...vaultNonce]);
    assert.equal(execute?.programAddress, apps.chain.programId);
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
    const events = apps.chain
      .ledger()
      .at(-1)!
      .events.map((e) => e.name);
    assert.deepEqual(events, ['OverrideCreated', 'OverrideApproved', 'TransactionExecuted']);
    assert.equal(apps.chain.balance(s.destination), 2n * SOL);
    // The limit covers what the run consumed, with at most 20 % headroom.
    const consumed = apps.chain.state.transactions.at(-1)!.computeUnitsConsumed;
    assert.ok(units >= consumed && units <= consumed * 1.2, `limit ${units} for ${consumed} units`);
  });

  test('leaves out create_override when the pending override is already on-chain', async () => {
    const s = await seed();
    await apps.chain.createOverride(s.vault, {
      destination: s.destination,
      amount: 2n * SOL,
      nonce: s.nonce,
    });
    // Ingesting its OverrideCreated links the request to the on-chain override.
    await apps.db.update(overrides).set({ chainNonce: s.nonce }).where(eq(overrides.id, s.override.id));
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
    assert.equal(apps.chain.balance(s.destination), 2n * SOL);
  });

  test('reads the vault nonce from the VaultConfig account when ingestion has not stored it', async () => {
    const s = await seed();
    await apps.db.update(vaults).set({ vaultNonce: null }).where(eq(vaults.id, s.vaultRow.id));
    const res = await post(`${s.url}/approve`, { account: s.owner.address });
    assert.equal(res.statusCode, 200, res.body);
    const approve = decodeTransactionBase64(res.json().transaction).instructions[3]!;
    assert.deepEqual([...approve.data.subarray(8)], [...u64le(s.vaultRow.vaultNonce!)]);
  });

  test('maps the stored block reason onto create_override and defaults an unknown one', async () => {
    for (const [reason, index] of [
      ['not_whitelisted', 0],
      ['insufficient_funds', 2],
      [null, 1],
    ] as const) {
      const s = await seed({ reason });
      if (reason === null)
        await apps.db.execute(
          sql`update transactions set block_reason = null where override_id = ${s.override.id}`,
        );
      const res = await post(`${s.url}/approve`, { account: s.owner.address });
      const create = decodeTransactionBase64(res.json().transaction).instructions[2]!;
      assert.equal(create.data.at(-1), index, String(reason));
    }
  });

  test('takes the reason of the blocked attempt when the override row has none', async () => {
    const s = await seed({ reason: null });
    await apps.db.execute(
      sql`update transactions set block_reason = 'not_whitelisted' where override_id = ${s.override.id}`,
    );
    const res = await post(`${s.url}/approve`, { account: s.owner.address });
    assert.equal(decodeTransactionBase64(res.json().transaction).instructions[2]!.data.at(-1), 0);
  });

  test('an approve POST without wallet-auth headers writes nothing', async () => {
    const s = await seed();
    const before = await findBlink(apps.db, s.override.id);
    const res = await post(`${s.url}/approve`, { account: s.owner.address });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(await findBlink(apps.db, s.override.id), before);
    assert.deepEqual(await findOverride(apps.db, s.override.id), s.override);
  });

  test('accepts wallet-auth headers that name the account', async () => {
    const s = await seed();
    const res = await postSigned(`${s.url}/approve`, { account: s.owner.address }, s.owner);
    assert.equal(res.statusCode, 200, res.body);
  });

  test('refuses wallet-auth headers that are invalid or name another wallet (401)', async () => {
    const s = await seed();
    const other = createTestWallet();
    const body = assertActionError(
      await postSigned(`${s.url}/approve`, { account: s.owner.address }, other),
      401,
      'UNAUTHORIZED',
    );
    assert.deepEqual(body.details, { reason: 'account_mismatch' });
    const expired = assertActionError(
      await postSigned(`${s.url}/approve`, { account: s.owner.address }, s.owner, {
        timestampMs: clock.nowMs - 3_600_000,
      }),
      401,
      'UNAUTHORIZED',
    );
    assert.deepEqual(expired.details, { reason: 'expired' });
  });

  test('refuses an account that is not the vault authority (403)', async () => {
    const s = await seed();
    const stranger = createTestWallet();
    assertActionError(await post(`${s.url}/approve`, { account: stranger.address }), 403, 'FORBIDDEN');
    assertActionError(
      await postSigned(`${s.url}/approve`, { account: stranger.address }, stranger),
      403,
      'FORBIDDEN',
    );
  });

  test('refuses an override that is no longer pending (409 OVERRIDE_NOT_PENDING)', async () => {
    for (const status of ['approved', 'rejected', 'executed'] as const) {
      const s = await seed({ status });
      const body = assertActionError(
        await post(`${s.url}/approve`, { account: s.owner.address }),
        409,
        'OVERRIDE_NOT_PENDING',
      );
      assert.deepEqual(body.details, { status });
    }
  });

  test('cannot approve an expired override (409 OVERRIDE_EXPIRED)', async () => {
    const s = await seed({ expiresInMs: -1 });
    assertActionError(await post(`${s.url}/approve`, { account: s.owner.address }), 409, 'OVERRIDE_EXPIRED');
    assert.equal((await findBlink(apps.db, s.override.id)).approveCount, 0);
  });

  test('cannot approve when the on-chain override has expired, whatever the stored expiry says', async () => {
    const s = await seed();
    apps.chain.setTime(Math.floor(clock.nowMs / 1000) - 2 * 3600);
    await apps.chain.createOverride(s.vault, {
      destination: s.destination,
      amount: 2n * SOL,
      nonce: s.nonce,
    });
    await apps.db.update(overrides).set({ chainNonce: s.nonce }).where(eq(overrides.id, s.override.id));
    apps.chain.setTime(Math.floor(clock.nowMs / 1000));
    assertActionError(await post(`${s.url}/approve`, { account: s.owner.address }), 409, 'OVERRIDE_EXPIRED');
  });

  test('answers 503 RPC_UNAVAILABLE when the RPC node is down', async () => {
    const s = await seed();
    apps.chain.setOutage(true);
    assertActionError(await post(`${s.url}/approve`, { account: s.owner.address }), 503, 'RPC_UNAVAILABLE');
  });

  test('answers 404 for an unknown vault or nonce', async () => {
    const s = await seed();
    assertActionError(
      await post(`/api/actions/${randomAddress()}/${s.nonce}/approve`, { account: s.owner.address }),
      404,
      'VAULT_NOT_FOUND',
    );
    assertActionError(
      await post(`/api/actions/${s.vault}/77/approve`, { account: s.owner.address }),
      404,
      'OVERRIDE_NOT_FOUND',
    );
  });
});

test('discriminators in this file are sha256("global:<name>")[0..8], as Anchor defines them', () => {
  for (const [name, bytes] of Object.entries(DISCRIMINATORS)) {
    assert.deepEqual([...createHash('sha256').update(`global:${name}`).digest().subarray(0, 8)], bytes);
  }
  assert.equal(getBase58Encoder().encode(SYSTEM_PROGRAM).length, 32);
});
