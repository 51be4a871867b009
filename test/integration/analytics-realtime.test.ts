import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import {
  registerAjvFormats,
  type TypeBoxTypeProvider,
  TypeBoxValidatorCompiler,
} from '@fastify/type-provider-typebox';
import type { Address } from '@solana/kit';
import Fastify, { type FastifyInstance } from 'fastify';
import type { FakeValidator } from '../../dev/validator/index.js';
import { createRpcClients } from '../../src/app-deps.js';
import { registerErrorHandling } from '../../src/http/error-handler.js';
import { analyticsRoutes } from '../../src/http/routes/analytics.routes.js';
import { ErrorEnvelope } from '../../src/http/schemas/common.js';
import { createServices } from '../../src/services.js';
import type { VaultRow } from '../../src/storage/schema/index.js';
import { testConfig } from '../support/app.js';
import { createTransaction, createVault, randomAddress } from '../support/factories.js';
import { useTestApps } from '../support/test-apps.js';

const SOL = 1_000_000_000n;
const T0 = Date.parse('2026-12-01T10:00:00.000Z') / 1000;

let fv: FakeValidator;
let app: FastifyInstance;
let nowMs = T0 * 1000;
let vault: VaultRow;
let chainVault: Address;
let depositAddress: Address;

// The file's database and validator, and one app on them; the vault is set up once for the file.
const world = useTestApps({
  chain: true,
  clock: { now: () => new Date(nowMs) },
  env: { RATE_LIMIT_ENABLED: 'false' },
  emptyEachTest: false,
  fileApp: {
    async setUp(fileApp) {
      app = fileApp;
      fv = world.chain;
      fv.setTime(T0, 1);
      const created = await fv.createVault({ dailyLimit: 7n * SOL, feeBasisPoints: 50 });
      chainVault = created.vault;
      depositAddress = created.depositAddress;
      vault = await createVault(world.storage.db, {
        address: chainVault,
        authority: created.authority,
        vaultNonce: created.nonce,
      });
      assert.equal(vault.depositAddress, depositAddress);
      await fv.deposit(chainVault, 50n * SOL);
    },
  },
});

/** Mirrors what ingestion stores for a chain result: a transaction at the block time. */
async function recordOnChain(
  result: { signature: string; slot: number },
  fields: { status: 'executed' | 'blocked'; amount: bigint },
) {
  const entry = fv.ledger().find((e) => e.signature === result.signature)!;
  await createTransaction(world.storage.db, {
    vault,
    signature: result.signature,
    timestamp: new Date(entry.blockTime * 1000),
    ...fields,
  });
  return entry.blockTime;
}

const getRealtime = (target: FastifyInstance, query: string) =>
  target.inject({ method: 'GET', url: `/api/analytics/realtime${query}` });

describe('GET /api/analytics/realtime', () => {
  test('reads balance and the daily window live from the chain, never cached', async () => {
    // An executed transfer of the previous window, then the window the chain is in now.
    await createTransaction(world.storage.db, {
      vault,
      amount: 1n,
      timestamp: new Date((T0 - 3600) * 1000),
    });
    const destination = randomAddress() as Address;
    const first = await fv.execute(chainVault, { destination, amount: 2n * SOL });
    await recordOnChain(first, { status: 'executed', amount: 2n * SOL });
    const second = await fv.execute(chainVault, { destination, amount: 1_234_567_891n });
    await recordOnChain(second, { status: 'executed', amount: 1_234_567_891n });
    const blocked = await fv.block(chainVault, { amount: 9n * SOL, reason: 'exceeded_daily_limit' });
    const lastAt = await recordOnChain(blocked, { status: 'blocked', amount: 9n * SOL });
    nowMs = (T0 + 3600) * 1000;

    const { config } = fv.getVault(chainVault)!;
    const response = await getRealtime(app, `?vault=${chainVault}`);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.deepEqual(response.json(), {
      vault: chainVault,
      timestamp: new Date(nowMs).toISOString(),
      balance: fv.balance(depositAddress).toString(),
      spentToday: config.spentToday.toString(),
      dailyLimit: (7n * SOL).toString(),
      utilizationPct: Math.round((Number(config.spentToday) / Number(7n * SOL)) * 10_000) / 100,
      transactionsToday: 2,
      lastTransaction: new Date(lastAt * 1000).toISOString(),
      lastReset: new Date(Number(config.lastReset) * 1000).toISOString(),
    });
    assert.equal(config.spentToday, 3_234_567_891n);
    assert.equal(response.json().utilizationPct, 46.21);

    // Nothing is cached: a new transfer shows at once.
    const third = await fv.execute(chainVault, { destination, amount: SOL });
    await recordOnChain(third, { status: 'executed', amount: SOL });
    const again = (await getRealtime(app, `?vault=${chainVault}`)).json();
    assert.equal(again.spentToday, 4_234_567_891n.toString());
    assert.equal(again.transactionsToday, 3);
    assert.equal(again.balance, fv.balance(depositAddress).toString());
  });

  test('reports nothing spent once 24 hours have passed since the last reset', async () => {
    const { config } = fv.getVault(chainVault)!;
    nowMs = (Number(config.lastReset) + 86_400) * 1000;
    const body = (await getRealtime(app, `?vault=${chainVault}`)).json();
    assert.equal(body.spentToday, '0');
    assert.equal(body.utilizationPct, 0);
    assert.equal(body.transactionsToday, 0);
    assert.equal(body.dailyLimit, (7n * SOL).toString());
    nowMs = (Number(config.lastReset) + 86_399) * 1000;
    assert.notEqual((await getRealtime(app, `?vault=${chainVault}`)).json().spentToday, '0');
  });

  test('answers 503 CHAIN_UNAVAILABLE while the RPC is down, and recovers after', async () => {
    fv.setOutage(true);
    try {
      const response = await getRealtime(app, `?vault=${chainVault}`);
      assert.equal(response.statusCode, 503);
      assert.equal(response.json().code, 'CHAIN_UNAVAILABLE');
    } finally {
      fv.setOutage(false);
    }
    assert.equal((await getRealtime(app, `?vault=${chainVault}`)).statusCode, 200);
  });

  test('answers 503 CHAIN_UNAVAILABLE when the RPC accepts but never answers (bounded wait)', async () => {
    // The routes alone, with a short chain timeout: buildApp's is 3 s.
    const silent: Server = createServer(() => {}); // holds every request open
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const rpcUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const deps = world.createDeps({
      overrides: { rpc: createRpcClients(testConfig({ SOLANA_RPC_URL: rpcUrl })).rpc },
    });
    registerAjvFormats();
    const bare = Fastify().withTypeProvider<TypeBoxTypeProvider>();
    bare.setValidatorCompiler(TypeBoxValidatorCompiler);
    bare.addSchema(ErrorEnvelope);
    registerErrorHandling(bare);
    const services = createServices(deps, { chainTimeoutMs: 100 });
    await bare.register(analyticsRoutes, { analytics: services.analytics });
    try {
      const response = await getRealtime(bare, `?vault=${chainVault}`);
      assert.equal(response.statusCode, 503);
      assert.equal(response.json().code, 'CHAIN_UNAVAILABLE');
    } finally {
      await bare.close();
      await services.close();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  test('answers 400 without a vault, 400 for a malformed one, 404 for an unknown one', async () => {
    const missing = await getRealtime(app, '');
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().code, 'VALIDATION_ERROR');
    assert.equal((await getRealtime(app, '?vault=xyz')).statusCode, 400);
    const unknown = await getRealtime(app, `?vault=${randomAddress()}`);
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().code, 'VAULT_NOT_FOUND');
  });

  test('answers 404 VAULT_NOT_FOUND when the vault account does not exist on chain', async () => {
    const offChain = await createVault(world.storage.db);
    const response = await getRealtime(app, `?vault=${offChain.address}`);
    assert.equal(response.statusCode, 404);
    assert.equal(response.json().details.reason, 'account_not_found');
  });
});
