// The API on a test database and the fake validator, with vaults created on the fake chain and stored as
// ingestion stores them: the setup of the agent budget and check tests.
import { type Address, createSolanaRpcFromTransport } from '@solana/kit';
import type { FastifyInstance } from 'fastify';
import { type FakeValidator, startFakeValidator } from '../../dev/validator/index.js';
import type { CreateVaultInput } from '../../dev/validator/scenarios.js';
import type { VaultRow } from '../../src/storage/schema/index.js';
import { createTestApp, type TestDepsOptions } from './app.js';
import { createTestStorage, type TestStorage } from './database.js';
import { createVault } from './factories.js';

export interface ChainApp {
  readonly testStorage: TestStorage;
  readonly fv: FakeValidator;
  readonly app: FastifyInstance;
  /** Another app on the same database and chain (its env added to the first's). */
  startApp(env?: Record<string, string>): Promise<FastifyInstance>;
  close(): Promise<void>;
}

/**
 * The fake validator with its Clock at `time`, a test database, and the API on both (rate limits off).
 * `inProcessRpc`: the app's RPC calls reach the validator in process, not over HTTP (its subscriptions do).
 */
export async function startChainApp(
  options: { time: number; env?: Record<string, string>; inProcessRpc?: boolean } & Omit<
    TestDepsOptions,
    'storage' | 'env'
  >,
): Promise<ChainApp> {
  const { time, env: extraEnv, inProcessRpc = false, ...rest } = options;
  const testStorage = await createTestStorage();
  const fv = await startFakeValidator();
  fv.setTime(time);
  if (inProcessRpc) rest.overrides = { ...rest.overrides, rpc: createSolanaRpcFromTransport(fv.transport) };
  const env = {
    SOLANA_RPC_URL: fv.rpcUrl,
    SOLANA_WS_URL: fv.wsUrl,
    RATE_LIMIT_ENABLED: 'false',
    ...extraEnv,
  };
  const apps: FastifyInstance[] = [];
  const startApp = async (more: Record<string, string> = {}) => {
    const { app } = await createTestApp({ ...rest, storage: testStorage.storage, env: { ...env, ...more } });
    apps.push(app);
    return app;
  };
  const app = await startApp();
  return {
    testStorage,
    fv,
    app,
    startApp,
    async close() {
      for (const each of apps) await each.close();
      await fv.close();
      await testStorage.close();
    },
  };
}

/** A vault created on the fake chain (funded with `deposit` lamports) and its row as ingestion stores it. */
export async function createChainVault(
  chain: Pick<ChainApp, 'fv' | 'testStorage'>,
  input: CreateVaultInput & { deposit?: bigint },
): Promise<{ vault: Address; agentSigner: Address; row: VaultRow }> {
  const { deposit, ...vaultInput } = input;
  const created = await chain.fv.createVault(vaultInput);
  if (deposit !== undefined) await chain.fv.deposit(created.vault, deposit);
  const row = await createVault(chain.testStorage.storage.db, {
    address: created.vault,
    authority: created.authority,
    vaultNonce: created.nonce,
  });
  return { vault: created.vault, agentSigner: created.agentSigner, row };
}
