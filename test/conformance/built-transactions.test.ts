// Every transaction the service builds, read by the field's own clients: @solana/web3.js v1 parses the
// wire format, @coral-xyz/anchor's BorshCoder (from the program's IDL) decodes each instruction, and
// every account is checked against the IDL (order, fixed addresses, PDA seeds, signer and writable
// flags). The transactions come through the HTTP API and then run on the test validator.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import type { FastifyInstance } from 'fastify';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import { randomAddress } from '../../dev/validator/scenarios.js';
import { pressBlinkButton, useConformanceHarness } from '../support/conformance-app.js';
import { checkBuiltTransaction, readComputeBudget } from '../support/idl-conformance.js';
import { BASE_URL, SOL } from '../support/ingestion-harness.js';

/** The Domain line of the harness app's signed messages (its PUBLIC_BASE_URL's host). */
const DOMAIN = new URL(BASE_URL).host;

const h = useConformanceHarness();
const U64_MAX = 18_446_744_073_709_551_615n;

/** Signs and sends; the limit the compute budget asked for covers the run with at most 20 % headroom. */
async function sendWithinBudget(transaction: string, owner: TestWallet): Promise<string> {
  const { units, microLamports } = readComputeBudget(transaction);
  assert.ok(microLamports !== null, 'priced (PRIORITY_FEE=auto)');
  const signature = await h.signAndSend(transaction, owner);
  const landed = h.fake.state.bySignature.get(signature);
  assert.equal(landed?.err, null);
  const consumed = landed!.computeUnitsConsumed;
  assert.ok(units >= consumed && units <= consumed * 1.2, `limit ${units} for ${consumed} units`);
  return signature;
}

const known = (blockhash: string) => h.fake.state.isKnownBlockhash(blockhash);

async function createVault(app: FastifyInstance, owner: TestWallet, body: Record<string, unknown>) {
  const response = await app.inject({
    method: 'POST',
    url: '/api/vaults',
    headers: owner.authHeaders({ request: { method: 'POST', path: '/api/vaults', body, domain: DOMAIN } }),
    payload: body,
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json() as { vault: { address: string; nonce: string }; transaction: string };
}

async function patchVault(
  app: FastifyInstance,
  owner: TestWallet,
  address: string,
  body: Record<string, unknown>,
) {
  const response = await app.inject({
    method: 'PATCH',
    url: `/api/vaults/${address}`,
    headers: owner.authHeaders({
      request: { method: 'PATCH', path: `/api/vaults/${address}`, body, domain: DOMAIN },
    }),
    payload: body,
  });
  assert.equal(response.statusCode, 200, response.body);
  const { transaction } = response.json() as { transaction: string | null };
  assert.ok(transaction, 'an on-chain change builds a transaction');
  return transaction;
}

/** A vault created through POST /api/vaults, signed by its owner, run and ingested. */
async function ownedVault(app: FastifyInstance, options: { dailyLimit: bigint; name: string }) {
  const owner = createTestWallet();
  await h.fake.airdrop(owner.address as Address, 10n * SOL);
  const agent = randomAddress();
  const created = await createVault(app, owner, {
    name: options.name,
    agentSigner: agent,
    dailyLimit: options.dailyLimit.toString(),
  });
  const nonce = BigInt(created.vault.nonce);
  const [ix] = checkBuiltTransaction(created.transaction, {
    feePayer: owner.address,
    isKnownBlockhash: known,
    instructions: [
      {
        name: 'initialize_vault',
        args: { nonce, agent_signer: agent, daily_limit: options.dailyLimit, name: options.name },
      },
    ],
  });
  assert.equal(ix?.accounts.vault, created.vault.address);
  assert.equal(ix?.accounts.authority, owner.address);
  await sendWithinBudget(created.transaction, owner);
  return { owner, agent, vault: created.vault.address as Address, nonce };
}

describe('transactions the service builds, read by web3.js v1 and anchor', () => {
  test('POST /api/vaults: initialize_vault with a u64-max limit and a multi-byte UTF-8 name', async () => {
    await h.startLive();
    const app = await h.app();
    const name = 'Café ☕ 東京 ✓'; // 12 characters, 20 UTF-8 bytes
    const { vault, owner, agent } = await ownedVault(app, { dailyLimit: U64_MAX, name });
    const config = await h.anchorAccount('VaultConfig', vault);
    assert.equal(config.authority, owner.address);
    assert.equal(config.agent_signer, agent);
    assert.equal(config.daily_limit, U64_MAX);
    const nameLength = Number(config.name_len);
    assert.equal(Buffer.from((config.name as number[]).slice(0, nameLength)).toString('utf8'), name);
  });

  test('PATCH /api/vaults/:address: every update instruction, in one transaction and then the next', async () => {
    await h.startLive();
    const app = await h.app();
    const { vault, owner, nonce } = await ownedVault(app, { dailyLimit: 5n * SOL, name: 'Ops' });
    const [newAgent, kept, dropped] = [randomAddress(), randomAddress(), randomAddress()];
    const limit = 2n ** 53n + 1n;

    const first = await patchVault(app, owner, vault, {
      dailyLimit: limit.toString(),
      agentSigner: newAgent,
      whitelist: { add: [kept, dropped] },
      paused: true,
    });
    const decoded = checkBuiltTransaction(first, {
      feePayer: owner.address,
      isKnownBlockhash: known,
      instructions: [
        // Resume first and pause last, so a paused vault's other changes still apply.
        { name: 'update_agent_signer', args: { vault_nonce: nonce, new_agent_signer: newAgent } },
        { name: 'update_daily_limit', args: { vault_nonce: nonce, new_daily_limit: limit } },
        { name: 'add_to_whitelist', args: { vault_nonce: nonce, address: kept } },
        { name: 'add_to_whitelist', args: { vault_nonce: nonce, address: dropped } },
        { name: 'pause_vault', args: { vault_nonce: nonce } },
      ],
    });
    for (const ix of decoded) assert.deepEqual(ix.accounts, { vault, authority: owner.address });
    await sendWithinBudget(first, owner);

    const second = await patchVault(app, owner, vault, { whitelist: { remove: [dropped] }, paused: false });
    checkBuiltTransaction(second, {
      feePayer: owner.address,
      isKnownBlockhash: known,
      instructions: [
        { name: 'resume_vault', args: { vault_nonce: nonce } },
        { name: 'remove_from_whitelist', args: { vault_nonce: nonce, address: dropped } },
      ],
    });
    await sendWithinBudget(second, owner);

    const config = await h.anchorAccount('VaultConfig', vault);
    assert.equal(config.daily_limit, limit);
    assert.equal(config.agent_signer, newAgent);
    assert.equal(config.paused, false);
    assert.equal(config.whitelist_count, 1);
    assert.equal((config.whitelist as string[])[0], kept);
  });

  test('the approve Blink: create_override, approve_override, execute_approved_override for the blocked transfer', async () => {
    await h.startLive();
    const app = await h.app();
    const { vault, owner, nonce } = await ownedVault(app, { dailyLimit: SOL, name: 'Ops' });
    const destination = randomAddress();
    const amount = 2n * SOL + 1n;
    const { blinkPath } = await h.blockTransfer(app, vault, { destination, amount });
    const { response: posted } = await pressBlinkButton(app, blinkPath, 'transaction', owner.address);
    const { transaction } = posted.json() as { transaction: string };

    // The PDA seeds read the vault's override nonce on chain, as the program does when it runs.
    const chain = await h.anchorAccount('VaultConfig', vault);
    const overrideNonce = chain.override_nonce as bigint;
    const decoded = checkBuiltTransaction(transaction, {
      feePayer: owner.address,
      isKnownBlockhash: known,
      // create_override creates the pending override with the vault's nonce in the same transaction.
      accountField: (account, _address, field) => {
        if (account === 'VaultConfig' && field === 'override_nonce') return overrideNonce;
        if (account === 'PendingOverride' && field === 'nonce') return overrideNonce;
        throw new Error(`unexpected seed ${account}.${field}`);
      },
      instructions: [
        {
          name: 'create_override',
          args: { vault_nonce: nonce, destination, amount, reason: { ExceededDailyLimit: {} } },
        },
        { name: 'approve_override', args: { vault_nonce: nonce } },
        { name: 'execute_approved_override', args: { vault_nonce: nonce } },
      ],
    });
    assert.equal(decoded[2]?.accounts.destination, destination);
    assert.equal(decoded[0]?.accounts.pending_override, decoded[1]?.accounts.pending_override);

    const before = h.fake.balance(destination);
    await sendWithinBudget(transaction, owner);
    assert.equal(h.fake.balance(destination) - before, amount, 'the blocked transfer ran as approved');
  });
});
