// POST /api/vaults and PATCH /api/vaults/:address: every returned transaction is decoded byte by byte
// against the program's interface (IDL), then signed and sent to the fake validator, which runs it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Address, address, getAddressEncoder, getProgramDerivedAddress } from '@solana/kit';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import { type DecodedTransaction, decodeTransactionBase64 } from '../../src/chain/solana-transactions.js';
import { vaults } from '../../src/storage/schema/index.js';
import { createVault, randomAddress } from '../support/factories.js';
import { rpcCall } from '../support/json-rpc.js';
import { useTestApps } from '../support/test-apps.js';
import { waitFor, waitForSignatures } from '../support/wait.js';

/** Straight from vault-program.idl.json: discriminators and account flags. */
const DISCRIMINATOR = {
  initialize_vault: [48, 191, 163, 44, 71, 129, 63, 164],
  update_daily_limit: [100, 231, 226, 195, 132, 221, 134, 71],
  update_agent_signer: [46, 230, 68, 81, 4, 213, 33, 21],
  add_to_whitelist: [157, 211, 52, 54, 144, 81, 5, 55],
  remove_from_whitelist: [7, 144, 216, 239, 243, 236, 193, 235],
  pause_vault: [250, 6, 228, 57, 6, 104, 19, 210],
  resume_vault: [68, 98, 85, 13, 31, 76, 166, 50],
} as const;
const PROGRAM_ID = 'ET9WDoFE2bf4bSmciLL7q7sKdeSYeNkWbNMHbAMBu2ZJ';
const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const COMPUTE_BUDGET = 'ComputeBudget111111111111111111111111111111';
const SOL = 1_000_000_000n;

const apps = useTestApps({ chain: true, env: { RATE_LIMIT_ENABLED: 'false' } });
const start = () => apps.start();

const u64 = (value: bigint) => {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64LE(value);
  return bytes;
};
const pubkey = (text: string) => Buffer.from(getAddressEncoder().encode(address(text)));
const data = (name: keyof typeof DISCRIMINATOR, ...args: Buffer[]) =>
  Buffer.concat([Buffer.from(DISCRIMINATOR[name]), ...args]);
const account = (addr: string, isSigner: boolean, isWritable: boolean) => ({
  address: addr,
  isSigner,
  isWritable,
});

const rpc = <T>(method: string, params: unknown[]) => rpcCall<T>(apps.chain.rpcUrl, method, params);

/** Signs the one signature slot the way a wallet does and sends it (with preflight). */
async function signAndSend(transaction: string, wallet: TestWallet): Promise<string> {
  const wire = Buffer.from(transaction, 'base64');
  const decoded = decodeTransactionBase64(transaction);
  assert.equal(wire[0], 1, 'one signature slot');
  wire.set(wallet.sign(decoded.messageBytes), 1);
  return rpc<string>('sendTransaction', [wire.toString('base64'), { encoding: 'base64' }]);
}

function assertUnsigned(tx: DecodedTransaction, feePayer: string, blockhash: string) {
  assert.equal(tx.feePayer, feePayer);
  assert.equal(tx.blockhash, blockhash);
  assert.deepEqual(tx.signatures, [{ address: feePayer, signature: null }]);
}

async function latestBlockhash(): Promise<string> {
  return (await rpc<{ value: { blockhash: string } }>('getLatestBlockhash', [{ commitment: 'confirmed' }]))
    .value.blockhash;
}

async function post(app: FastifyInstance, wallet: TestWallet, payload: unknown) {
  return app.inject({
    method: 'POST',
    url: '/api/vaults',
    headers: wallet.authHeaders({ request: { method: 'POST', path: '/api/vaults', body: payload } }),
    payload: payload as object,
  });
}

async function patch(app: FastifyInstance, wallet: TestWallet, id: string, payload: unknown) {
  return app.inject({
    method: 'PATCH',
    url: `/api/vaults/${id}`,
    headers: wallet.authHeaders({ request: { method: 'PATCH', path: `/api/vaults/${id}`, body: payload } }),
    payload: payload as object,
  });
}

/** A built transaction's instructions after its compute budget (SetComputeUnitLimit, SetComputeUnitPrice). */
function programInstructions(tx: ReturnType<typeof decodeTransactionBase64>) {
  const [limit, price, ...rest] = tx.instructions;
  assert.equal(limit?.programAddress, COMPUTE_BUDGET);
  assert.equal(limit?.data[0], 2, 'SetComputeUnitLimit first');
  assert.equal(price?.programAddress, COMPUTE_BUDGET);
  assert.equal(price?.data[0], 3, 'SetComputeUnitPrice second');
  return rest;
}

function issuePaths(response: { statusCode: number; json(): unknown }): string[] {
  assert.equal(response.statusCode, 400, JSON.stringify(response.json()));
  const body = response.json() as { code: string; details: { issues: { path: string }[] } };
  assert.equal(body.code, 'VALIDATION_ERROR');
  return body.details.issues.map((issue) => issue.path);
}

/** A vault on the fake chain and its row as ingestion would have stored it. */
async function seedVault(owner: TestWallet, whitelist: Address[] = []) {
  await apps.chain.airdrop(owner.address as Address, 10n * SOL);
  const created = await apps.chain.createVault({
    authority: owner.address as Address,
    dailyLimit: 5n * SOL,
    name: 'Ops',
  });
  for (const entry of whitelist) await apps.chain.addToWhitelist(created.vault, entry);
  const row = await createVault(apps.db, {
    authority: owner.address,
    address: created.vault,
    vaultNonce: created.nonce,
    agentSigner: created.agentSigner,
    dailyLimit: 5n * SOL,
    name: 'Ops',
    whitelist,
    whitelistCount: whitelist.length,
  });
  return { row, nonce: created.nonce, chain: () => apps.chain.getVault(created.vault)!.config };
}

describe('POST /api/vaults', () => {
  test('201: the unsigned initialize_vault transaction, exactly as the IDL lays it out, lands on chain', async () => {
    const { app } = await start();
    const owner = createTestWallet();
    const agent = randomAddress();
    await apps.chain.airdrop(owner.address as Address, 10n * SOL);
    const blockhash = await latestBlockhash();
    const response = await post(app, owner, {
      name: 'Payroll',
      agentSigner: agent,
      dailyLimit: 2_500_000_000,
    });
    assert.equal(response.statusCode, 201, response.body);
    assert.equal(response.headers['cache-control'], 'no-store');
    const { vault, transaction, message } = response.json();
    const nonce = BigInt(vault.nonce);
    const [expectedVault] = await getProgramDerivedAddress({
      programAddress: address(PROGRAM_ID),
      seeds: ['vault', pubkey(owner.address), u64(nonce)],
    });
    const [expectedDeposit] = await getProgramDerivedAddress({
      programAddress: address(PROGRAM_ID),
      seeds: ['vault_authority', pubkey(expectedVault)],
    });
    assert.deepEqual(vault, {
      address: expectedVault,
      depositAddress: expectedDeposit,
      authority: owner.address,
      agentSigner: agent,
      dailyLimit: '2500000000',
      name: 'Payroll',
      nonce: vault.nonce,
    });
    assert.match(message, /sign/i);

    const tx = decodeTransactionBase64(transaction);
    assertUnsigned(tx, owner.address, blockhash);
    const instructions = programInstructions(tx);
    assert.equal(instructions.length, 1);
    const [ix] = instructions;
    assert.equal(ix!.programAddress, PROGRAM_ID);
    assert.deepEqual(ix!.accounts, [
      account(expectedVault, false, true),
      account(expectedDeposit, false, false),
      account(owner.address, true, true),
      account(SYSTEM_PROGRAM, false, false),
    ]);
    const name = Buffer.from('Payroll');
    const length = Buffer.alloc(4);
    length.writeUInt32LE(name.length);
    assert.deepEqual(
      Buffer.from(ix!.data),
      data('initialize_vault', u64(nonce), pubkey(agent), u64(2_500_000_000n), length, name),
    );

    await signAndSend(transaction, owner);
    const onChain = apps.chain.getVault(expectedVault as Address);
    assert.ok(onChain, 'the vault exists on chain');
    assert.equal(onChain.config.name, 'Payroll');
    assert.equal(onChain.config.authority, owner.address);
    assert.equal(onChain.config.agentSigner, agent);
    assert.equal(onChain.config.dailyLimit, 2_500_000_000n);
    assert.equal(onChain.config.vaultNonce, nonce);
  });

  test('accepts the largest u64 daily limit as a string, and a 50-byte multi-byte name', async () => {
    const { app } = await start();
    const owner = createTestWallet();
    await apps.chain.airdrop(owner.address as Address, SOL);
    const name = 'é'.repeat(25);
    const response = await post(app, owner, {
      name,
      agentSigner: randomAddress(),
      dailyLimit: '18446744073709551615',
    });
    assert.equal(response.statusCode, 201, response.body);
    assert.equal(response.json().vault.dailyLimit, '18446744073709551615');
    const [ix] = programInstructions(decodeTransactionBase64(response.json().transaction));
    assert.deepEqual(Buffer.from(ix!.data).subarray(48, 56), Buffer.alloc(8, 0xff));
    assert.deepEqual(Buffer.from(ix!.data).subarray(60).toString('utf8'), name);
  });

  test('draws a fresh random nonce, hence a new vault address, for every request', async () => {
    const { app } = await start();
    const owner = createTestWallet();
    await apps.chain.airdrop(owner.address as Address, SOL);
    const body = { name: 'Same', agentSigner: randomAddress(), dailyLimit: 1 };
    const first = (await post(app, owner, body)).json().vault;
    const second = (await post(app, owner, body)).json().vault;
    assert.notEqual(first.nonce, second.nonce);
    assert.notEqual(first.address, second.address);
  });

  test('400 VALIDATION_ERROR for every broken rule, naming the field', async () => {
    const { app } = await start();
    const owner = createTestWallet();
    await apps.chain.airdrop(owner.address as Address, SOL);
    const valid = { name: 'Ops', agentSigner: randomAddress(), dailyLimit: 1_000 };
    const cases: [unknown, string][] = [
      [{ ...valid, name: '' }, 'body.name'],
      [{ ...valid, name: 'x'.repeat(51) }, 'body.name'],
      [{ ...valid, name: '€'.repeat(17) }, 'body.name'],
      [{ ...valid, name: '   ' }, 'body.name'],
      [{ ...valid, name: 'tab\there' }, 'body.name'],
      [{ ...valid, name: 42 }, 'body.name'],
      [{ ...valid, agentSigner: 'not-an-address' }, 'body.agentSigner'],
      [{ ...valid, agentSigner: randomAddress().slice(0, 20) }, 'body.agentSigner'],
      [{ ...valid, dailyLimit: 0 }, 'body.dailyLimit'],
      [{ ...valid, dailyLimit: -5 }, 'body.dailyLimit'],
      [{ ...valid, dailyLimit: 1.5 }, 'body.dailyLimit'],
      [{ ...valid, dailyLimit: '0' }, 'body.dailyLimit'],
      [{ ...valid, dailyLimit: '18446744073709551616' }, 'body.dailyLimit'],
      [{ ...valid, dailyLimit: 2 ** 53 }, 'body.dailyLimit'],
      [{ ...valid, dailyLimit: '1e9' }, 'body.dailyLimit'],
      [{ name: 'Ops', agentSigner: valid.agentSigner }, 'body.dailyLimit'],
      [{ name: 'Ops', dailyLimit: 5 }, 'body.agentSigner'],
      [{ agentSigner: valid.agentSigner, dailyLimit: 5 }, 'body.name'],
      [{ ...valid, authority: owner.address }, 'body.authority'],
    ];
    for (const [payload, path] of cases) {
      const paths = issuePaths(await post(app, owner, payload));
      assert.ok(paths.includes(path), `${JSON.stringify(payload)} → ${paths.join(', ')}`);
    }
    assert.equal((await post(app, owner, { ...valid, name: 'x'.repeat(50) })).statusCode, 201);
  });

  test('422 SIMULATION_FAILED, no transaction, when the wallet holds no SOL to pay for it', async () => {
    const { app } = await start();
    const owner = createTestWallet();
    const response = await post(app, owner, { name: 'Ops', agentSigner: randomAddress(), dailyLimit: 1 });
    assert.equal(response.statusCode, 422, response.body);
    const body = response.json();
    assert.equal(body.code, 'SIMULATION_FAILED');
    assert.equal(
      body.error,
      `The paying wallet ${owner.address} has no SOL on this network, so it cannot pay the network fee (AccountNotFound).`,
    );
    assert.deepEqual(body.details, {
      instruction: null,
      programError: null,
      runtimeError: 'AccountNotFound',
      logs: [],
    });
    assert.equal(body.transaction, undefined);
  });

  test('503 RPC_UNAVAILABLE when the RPC node cannot give a blockhash', async () => {
    const { app } = await start();
    apps.chain.setOutage(true);
    const response = await post(app, createTestWallet(), {
      name: 'Ops',
      agentSigner: randomAddress(),
      dailyLimit: 1,
    });
    assert.equal(response.statusCode, 503);
    assert.equal(response.json().code, 'RPC_UNAVAILABLE');
  });

  test('once ingestion sees VaultCreated, the vault is served with the requested name', async () => {
    const { app, deps } = await start();
    const owner = createTestWallet();
    await apps.chain.airdrop(owner.address as Address, 10n * SOL);
    const created = await post(app, owner, {
      name: 'Marketing',
      agentSigner: randomAddress(),
      dailyLimit: '7',
    });
    const signature = await signAndSend(created.json().transaction, owner);
    const ingestor = await apps.startIngestor({ deps });
    try {
      await waitForSignatures(apps.storage, [signature]);
    } finally {
      await ingestor.stop();
    }
    const detail = await app.inject(`/api/vaults/${created.json().vault.address}`);
    assert.equal(detail.statusCode, 200, detail.body);
    assert.equal(detail.json().name, 'Marketing');
    assert.equal(detail.json().authority, owner.address);
    assert.equal(detail.json().dailyLimit, '7');
  });
});

describe('PATCH /api/vaults/:address', () => {
  test('name only: applied at once, kept through account refreshes, cache evicted, no transaction', async () => {
    const { app } = await start();
    const owner = createTestWallet();
    const { row } = await seedVault(owner);
    assert.equal((await app.inject(`/api/vaults/${row.address}`)).json().name, 'Ops');
    const response = await patch(app, owner, row.address, { name: 'Ops (EU)' });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['cache-control'], 'no-store');
    const body = response.json();
    assert.equal(body.transaction, null);
    assert.equal(body.vault.name, 'Ops (EU)');
    assert.equal(body.vault.address, row.address);
    assert.equal(body.vault.dailyLimit, '5000000000');
    assert.match(body.message, /name/i);
    const [stored] = await apps.db.select().from(vaults).where(eq(vaults.id, row.id));
    assert.equal(stored!.nameOverridden, true);
    assert.equal((await app.inject(`/api/vaults/${row.address}`)).json().name, 'Ops (EU)');
  });

  test('accepts the record uuid in place of the address', async () => {
    const { app } = await start();
    const owner = createTestWallet();
    const { row } = await seedVault(owner);
    const response = await patch(app, owner, row.id, { name: 'By id' });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().vault.id, row.id);
  });

  test('chain fields: one transaction, instructions in a safe order with the vault nonce, and it lands', async () => {
    const { app } = await start();
    const owner = createTestWallet();
    const kept = randomAddress() as Address;
    const { row, nonce, chain } = await seedVault(owner, [kept]);
    const agent = randomAddress();
    const added = [randomAddress(), randomAddress()];
    const blockhash = await latestBlockhash();
    const response = await patch(app, owner, row.address, {
      paused: true,
      whitelist: { add: added, remove: [kept] },
      dailyLimit: '9000000000',
      agentSigner: agent,
    });
    assert.equal(response.statusCode, 200, response.body);
    const { vault, transaction, message } = response.json();
    assert.equal(vault.dailyLimit, '5000000000', 'chain-backed fields wait for their events');
    assert.match(message, /daily limit/);

    const tx = decodeTransactionBase64(transaction);
    assertUnsigned(tx, owner.address, blockhash);
    const ownerAccounts = [account(row.address, false, true), account(owner.address, true, true)];
    const expected = [
      data('update_agent_signer', u64(nonce), pubkey(agent)),
      data('update_daily_limit', u64(nonce), u64(9_000_000_000n)),
      data('remove_from_whitelist', u64(nonce), pubkey(kept)),
      data('add_to_whitelist', u64(nonce), pubkey(added[0]!)),
      data('add_to_whitelist', u64(nonce), pubkey(added[1]!)),
      data('pause_vault', u64(nonce)),
    ];
    assert.equal(programInstructions(tx).length, expected.length);
    programInstructions(tx).forEach((ix, i) => {
      assert.equal(ix.programAddress, PROGRAM_ID);
      // The IDL marks authority a read-only signer; as fee payer the message makes it writable too.
      assert.deepEqual(ix.accounts, ownerAccounts, `instruction ${i} accounts`);
      assert.deepEqual(Buffer.from(ix.data), expected[i], `instruction ${i} data`);
    });

    await signAndSend(transaction, owner);
    const config = chain();
    assert.equal(config.paused, true);
    assert.equal(config.dailyLimit, 9_000_000_000n);
    assert.equal(config.agentSigner, agent);
    assert.deepEqual([...config.whitelist].sort(), [...added].sort());
  });

  test('resumes first and removes before adding, so a full whitelist can swap an entry', async () => {
    const { app } = await start();
    const owner = createTestWallet();
    const full = Array.from({ length: 20 }, () => randomAddress() as Address);
    const { row, nonce, chain } = await seedVault(owner, full);
    await apps.chain.pause(row.address as Address);
    const incoming = randomAddress();
    const response = await patch(app, owner, row.address, {
      whitelist: { add: [incoming], remove: [full[3]] },
      paused: false,
    });
    assert.equal(response.statusCode, 200, response.body);
    const tx = decodeTransactionBase64(response.json().transaction);
    assert.deepEqual(
      programInstructions(tx).map((ix) => Buffer.from(ix.data)),
      [
        data('resume_vault', u64(nonce)),
        data('remove_from_whitelist', u64(nonce), pubkey(full[3]!)),
        data('add_to_whitelist', u64(nonce), pubkey(incoming)),
      ],
    );
    await signAndSend(response.json().transaction, owner);
    assert.equal(chain().paused, false);
    assert.equal(chain().whitelist.length, 20);
    assert.ok(chain().whitelist.includes(incoming as Address));
  });

  test('422 SIMULATION_FAILED naming the program error when the chain moved on, and the name is not applied', async () => {
    const { app } = await start();
    const owner = createTestWallet();
    const listed = randomAddress() as Address;
    const { row } = await seedVault(owner, [listed]);
    // Removed on chain; ingestion has not caught up, so the stored whitelist still has it.
    await apps.chain.removeFromWhitelist(row.address as Address, listed);
    const response = await patch(app, owner, row.address, {
      name: 'Renamed',
      whitelist: { remove: [listed] },
    });
    assert.equal(response.statusCode, 422, response.body);
    const body = response.json();
    assert.equal(body.code, 'SIMULATION_FAILED');
    assert.equal(
      body.error,
      'The vault program would refuse this transaction at remove_from_whitelist (WhitelistNotFound: Whitelist address not found).',
    );
    assert.deepEqual(body.details.programError, { code: 12013, name: 'WhitelistNotFound' });
    assert.equal(body.details.instruction, 'remove_from_whitelist');
    const detail = await app.inject(`/api/vaults/${row.address}`);
    assert.equal(detail.json().name, 'Ops', 'nothing is written when no transaction can be handed out');
  });

  test('name and chain fields together: the name now, the rest in the transaction', async () => {
    const { app } = await start();
    const owner = createTestWallet();
    const { row, nonce } = await seedVault(owner);
    const response = await patch(app, owner, row.address, { name: 'Both', dailyLimit: 3 });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().vault.name, 'Both');
    const tx = decodeTransactionBase64(response.json().transaction);
    assert.deepEqual(
      programInstructions(tx).map((ix) => Buffer.from(ix.data)),
      [data('update_daily_limit', u64(nonce), u64(3n))],
    );
  });

  test('400 VALIDATION_ERROR for every broken rule, and nothing is applied', async () => {
    const { app } = await start();
    const owner = createTestWallet();
    const listed = [randomAddress(), randomAddress()];
    const { row } = await seedVault(owner, listed as Address[]);
    const fresh = randomAddress();
    const nineteen = Array.from({ length: 19 }, () => randomAddress());
    const cases: [unknown, string][] = [
      [{}, 'body'],
      [{ name: 'Fine', color: 'red' }, 'body.color'],
      [{ name: '' }, 'body.name'],
      [{ name: 'ü'.repeat(26) }, 'body.name'],
      [{ name: 'Fine', dailyLimit: 0 }, 'body.dailyLimit'],
      [{ name: 'Fine', dailyLimit: '18446744073709551616' }, 'body.dailyLimit'],
      [{ agentSigner: 'nope' }, 'body.agentSigner'],
      [{ paused: 'yes' }, 'body.paused'],
      [{ whitelist: {} }, 'body.whitelist'],
      [{ whitelist: { add: [] } }, 'body.whitelist'],
      [{ whitelist: { add: ['bad'] } }, 'body.whitelist.add.0'],
      [{ whitelist: { add: [fresh, fresh] } }, 'body.whitelist.add.1'],
      [{ whitelist: { add: [listed[0]] } }, 'body.whitelist.add.0'],
      [{ whitelist: { remove: [fresh] } }, 'body.whitelist.remove.0'],
      [{ whitelist: { remove: [listed[0], listed[0]] } }, 'body.whitelist.remove.1'],
      [{ whitelist: { add: [fresh], remove: [fresh] } }, 'body.whitelist.remove.0'],
      [{ whitelist: { add: nineteen } }, 'body.whitelist'],
      [{ whitelist: { add: [fresh], drop: [] } }, 'body.whitelist.drop'],
    ];
    for (const [payload, path] of cases) {
      const paths = issuePaths(await patch(app, owner, row.address, payload));
      assert.ok(paths.includes(path), `${JSON.stringify(payload)} → ${paths.join(', ')}`);
    }
    const [stored] = await apps.db.select().from(vaults).where(eq(vaults.id, row.id));
    assert.equal(stored!.name, 'Ops');
    assert.equal(stored!.nameOverridden, false);
  });

  test('at most 20 after the edit: 18 additions to 2 entries are fine, 19 are not', async () => {
    const { app } = await start();
    const owner = createTestWallet();
    const { row } = await seedVault(owner, [randomAddress(), randomAddress()] as Address[]);
    const add = Array.from({ length: 19 }, () => randomAddress());
    const paths = issuePaths(await patch(app, owner, row.address, { whitelist: { add } }));
    assert.deepEqual(paths, ['body.whitelist']);
    const fits = await patch(app, owner, row.address, { whitelist: { add: add.slice(0, 18) } });
    assert.notEqual(
      fits.json().details?.issues?.[0]?.message ?? '',
      'would hold 20 addresses; the limit is 20',
    );
  });

  test('a change set too large for one Solana transaction is refused with advice to split it', async () => {
    const { app } = await start();
    const owner = createTestWallet();
    const { row } = await seedVault(owner);
    const add = Array.from({ length: 20 }, () => randomAddress());
    const response = await patch(app, owner, row.address, { whitelist: { add }, name: 'Not applied' });
    assert.deepEqual(issuePaths(response), ['body']);
    assert.match(response.json().details.issues[0].message, /1232.*split/);
    const [stored] = await apps.db.select().from(vaults).where(eq(vaults.id, row.id));
    assert.equal(stored!.name, 'Ops');
  });

  test('the largest whitelist edit that fits is sent and lands', async () => {
    const { app } = await start();
    const owner = createTestWallet();
    const { row, chain } = await seedVault(owner);
    let count = 20;
    let response: Awaited<ReturnType<typeof patch>>;
    const add = Array.from({ length: 20 }, () => randomAddress());
    do {
      count--;
      response = await patch(app, owner, row.address, { whitelist: { add: add.slice(0, count) } });
    } while (response.statusCode === 400 && count > 1);
    assert.equal(response.statusCode, 200, response.body);
    assert.ok(count >= 18, `at least 18 additions fit in one transaction (got ${count})`);
    assert.ok(Buffer.byteLength(response.json().transaction, 'base64') <= 1232);
    await signAndSend(response.json().transaction, owner);
    assert.equal(chain().whitelist.length, count);
  });

  test('404 VAULT_NOT_FOUND for an unknown vault; 400 for an id that is neither address nor uuid', async () => {
    const { app } = await start();
    const owner = createTestWallet();
    const unknown = await patch(app, owner, randomAddress(), { name: 'x' });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().code, 'VAULT_NOT_FOUND');
    const unknownId = await patch(app, owner, '2f6a1a36-5f5b-4b8e-9a55-3d5f0f2b9c11', { name: 'x' });
    assert.equal(unknownId.statusCode, 404);
    const paths = issuePaths(await patch(app, owner, 'not-a-vault', { name: 'x' }));
    assert.deepEqual([...new Set(paths)], ['params.address']);
  });

  test('403 FORBIDDEN for a signer who is not the authority, before any validation of the edit', async () => {
    const { app } = await start();
    const { row } = await seedVault(createTestWallet());
    const response = await patch(app, createTestWallet(), row.address, {
      whitelist: { remove: [randomAddress()] },
    });
    assert.equal(response.statusCode, 403);
    assert.equal(response.json().code, 'FORBIDDEN');
  });

  test('503 RPC_UNAVAILABLE without a blockhash, and the name is not applied either', async () => {
    const { app } = await start();
    const owner = createTestWallet();
    const { row } = await seedVault(owner);
    apps.chain.setOutage(true);
    const response = await patch(app, owner, row.address, { name: 'Later', paused: true });
    assert.equal(response.statusCode, 503);
    assert.equal(response.json().code, 'RPC_UNAVAILABLE');
    const [stored] = await apps.db.select().from(vaults).where(eq(vaults.id, row.id));
    assert.equal(stored!.name, 'Ops');
    apps.chain.setOutage(false);
    assert.equal((await patch(app, owner, row.address, { name: 'Now' })).statusCode, 200);
  });

  test('503 SERVICE_UNAVAILABLE for chain fields while the vault nonce is not read yet; names still work', async () => {
    const { app } = await start();
    const owner = createTestWallet();
    const row = await createVault(apps.db, { authority: owner.address, vaultNonce: null });
    const response = await patch(app, owner, row.address, { paused: true });
    assert.equal(response.statusCode, 503);
    assert.equal(response.json().code, 'SERVICE_UNAVAILABLE');
    assert.equal((await patch(app, owner, row.address, { name: 'Renamed' })).statusCode, 200);
  });

  test('after the signed update is ingested, the API shows the new policy and keeps the new name', async () => {
    const { app, deps } = await start();
    const owner = createTestWallet();
    const { row } = await seedVault(owner);
    const response = await patch(app, owner, row.address, { name: 'Renamed', dailyLimit: 123_456 });
    const signature = await signAndSend(response.json().transaction, owner);
    const ingestor = await apps.startIngestor({ deps });
    try {
      await waitForSignatures(apps.storage, [signature]);
    } finally {
      await ingestor.stop();
    }
    const detail = await waitFor(async () => {
      const body = (await app.inject(`/api/vaults/${row.address}`)).json();
      return body.dailyLimit === '123456' ? body : null;
    });
    assert.equal(detail.name, 'Renamed');
  });
});
