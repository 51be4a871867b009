// vaultkeeper doctor: one line per dependency the service needs, with what to do when one fails.
// Endpoints are named by host only: URL paths, queries and credentials may hold secrets.
import { address, createSolanaRpc } from '@solana/kit';
import { Redis } from 'ioredis';
import nodemailer from 'nodemailer';
import { type Config, ConfigError, loadConfig } from '../config.js';
import { DataDirLockedError } from '../storage/data-dir-lock.js';
import { readMigrationState } from './migrations.js';

export interface Check {
  check: string;
  ok: boolean;
  /** What was found (or why it was skipped). */
  detail: string;
  /** What to do about a failure. */
  fix?: string;
}

const TIMEOUT_MS = 5_000;
const hostOf = (url: string) => new URL(url).host;
const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function probe(check: string, fix: string, run: () => Promise<string>): Promise<Check> {
  try {
    return { check, ok: true, detail: await run() };
  } catch (error) {
    return { check, ok: false, detail: reason(error), fix };
  }
}

/** A dependency the service runs without: skipped (and fine) while its URL is unset. */
function probeOptional(
  check: string,
  url: string | null,
  unset: string,
  fix: string,
  run: (url: string) => Promise<string>,
): Promise<Check> {
  if (url === null) return Promise.resolve({ check, ok: true, detail: `not configured: ${unset}` });
  return probe(check, fix, () => run(url));
}

function databaseCheck(config: Config): Promise<Check> {
  return probe(
    'database',
    config.database.kind === 'postgres'
      ? 'check DATABASE_URL and that PostgreSQL accepts connections, then run `vaultkeeper migrate`'
      : 'check that DATA_DIR is writable, then run `vaultkeeper migrate`',
    async () => {
      if (config.database.kind === 'memory') return 'memory: nothing is kept after the process ends';
      const state = await readMigrationState(config.database).catch((error: unknown) => {
        // A running service holds the directory: it migrated the database when it started.
        if (error instanceof DataDirLockedError) return error;
        throw error;
      });
      if (state instanceof DataDirLockedError) {
        return `pglite ${state.dir}: in use by process ${state.pid ?? '?'} (the running service, which migrated it at start)`;
      }
      const { applied, known } = state;
      const where =
        config.database.kind === 'postgres'
          ? `postgres ${hostOf(config.database.url)}`
          : config.database.kind;
      if (applied < known) throw new Error(`${where}: ${applied} of ${known} migrations applied`);
      return `${where}, ${applied} of ${known} migrations applied`;
    },
  );
}

function redisCheck(config: Config): Promise<Check> {
  return probeOptional(
    'redis',
    config.redisUrl,
    'caches and rate limits stay in each process',
    'check REDIS_URL and that Redis is up (or unset REDIS_URL to run without it)',
    async (url) => {
      const redis = new Redis(url, {
        lazyConnect: true,
        connectTimeout: TIMEOUT_MS,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      redis.on('error', () => {});
      try {
        await redis.connect();
        await redis.ping();
        return `${hostOf(url)} answers PING`;
      } finally {
        redis.disconnect();
      }
    },
  );
}

/** One check per configured RPC endpoint (by position and host), then the program through the first that answers. */
async function chainChecks(config: Config): Promise<Check[]> {
  const endpoints = await Promise.all(
    config.rpcEndpoints.map(async ({ rpcUrl }, i) => {
      const rpc = createSolanaRpc(rpcUrl);
      const host = hostOf(rpcUrl);
      const name = config.rpcEndpoints.length === 1 ? 'rpc' : `rpc ${i + 1}`;
      const check = await probe(
        name,
        `check entry ${i + 1} of SOLANA_RPC_URL (${host}) and that the node is reachable`,
        async () => {
          const slot = await rpc
            .getSlot({ commitment: 'confirmed' })
            .send({ abortSignal: AbortSignal.timeout(TIMEOUT_MS) });
          return `${host} at slot ${slot}`;
        },
      );
      return { rpc, check };
    }),
  );
  const checks = endpoints.map((e) => e.check);
  const rpc = endpoints.find((e) => e.check.ok)?.rpc;
  if (rpc === undefined) {
    return [
      ...checks,
      {
        check: 'program',
        ok: false,
        detail: 'not checked: no RPC endpoint answered',
        fix: 'fix the rpc checks first',
      },
    ];
  }
  const program = await probe(
    'program',
    `check PROGRAM_ID and SOLANA_CLUSTER (${config.cluster}): the program must be deployed where SOLANA_RPC_URL points`,
    async () => {
      const { value } = await rpc
        .getAccountInfo(address(config.programId), { encoding: 'base64' })
        .send({ abortSignal: AbortSignal.timeout(TIMEOUT_MS) });
      if (value === null) throw new Error(`${config.programId} has no account on ${config.cluster}`);
      if (!value.executable) throw new Error(`${config.programId} is not an executable program`);
      return `${config.programId} is deployed on ${config.cluster}`;
    },
  );
  return [...checks, program];
}

function smtpCheck(config: Config): Promise<Check> {
  return probeOptional(
    'smtp',
    config.smtpUrl,
    'mailto: subscriptions are refused',
    'check SMTP_URL (host, port, credentials) and that the server accepts connections',
    async (url) => {
      const transport = nodemailer.createTransport({
        url,
        connectionTimeout: TIMEOUT_MS,
        greetingTimeout: TIMEOUT_MS,
        socketTimeout: TIMEOUT_MS,
      } as never);
      try {
        await transport.verify();
        return `${hostOf(url)} accepts connections`;
      } finally {
        transport.close();
      }
    },
  );
}

/** Every check, in order; a configuration that does not load is the only check there is. */
export async function runDoctor(env?: Record<string, string | undefined>): Promise<Check[]> {
  let config: Config;
  try {
    config = env === undefined ? loadConfig() : loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return [
      {
        check: 'config',
        ok: false,
        detail: error.problems.join('; '),
        fix: 'fix the variables named (docs/CONFIGURATION.md)',
      },
    ];
  }
  const configCheck: Check = {
    check: 'config',
    ok: true,
    detail: `roles ${config.roles.join(', ')}, cluster ${config.cluster}`,
  };
  const [database, redis, chain, smtp] = await Promise.all([
    databaseCheck(config),
    redisCheck(config),
    chainChecks(config),
    smtpCheck(config),
  ]);
  return [configCheck, database, redis, ...chain, smtp];
}
