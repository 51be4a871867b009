// The only reader of process.env: parse once, report every bad variable together, freeze.
import { readFileSync } from 'node:fs';
import { isAddress } from '@solana/kit';
import { DEFAULT_CLIENT_IPV6_PREFIX } from './lib/client-key.js';
import {
  type BackfillConfig,
  type DatabaseConfig,
  deriveWsUrl,
  type PriorityFeeMode,
  parseBackfill,
  parseDatabase,
  parseMetricsToken,
  parsePriorityFee,
  parseSchedule,
  parseSecretsKeys,
  type SecretsKeys,
} from './lib/config-values.js';
import { createEnvReader, type Env, type VariableShape } from './lib/env-reader.js';
import { isPublicBind, parseTrustProxy, type TrustProxy } from './lib/trust-proxy.js';

export type { BackfillConfig, DatabaseConfig, PriorityFeeMode } from './lib/config-values.js';
export type { VariableShape } from './lib/env-reader.js';

export const SOLANA_CLUSTERS = ['devnet', 'mainnet-beta', 'testnet', 'localnet'] as const;
export type SolanaCluster = (typeof SOLANA_CLUSTERS)[number];
export const ROLE_NAMES = ['api', 'ingestor', 'worker'] as const;
export type Role = (typeof ROLE_NAMES)[number];
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * The service's version, from its own package.json (one level up from src/ and from dist/): not npm's
 * npm_package_version, which under `npx vaultkeeper` names the project it runs in.
 */
const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export const DEFAULT_PROGRAM_ID = 'ET9WDoFE2bf4bSmciLL7q7sKdeSYeNkWbNMHbAMBu2ZJ';

const CLUSTER_RPC: Record<SolanaCluster, string> = {
  devnet: 'https://api.devnet.solana.com',
  'mainnet-beta': 'https://api.mainnet-beta.solana.com',
  testnet: 'https://api.testnet.solana.com',
  localnet: 'http://127.0.0.1:8899',
};

/** DATABASE_POOL_SIZE: PostgreSQL connections per process at most (node-postgres's own default). */
export const DEFAULT_DATABASE_POOL_SIZE = 10;
/** The ingestor lock and the delivery listener may each hold one; queries need the rest. */
const MIN_DATABASE_POOL_SIZE = 4;

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly database: DatabaseConfig;
  readonly redisUrl: string | null;
  readonly cluster: SolanaCluster;
  /** The preferred RPC endpoint (the first of rpcEndpoints). */
  readonly rpcUrl: string;
  readonly wsUrl: string;
  /** SOLANA_RPC_URL / SOLANA_WS_URL as comma-separated lists, paired by position, in order of preference. */
  readonly rpcEndpoints: readonly { readonly rpcUrl: string; readonly wsUrl: string }[];
  readonly programId: string;
  /** SOLANA_GRPC_URL (+ _TOKEN, GRPC_FALLBACK_MS): a Yellowstone gRPC stream as the live source; null = WebSocket. */
  readonly grpc: GrpcConfig | null;
  readonly publicBaseUrl: string;
  readonly roles: readonly Role[];
  /** TRUST_PROXY: false, true (every hop), a hop count, or the proxies' addresses/CIDRs (Fastify trustProxy). */
  readonly trustProxy: TrustProxy;
  /** METRICS_TOKEN: when set, /metrics answers only `Authorization: Bearer <token>` (else 401). */
  readonly metricsToken: string | null;
  /** CLIENT_IPV6_PREFIX: IPv6 clients are counted (rate limits, stream caps) by their subnet of this many bits. */
  readonly clientIpv6Prefix: number;
  readonly authMaxAgeSeconds: number;
  /** AUTH_REQUIRE_REQUEST_BINDING: refuse signed messages that do not name their request (default true). */
  readonly authRequireRequestBinding: boolean;
  /** REQUEST_BODY_TIMEOUT_MS: a request (headers and body) not received in full within this gets 408. */
  readonly requestBodyTimeoutMs: number;
  /** SSE_MAX_STREAMS: event streams this process holds open at once, all clients together. */
  readonly sseMaxStreams: number;
  /** APPROVAL_MAX_CONFIRMS: approve confirmations this process polls the cluster for at once, all clients together. */
  readonly approvalMaxConfirms: number;
  /** APPROVAL_MAX_SIMULATIONS: approve previews and transactions this process simulates at once, all clients together. */
  readonly approvalMaxSimulations: number;
  /** APPROVAL_WAITS_PER_CLIENT / _PER_NETWORK / _MAX: approval waits held at once (docs/AGENTS.md). */
  readonly approvalWaits: { readonly perClient: number; readonly perNetwork: number; readonly total: number };
  /** AUDIT_RETENTION_DAYS: audit entries older than this are pruned (docs/AUDIT.md). */
  readonly auditRetentionDays: number;
  readonly webhookAllowPrivateUrls: boolean;
  readonly webhookRetrySchedule: readonly number[];
  readonly webhookTimeoutMs: number;
  /** WEBHOOK_SECRETS_KEY(_PREVIOUS): AES-256-GCM keys sealing webhook secrets at rest; null = stored plain. */
  readonly webhookSecretsKeys: SecretsKeys | null;
  readonly smtpUrl: string | null;
  readonly emailFrom: string;
  readonly logLevel: LogLevel;
  readonly backfill: BackfillConfig;
  readonly backfillIntervalMs: number;
  /** READ_CACHE: cache public API reads (default true); false serves every read from the database. */
  readonly readCache: boolean;
  /** RATE_LIMIT_ENABLED: the per-IP budgets (docs/API.md, Rate limits) (default true; false only for tests and benchmarks' labelled diagnostics). */
  readonly rateLimitEnabled: boolean;
  /**
   * Live accounts for the budget and check routes (docs/AGENTS.md): LIVE_ACCOUNTS (default true) keeps
   * the accounts of recently read vaults by subscription, at most LIVE_ACCOUNTS_MAX_VAULTS vaults (default
   * 500), each let go after LIVE_ACCOUNTS_IDLE_SECONDS without a read (default 600); false reads every time.
   */
  readonly liveAccounts: {
    readonly enabled: boolean;
    readonly maxVaults: number;
    readonly idleSeconds: number;
  };
  /** HMAC key of Solana Actions sign-message `state`; null = a random key per process (nonces stay DB-backed). */
  readonly actionsStateSecret: string | null;
  /** The compute unit price of built transactions (docs/BLINKS.md, Transactions that land). */
  readonly priorityFee: {
    readonly mode: PriorityFeeMode;
    /** PRIORITY_FEE_PERCENTILE: 1..100 (default 75) of recent fees over the writable accounts. */
    readonly percentile: number;
    /** PRIORITY_FEE_MAX_LAMPORTS: the priority fee of one transaction at most (default 1 000 000). */
    readonly maxLamports: bigint;
  };
  /**
   * DEMO_MODE (default false) with DEMO_OWNER_KEYPAIR (the demo owner's solana-keygen file): the
   * approval page offers an in-page demo wallet that signs with that key. `npm run demo` only; never
   * on mainnet-beta.
   */
  readonly demo: { readonly ownerKeypairFile: string } | null;
  readonly version: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment; throws ConfigError naming every bad variable at once. `shapes`, when given,
 * collects how each variable is read (for the generated configuration table).
 */
export interface GrpcConfig {
  readonly url: string;
  /** Sent as the `x-token` metadata; never logged. */
  readonly token: string | null;
  /** How long the stream may stay unreachable before the WebSocket source takes over. */
  readonly fallbackMs: number;
}

export function loadConfig(env: Env = process.env, shapes?: VariableShape[]): Config {
  const problems: string[] = [];
  const { read, text, int, bool, oneOf, url } = createEnvReader(env, problems, shapes);
  const port = int('PORT', 3000, 0, 65535);
  const demoMode = bool('DEMO_MODE', false);
  // The demo hands the owner's key to the page: it listens on this machine only.
  const host = text('HOST', demoMode ? '127.0.0.1' : '0.0.0.0');
  const parsedDatabase = parseDatabase(read('DATABASE_URL'), text('DATA_DIR', './data'), problems);
  const poolSize = int('DATABASE_POOL_SIZE', DEFAULT_DATABASE_POOL_SIZE, MIN_DATABASE_POOL_SIZE, 1_000);
  const database: DatabaseConfig =
    parsedDatabase.kind === 'postgres' ? { ...parsedDatabase, poolSize } : parsedDatabase;
  const redisUrl = url('REDIS_URL', ['redis:', 'rediss:']) ?? null;
  const cluster = oneOf('SOLANA_CLUSTER', SOLANA_CLUSTERS, 'devnet');
  const rpcEndpoints = readRpcEndpoints(env, problems, cluster, shapes);
  const { rpcUrl, wsUrl } = rpcEndpoints[0]!;
  const programId = text('VAULT_PROGRAM_ID', DEFAULT_PROGRAM_ID);
  if (!isAddress(programId)) problems.push('VAULT_PROGRAM_ID must be a base58 32-byte address');
  const grpcUrl = url('SOLANA_GRPC_URL', ['http:', 'https:']) ?? null;
  const grpcToken = read('SOLANA_GRPC_TOKEN') ?? null;
  const grpcFallbackMs = int('GRPC_FALLBACK_MS', 10_000, 100, 600_000);
  const publicBaseUrl = (url('PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(
    /\/+$/,
    '',
  );
  const roles = parseRoles(read('ROLES'), problems);
  const schedule = parseSchedule(read('WEBHOOK_RETRY_SCHEDULE'), problems);
  const backfill = parseBackfill(read('BACKFILL'), problems);
  const smtpUrl = url('SMTP_URL', ['smtp:', 'smtps:']) ?? null;
  const actionsStateSecret = read('ACTIONS_STATE_SECRET') ?? null;
  if (actionsStateSecret !== null && actionsStateSecret.length < 32) {
    problems.push('ACTIONS_STATE_SECRET must be at least 32 characters');
  }

  const config: Config = {
    port,
    host,
    database,
    redisUrl,
    cluster,
    rpcUrl,
    wsUrl,
    rpcEndpoints,
    programId,
    grpc: grpcUrl === null ? null : { url: grpcUrl, token: grpcToken, fallbackMs: grpcFallbackMs },
    publicBaseUrl,
    roles,
    trustProxy: parseTrustProxy(read('TRUST_PROXY'), problems),
    metricsToken: parseMetricsToken(read('METRICS_TOKEN'), problems),
    clientIpv6Prefix: int('CLIENT_IPV6_PREFIX', DEFAULT_CLIENT_IPV6_PREFIX, 1, 128),
    authMaxAgeSeconds: int('AUTH_MAX_AGE_SECONDS', 300, 1, 86_400),
    authRequireRequestBinding: bool('AUTH_REQUIRE_REQUEST_BINDING', true),
    requestBodyTimeoutMs: int('REQUEST_BODY_TIMEOUT_MS', 30_000, 50, 600_000),
    sseMaxStreams: int('SSE_MAX_STREAMS', 1_000, 1, 100_000),
    approvalMaxConfirms: int('APPROVAL_MAX_CONFIRMS', 32, 1, 10_000),
    approvalMaxSimulations: int('APPROVAL_MAX_SIMULATIONS', 16, 1, 10_000),
    approvalWaits: {
      perClient: int('APPROVAL_WAITS_PER_CLIENT', 20, 1, 10_000),
      perNetwork: int('APPROVAL_WAITS_PER_NETWORK', 100, 1, 100_000),
      total: int('APPROVAL_WAITS_MAX', 1_000, 1, 100_000),
    },
    auditRetentionDays: int('AUDIT_RETENTION_DAYS', 400, 1, 36_500),
    webhookAllowPrivateUrls: bool('WEBHOOK_ALLOW_PRIVATE_URLS', false),
    webhookRetrySchedule: schedule,
    webhookTimeoutMs: int('WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookSecretsKeys: parseSecretsKeys(
      read('WEBHOOK_SECRETS_KEY'),
      read('WEBHOOK_SECRETS_KEY_PREVIOUS'),
      problems,
    ),
    smtpUrl,
    emailFrom: text('EMAIL_FROM', 'Vaultkeeper <no-reply@vaultkeeper.local>'),
    logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    backfill,
    backfillIntervalMs: int('BACKFILL_INTERVAL_SECONDS', 60, 1, 86_400) * 1000,
    actionsStateSecret,
    priorityFee: {
      mode: parsePriorityFee(read('PRIORITY_FEE'), problems),
      percentile: int('PRIORITY_FEE_PERCENTILE', 75, 1, 100),
      maxLamports: BigInt(int('PRIORITY_FEE_MAX_LAMPORTS', 1_000_000, 0, 1_000_000_000_000)),
    },
    readCache: bool('READ_CACHE', true),
    rateLimitEnabled: bool('RATE_LIMIT_ENABLED', true),
    liveAccounts: {
      enabled: bool('LIVE_ACCOUNTS', true),
      maxVaults: int('LIVE_ACCOUNTS_MAX_VAULTS', 500, 1, 100_000),
      idleSeconds: int('LIVE_ACCOUNTS_IDLE_SECONDS', 600, 1, 86_400),
    },
    demo: parseDemo({ on: demoMode, keypairFile: read('DEMO_OWNER_KEYPAIR'), cluster, host }, problems),
    version: PACKAGE_VERSION,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

/** Names of this machine only, as HOST values and Host headers (without the port). */
export const LOOPBACK_HOSTS: readonly string[] = ['127.0.0.1', '::1', '[::1]', 'localhost'];

/** The demo wallet hands the owner's key to any visitor of the page: a local demo only, never mainnet. */
function parseDemo(
  input: { on: boolean; keypairFile: string | undefined; cluster: SolanaCluster; host: string },
  problems: string[],
): Config['demo'] {
  const { on, keypairFile, cluster, host } = input;
  if (!on) {
    if (keypairFile !== undefined) problems.push('DEMO_OWNER_KEYPAIR needs DEMO_MODE=true');
    return null;
  }
  if (cluster === 'mainnet-beta') {
    problems.push(
      "DEMO_MODE cannot be on with SOLANA_CLUSTER=mainnet-beta: it hands the owner's key to the page",
    );
    return null;
  }
  if (!LOOPBACK_HOSTS.includes(host.toLowerCase())) {
    problems.push(
      `DEMO_MODE listens on this machine only: HOST must be 127.0.0.1, ::1 or localhost (got "${host}")`,
    );
    return null;
  }
  if (keypairFile === undefined) {
    problems.push("DEMO_MODE=true needs DEMO_OWNER_KEYPAIR (the demo owner's solana-keygen file)");
    return null;
  }
  return { ownerKeypairFile: keypairFile };
}

/** What is valid but unsafe in this configuration: one line each, for the start-up log. */
export function configWarnings(config: Config): string[] {
  const warnings: string[] = [];
  const { trustProxy, host } = config;
  if ((trustProxy === true || typeof trustProxy === 'number') && isPublicBind(host)) {
    warnings.push(
      `TRUST_PROXY=${trustProxy} believes X-Forwarded-For from any peer, and HOST=${host} lets peers other ` +
        'than the proxy connect: a client reaching this port directly picks its own address (rate limits, ' +
        "stream caps). Set TRUST_PROXY to the proxies' addresses or CIDRs, or HOST to the address only the proxy reaches",
    );
  }
  if (!config.authRequireRequestBinding) {
    warnings.push(
      'AUTH_REQUIRE_REQUEST_BINDING=false accepts wallet signatures that do not name their request: one ' +
        `phished or leaked signature authorises any one request of that wallet for ${config.authMaxAgeSeconds} s. ` +
        'Remove it once your clients bind',
    );
  }
  return warnings;
}

/** SOLANA_RPC_URL and SOLANA_WS_URL, paired by position (the cluster's public node when unset). */
function readRpcEndpoints(
  env: Env,
  problems: string[],
  cluster: SolanaCluster,
  shapes?: VariableShape[],
): Config['rpcEndpoints'] {
  const { urls } = createEnvReader(env, problems, shapes);
  const rpcUrls = urls('SOLANA_RPC_URL', ['http:', 'https:']);
  const wsUrls = urls('SOLANA_WS_URL', ['ws:', 'wss:']);
  if (rpcUrls.length === 0) rpcUrls.push(CLUSTER_RPC[cluster]);
  if (wsUrls.length > rpcUrls.length) {
    problems.push('SOLANA_WS_URL lists more URLs than SOLANA_RPC_URL (they are paired by position)');
  }
  return rpcUrls.map((rpcUrl, i) => ({ rpcUrl, wsUrl: wsUrls[i] ?? deriveWsUrl(rpcUrl) }));
}

function parseRoles(raw: string | undefined, problems: string[]): Role[] {
  if (raw === undefined) return [...ROLE_NAMES];
  const roles = raw.split(',').map((r) => r.trim());
  const bad = roles.filter((r) => !(ROLE_NAMES as readonly string[]).includes(r));
  if (bad.length > 0 || roles.length === 0) {
    problems.push(
      `ROLES must be a comma-separated subset of ${ROLE_NAMES.join(',')} (bad: ${bad.join(',')})`,
    );
    return [...ROLE_NAMES];
  }
  return [...new Set(roles as Role[])];
}

/** What the CLI's API commands read from the environment: where the service is, and an API key. */
export interface ClientEnvironment {
  /** VAULTKEEPER_URL: the service's base URL. */
  readonly apiUrl: string | undefined;
  /** VAULTKEEPER_API_KEY: a `vk_…` key. */
  readonly apiKey: string | undefined;
}

export function readClientEnvironment(env: Env = process.env): ClientEnvironment {
  const value = (name: string) => (env[name] === undefined || env[name] === '' ? undefined : env[name]);
  return { apiUrl: value('VAULTKEEPER_URL'), apiKey: value('VAULTKEEPER_API_KEY') };
}
