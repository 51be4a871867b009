// What each environment variable means, for people. config.ts reads the variables and declares their
// defaults and accepted values; this table only says what they are for. `npm run docs:config` renders
// both into docs/CONFIGURATION.md, and its `--check` (CI) fails when a variable config.ts reads has no
// row here, or a row names a variable config.ts does not read. Links are relative to docs/.
import { ROLE_NAMES } from './config.js';
import { DEFAULT_RETRY_SCHEDULE } from './lib/config-values.js';

export interface VariableDoc {
  /** The table this row is in (a heading of docs/CONFIGURATION.md). */
  readonly group: string;
  /** Markdown, one paragraph. */
  readonly meaning: string;
  /** The default in words, when config.ts derives it instead of declaring a value. */
  readonly default?: string;
  /** What it accepts, when config.ts parses it itself instead of through a typed reader. */
  readonly accepts?: string;
}

const SERVER = 'Server';
const STORAGE = 'Storage and cache';
const CHAIN = 'Chain';
const LIMITS = 'Authentication and limits';
const BLINKS = 'Blinks and built transactions';
const WEBHOOKS = 'Webhooks and e-mail';
const DEMO = 'Demo';
const CLI = "The CLI's owner commands";

export const CONFIG_VARIABLES: Readonly<Record<string, VariableDoc>> = {
  PORT: {
    group: SERVER,
    meaning:
      'where the process listens: the API, or only `/livez`, `/readyz` and `/metrics` without the `api` role',
  },
  HOST: {
    group: SERVER,
    default: '`0.0.0.0`; `127.0.0.1` with `DEMO_MODE`',
    meaning:
      'the address the process listens on; in demo mode only a loopback address (`127.0.0.1`, `::1`, `localhost`)',
  },
  METRICS_TOKEN: {
    group: SERVER,
    default: 'unset: `/metrics` is public',
    accepts: '24 to 512 characters of `A-Z a-z 0-9 . _ ~ + / = -` (`openssl rand -base64 32`)',
    meaning:
      'when set, `/metrics` answers only `Authorization: Bearer <token>`, else `401` in the error envelope ([a token for /metrics](OPERATIONS.md#a-token-for-metrics))',
  },
  ROLES: {
    group: SERVER,
    default: `\`${ROLE_NAMES.join(',')}\``,
    accepts: `a comma-separated subset of ${ROLE_NAMES.map((r) => `\`${r}\``).join(', ')}`,
    meaning: 'which roles this process runs ([roles](OPERATIONS.md#roles))',
  },
  PUBLIC_BASE_URL: {
    group: SERVER,
    default: '`http://localhost:$PORT`',
    meaning:
      'base of Blink URLs, Action links, approval pages and the icon; its host is the `Domain` request-bound signatures carry ([AUTH.md](AUTH.md#binding-a-signature-to-its-request)). In production the public `https://` origin',
  },
  LOG_LEVEL: {
    group: SERVER,
    meaning:
      'lines are JSON, or human-readable (pino-pretty) when stdout is a terminal ([logs](OPERATIONS.md#request-ids-and-logs))',
  },
  TRUST_PROXY: {
    group: SERVER,
    default: '`false`',
    accepts: '`true`, `false`, a hop count, or comma-separated proxy addresses/CIDRs',
    meaning:
      "whose `X-Forwarded-For` to believe for the client address (rate limits, stream caps, logs). `false`: the TCP peer; right when clients connect directly. A hop count `N`: the address the `N`-th proxy from us appended; right behind `N` proxies in a row (`1` behind one load balancer); clients cannot choose their address. Addresses/CIDRs (`10.0.0.0/8,127.0.0.1`): every hop from those proxies; right when the proxies' addresses are known and fixed. `true`: every entry, so the leftmost, which the client writes; right only when your proxy replaces the header instead of appending to it (a warning at start says so). A hop count or `true` with a public `HOST` (`0.0.0.0`, `::`) also warns at start",
  },
  CLIENT_IPV6_PREFIX: {
    group: SERVER,
    meaning:
      'IPv6 clients are counted (rate limits, stream caps, the `client` of log lines) by their subnet of this many bits; an IPv4 client, or an IPv4-mapped IPv6 one, by its address; anything else in `X-Forwarded-For` as one client, `invalid`',
  },
  REQUEST_BODY_TIMEOUT_MS: {
    group: SERVER,
    meaning:
      'a request whose headers and body have not arrived in full within this is answered `408` ([slow clients](API.md#slow-clients))',
  },
  DATABASE_URL: {
    group: STORAGE,
    default: 'unset',
    accepts: '`postgres://…` (or `postgresql://…`), `memory://`, or unset',
    meaning:
      'unset: embedded PGlite in `DATA_DIR` ([one process per data directory](OPERATIONS.md#one-process-per-data-directory)); `postgres://…`: PostgreSQL; `memory://`: in-memory PGlite (lost at exit)',
  },
  DATA_DIR: {
    group: STORAGE,
    meaning:
      'where embedded PGlite keeps its files: created `0700`, its files owner-only, one process at a time ([one writer per data directory](OPERATIONS.md#one-writer-per-data-directory))',
  },
  DATABASE_POOL_SIZE: {
    group: STORAGE,
    meaning:
      "PostgreSQL connections each process opens at most (4 or more: the ingestor lock and the delivery listener may each hold one); keep instances × this under the server's `max_connections`. On a small machine that also runs PostgreSQL, fewer can serve more: on the 2-core benchmark machine, 6 served about 10 % more uncached list reads than 10. When all are busy a request waits up to 30 s for one: a burst queues rather than failing",
  },
  REDIS_URL: {
    group: STORAGE,
    meaning:
      'Redis for the cache, rate-limit counters and the signature replay guard, shared by instances; unset: in process',
  },
  READ_CACHE: {
    group: STORAGE,
    meaning: 'cache public reads ([caching](API.md#caching)); `false` reads the database every time',
  },
  SOLANA_CLUSTER: { group: CHAIN, meaning: 'the cluster the vault program runs on' },
  SOLANA_RPC_URL: {
    group: CHAIN,
    default: "the cluster's public RPC",
    meaning:
      'JSON-RPC endpoints, in order of preference: calls go to the first one not cooling down after a connection error, timeout, 5xx or 429 ([RPC endpoints](OPERATIONS.md#rpc-endpoints)). Only scheme and host are ever logged',
  },
  SOLANA_WS_URL: {
    group: CHAIN,
    default: 'derived from each RPC URL',
    meaning:
      'PubSub endpoints paired with the RPC URLs by position (a missing one is derived, port + 1 when the RPC URL names a port)',
  },
  SOLANA_GRPC_URL: {
    group: CHAIN,
    default: 'unset: the WebSocket log subscription is the live source',
    meaning:
      "a Yellowstone (Dragon's Mouth) gRPC endpoint, e.g. Helius LaserStream, Triton or QuickNode: the live source, with replay from a slot after a reconnect ([gRPC source](OPERATIONS.md#grpc-source)). Only scheme and host are ever logged",
  },
  SOLANA_GRPC_TOKEN: {
    group: CHAIN,
    default: 'unset: no token sent',
    meaning: "the provider's access token, sent as the `x-token` metadata; never logged",
  },
  GRPC_FALLBACK_MS: {
    group: CHAIN,
    meaning:
      'how long the gRPC stream may stay unreachable before the WebSocket source takes over (until the stream is back)',
  },
  VAULT_PROGRAM_ID: { group: CHAIN, accepts: 'a base58 32-byte address', meaning: 'the vault program' },
  BACKFILL: {
    group: CHAIN,
    default: '`all`',
    accepts: '`all`, `none`, or a positive signature count',
    meaning: 'how far back a first start reads history ([chain ingestion](OPERATIONS.md#chain-ingestion))',
  },
  BACKFILL_INTERVAL_SECONDS: { group: CHAIN, meaning: 'safety-net backfill period' },
  LIVE_ACCOUNTS: {
    group: CHAIN,
    meaning:
      "budget and check ([AGENTS.md](AGENTS.md)) answer from the vaults' accounts held by WebSocket subscription, exactly as a fresh read would; `false` reads them from the RPC (one `getMultipleAccounts`) on every request",
  },
  LIVE_ACCOUNTS_MAX_VAULTS: {
    group: CHAIN,
    meaning:
      'vaults held live at most (two subscriptions each, plus one for the Clock); reading another lets the least recently read go',
  },
  LIVE_ACCOUNTS_IDLE_SECONDS: {
    group: CHAIN,
    meaning:
      'a vault not read for this long is let go (its subscriptions end; with none left, the connection closes)',
  },
  AUTH_MAX_AGE_SECONDS: {
    group: LIMITS,
    meaning: 'how old a signed authentication message may be ([AUTH.md](AUTH.md))',
  },
  AUDIT_RETENTION_DAYS: {
    group: LIMITS,
    meaning:
      "audit entries older than this many days are deleted by the worker role's cleanup job; nothing else removes one ([AUDIT.md](AUDIT.md#retention))",
  },
  AUTH_REQUIRE_REQUEST_BINDING: {
    group: LIMITS,
    meaning:
      '`true` refuses wallet signatures whose message does not name its request ([binding](AUTH.md#binding-a-signature-to-its-request)); `false` is a compatibility switch for clients that sign only the two unbound lines, and logs a warning at start',
  },
  RATE_LIMIT_ENABLED: {
    group: LIMITS,
    meaning:
      "the per-client budgets ([rate limits](API.md#rate-limits)); `false` only for tests and benchmarks' labelled diagnostics (benchmarks run with the limits on)",
  },
  SSE_MAX_STREAMS: {
    group: LIMITS,
    meaning:
      'event streams (`/api/events/stream`) this process holds open at once, all clients together; one client address holds at most 5, one network (an IPv4 /24, an IPv6 /48) a tenth, and the last tenth is kept for networks holding fewer than 5 ([event streams](API.md#event-streams))',
  },
  APPROVAL_MAX_CONFIRMS: {
    group: LIMITS,
    meaning:
      'approve confirmations (`POST …/approve/confirm`) this process polls the cluster for at once, all clients together; one client address holds at most 2 ([what one address can cost the RPC node](BLINKS.md#what-one-address-can-cost-the-rpc-node))',
  },
  APPROVAL_MAX_SIMULATIONS: {
    group: LIMITS,
    meaning:
      'approve previews and approve transactions this process reads, simulates and prices at once, all clients together; one client address holds at most 2 (same section)',
  },
  APPROVAL_WAITS_PER_CLIENT: {
    group: LIMITS,
    meaning:
      'approval waits (`GET …/approvals/:signature?waitMs=`, MCP `wait_for_approval`) one client address holds at once; one more is 429 ([held waits](AGENTS.md#how-many-waits-are-held))',
  },
  APPROVAL_WAITS_PER_NETWORK: {
    group: LIMITS,
    meaning:
      'approval waits one network (an IPv4 /24, an IPv6 /48) holds at once, all its addresses together (at least `APPROVAL_WAITS_PER_CLIENT`); one more is 429',
  },
  APPROVAL_WAITS_MAX: {
    group: LIMITS,
    meaning:
      'approval waits this process holds at once, all clients together; one more is 503, and the last tenth is kept for networks holding fewer than `APPROVAL_WAITS_PER_CLIENT`',
  },
  ACTIONS_STATE_SECRET: {
    group: BLINKS,
    default: 'unset: a random key per process',
    accepts: 'at least 32 characters',
    meaning:
      "HMAC key of the Blink reject flow's `state`, the same on every instance ([rejecting](BLINKS.md#rejecting))",
  },
  PRIORITY_FEE: {
    group: BLINKS,
    default: '`auto`',
    accepts: '`auto`, `off`, or a whole number of micro-lamports per compute unit',
    meaning:
      'compute unit price of every transaction the service builds: `auto` (a percentile of `getRecentPrioritizationFees` over its writable accounts), `off` (no `SetComputeUnitPrice`), or a fixed price ([transactions that land](BLINKS.md#transactions-that-land))',
  },
  PRIORITY_FEE_PERCENTILE: {
    group: BLINKS,
    meaning: 'the nearest-rank percentile of the recent fees (zeros included) that `auto` takes',
  },
  PRIORITY_FEE_MAX_LAMPORTS: {
    group: BLINKS,
    meaning:
      'the most one transaction may pay in priority fee (price × compute unit limit / 10^6); the price is lowered to fit',
  },
  WEBHOOK_ALLOW_PRIVATE_URLS: {
    group: WEBHOOKS,
    meaning:
      'allow `http://` and private, loopback or link-local webhook targets ([network safety](WEBHOOKS.md#network-safety))',
  },
  WEBHOOK_RETRY_SCHEDULE: {
    group: WEBHOOKS,
    default: `\`${DEFAULT_RETRY_SCHEDULE.join(',')}\``,
    accepts: 'comma-separated seconds',
    meaning: 'seconds before each retry, ±20 % jitter ([retries](WEBHOOKS.md#retries-and-failures))',
  },
  WEBHOOK_TIMEOUT_MS: {
    group: WEBHOOKS,
    meaning: 'a delivery attempt must answer 2xx within this',
  },
  WEBHOOK_SECRETS_KEY: {
    group: WEBHOOKS,
    accepts: 'base64 of 32 random bytes (`openssl rand -base64 32`)',
    meaning:
      'webhook secrets are stored sealed with AES-256-GCM under it; unset stores them plain ([secrets at rest](WEBHOOKS.md#secrets-at-rest))',
  },
  WEBHOOK_SECRETS_KEY_PREVIOUS: {
    group: WEBHOOKS,
    accepts: 'comma-separated keys of the same format; needs `WEBHOOK_SECRETS_KEY`',
    meaning: 'earlier keys, still read while rows move to the current key',
  },
  SMTP_URL: {
    group: WEBHOOKS,
    meaning:
      'enables `mailto:` subscriptions, credentials in the URL ([e-mail](WEBHOOKS.md#e-mail)); the `api` role sends the confirmation mails, so it needs it too',
  },
  EMAIL_FROM: { group: WEBHOOKS, meaning: 'the sender of notification and confirmation mails' },
  DEMO_MODE: {
    group: DEMO,
    meaning:
      '`true` only for `npm run demo`: the approval page offers an in-page demo wallet that signs with `DEMO_OWNER_KEYPAIR` ([the demo](../CONTRIBUTING.md#demo-without-a-cluster)); needs that file; refused unless every RPC endpoint is on a loopback host and serves a local ledger (its genesis hash is none of mainnet-beta, devnet or testnet; asked again on every reconnect, and a changed one switches the demo wallet off), listens on `127.0.0.1` only and gives the demo wallet only to a loopback `Host` ([demo mode](OPERATIONS.md#demo-mode-cannot-run-against-a-real-cluster)). Leave it unset in a deployment',
  },
  DEMO_OWNER_KEYPAIR: {
    group: DEMO,
    accepts: 'a key file path (`solana-keygen` format)',
    meaning:
      "demo mode only: the demo owner's key file, read at start-up; set without `DEMO_MODE=true` it is a configuration error",
  },
  VAULTKEEPER_URL: {
    group: CLI,
    meaning:
      'the service the owner commands call, when `--api-url` is not given (else `PUBLIC_BASE_URL`) ([CLI.md](CLI.md))',
  },
  VAULTKEEPER_API_KEY: {
    group: CLI,
    meaning: 'the `vk_…` API key the owner commands act with, when `--api-key` is not given; never printed',
  },
};
