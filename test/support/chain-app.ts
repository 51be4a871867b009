// The API on the file's test database and the fake validator (useTestApps with `chain` and a file app),
// with vaults created on the fake chain and stored as ingestion stores them: the setup of the agent budget
// and check tests. The database is not emptied between tests: a file sets up its vaults once.
import type { Address } from '@solana/kit';
import type { FastifyInstance } from 'fastify';
import type { FakeValidator } from '../../dev/validator/index.js';
import type { CreateVaultInput } from '../../dev/validator/scenarios.js';
import type { Database } from '../../src/storage/database.js';
import type { VaultRow } from '../../src/storage/schema/index.js';
import { createVault } from './factories.js';
import { type TestAppOptions, type TestApps, useTestApps } from './test-apps.js';

export interface ChainApp {
  readonly world: TestApps;
  readonly db: Database;
  readonly fv: FakeValidator;
  readonly app: FastifyInstance;
  /** Another app on the same database and chain (its env added to the first's), closed after the file. */
  startApp(env?: Record<string, string>): Promise<FastifyInstance>;
}

/**
 * Registers the file's hooks: the fake validator with its Clock at `time`, a test database, and the API on
 * both (rate limits off). `inProcessRpc`: the app's RPC calls reach the validator in process, not over HTTP
 * (its subscriptions do). `setUp` runs once the app is ready, before the first test.
 */
export function useChainApp(
  options: {
    time: number;
    inProcessRpc?: boolean;
    setUp?: (chain: ChainApp) => Promise<unknown>;
  } & Omit<TestAppOptions, 'cache'>,
): ChainApp {
  const { time, inProcessRpc = false, setUp, env, ...rest } = options;
  const world = useTestApps({
    ...rest,
    chain: { time, inProcessRpc },
    env: { RATE_LIMIT_ENABLED: 'false', ...env },
    emptyEachTest: false,
    fileApp: { setUp: () => setUp?.(chain) ?? Promise.resolve() },
  });
  const chain: ChainApp = {
    world,
    get db() {
      return world.db;
    },
    get fv() {
      return world.chain;
    },
    get app() {
      return world.app;
    },
    startApp: async (more = {}) => (await world.startForFile({ env: more })).app,
  };
  return chain;
}

/** A vault created on the fake chain (funded with `deposit` lamports) and its row as ingestion stores it. */
export async function createChainVault(
  chain: Pick<ChainApp, 'fv' | 'db'>,
  input: CreateVaultInput & { deposit?: bigint },
): Promise<{ vault: Address; agentSigner: Address; row: VaultRow }> {
  const { deposit, ...vaultInput } = input;
  const created = await chain.fv.createVault(vaultInput);
  if (deposit !== undefined) await chain.fv.deposit(created.vault, deposit);
  const row = await createVault(chain.db, {
    address: created.vault,
    authority: created.authority,
    vaultNonce: created.nonce,
  });
  return { vault: created.vault, agentSigner: created.agentSigner, row };
}
