// The API's resources, queries and bodies as this client sends and receives them. They mirror the
// service's route schemas; the service's test suite compares them with its OpenAPI document.
import type { FeedEventName, Override, Transaction, Vault, WebhookEventName } from '@vaultkeeper/webhooks';

export type {
  BlockReason,
  FeedEventName,
  Lamports,
  Override,
  OverrideStatus,
  Timestamp,
  Transaction as TransactionListItem,
  TransactionStatus,
  Vault,
  VaultTier,
  WebhookEventName,
} from '@vaultkeeper/webhooks';

/** Lamports in a request: a JSON safe integer or a decimal string. */
export type LamportsInput = number | string;

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  pages: number;
}

export interface PageQuery {
  page?: number;
  limit?: number;
}

export interface Health {
  status: 'healthy' | 'degraded' | 'unhealthy';
  database: 'connected' | 'disconnected';
  redis: 'connected' | 'disconnected' | 'in-memory';
  /** Seconds since the process started. */
  uptime: number;
  timestamp: string;
  version: string;
  chain: {
    status: 'connected' | 'connecting' | 'disconnected';
    cluster: string;
    lastSlot: number | null;
    lastEventAt: string | null;
    lagSeconds: number | null;
  };
  /** Milliseconds, last 5 minutes. */
  responseTime: { p50: number; p95: number; p99: number };
  /** Share of 5xx responses, last 5 minutes. */
  errorRate: number;
}

/** A vault as lists show it. */
export interface VaultListItem {
  id: string;
  address: string;
  authority: string;
  agentSigner: string;
  dailyLimit: string;
  name: string;
  createdAt: string;
  transactionCount: number;
  totalVolume: string;
}

export interface VaultList {
  vaults: VaultListItem[];
  pagination: Pagination;
}

export interface VaultListQuery extends PageQuery {
  /** Only vaults whose authority (owner) is this address. */
  owner?: string;
}

export interface CreateVaultBody {
  /** 1 to 50 characters, at most 50 UTF-8 bytes (stored on-chain). */
  name: string;
  agentSigner: string;
  dailyLimit: LamportsInput;
}

export interface CreateVaultResponse {
  vault: {
    address: string;
    depositAddress: string;
    authority: string;
    agentSigner: string;
    dailyLimit: string;
    name: string;
    /** The vault nonce (u64) seeding the vault address. */
    nonce: string;
  };
  /** Unsigned initialize_vault transaction, wire format, base64; fee payer = the signer. */
  transaction: string;
  message: string;
}

export interface UpdateVaultBody {
  /** Off-chain display name, applied at once. */
  name?: string;
  dailyLimit?: LamportsInput;
  agentSigner?: string;
  paused?: boolean;
  whitelist?: { add?: string[]; remove?: string[] };
}

export interface UpdateVaultResponse {
  vault: Vault;
  /** The on-chain changes, unsigned, base64; null when only the name changed. */
  transaction: string | null;
  message: string;
}

export interface AuthVerifyResponse {
  /** The wallet the request authenticates (a key's creating wallet). */
  wallet: string;
  message: string;
}

/**
 * A transaction in detail (GET /api/transactions/:key, by a list item's `id` or by signature). Lists
 * show `signature` only for executed transfers; the detail shows the Solana transaction the transfer
 * came from: the executing one, or for a blocked transfer the agent's transaction the program failed.
 */
export interface TransactionDetail extends Omit<Transaction, 'signature'> {
  /** Null only while pending (nothing sent yet). */
  signature: string | null;
  /** The Solana Explorer page of `signature`; left out while pending. */
  explorerUrl?: string;
}

export interface TransactionList {
  transactions: Transaction[];
  pagination: Pagination;
}

export interface TransactionListQuery extends PageQuery {
  vault?: string;
  status?: 'executed' | 'blocked' | 'pending';
}

export interface OverrideList {
  overrides: Override[];
  pagination: Pagination;
}

export interface OverrideListQuery extends PageQuery {
  vault?: string;
  /** Only overrides of the vaults this wallet owns; with `status: 'pending'`, only those not yet expired. */
  owner?: string;
  status?: 'pending' | 'approved' | 'rejected' | 'executed';
}

/** An owner's open approvals: every pending, unexpired override across the vaults `owner` owns. */
export interface PendingOverrideQuery extends PageQuery {
  owner: string;
}

export interface AnalyticsQuery {
  /** Only this vault; omitted: every vault. */
  vault?: string;
  /** YYYY-MM-DD (a UTC day) or an ISO 8601 timestamp. */
  startDate?: string;
  /** YYYY-MM-DD (a UTC day) or an ISO 8601 timestamp; default now. */
  endDate?: string;
  groupBy?: 'day' | 'week' | 'month';
}

export interface Analytics {
  vault: string | null;
  period: { start: string; end: string };
  summary: {
    totalSpent: string;
    transactionCount: number;
    blockedCount: number;
    averageAmount: string;
    successRate: number;
    totalFees: string;
  };
  topDestinations: { address: string; amount: string; count: number }[];
  spendingByPeriod: { period: string; amount: string; count: number }[];
}

export interface RealtimeQuery {
  /** The vault address. */
  vault: string;
}

export interface Realtime {
  vault: string;
  timestamp: string;
  balance: string;
  spentToday: string;
  dailyLimit: string;
  utilizationPct: number;
  transactionsToday: number;
  lastTransaction: string | null;
  lastReset: string | null;
}

/**
 * What a vault's agent may still send (GET /api/vaults/:address/budget), read from the chain: the vault's
 * account, its deposit address and the cluster's Clock, as of `slot`. Lamports as decimal strings.
 */
export interface Budget {
  vault: string;
  slot: number;
  /** The Clock's time at `slot`: the cluster's clock, which the program judges windows by. */
  asOf: string;
  /** While true the program refuses every transfer. */
  paused: boolean;
  /** The only key the program accepts an agent transfer from. */
  agentSigner: string;
  dailyLimit: string;
  /** Spent in the running window; "0" once it has lapsed. */
  spentToday: string;
  /** max(0, dailyLimit − spentToday). */
  remaining: string;
  /** When the running window opened; null when it has lapsed (the next transfer opens one). */
  windowStart: string | null;
  /** windowStart + 24 h, when remaining returns to dailyLimit; null when the window has lapsed. */
  resetsAt: string | null;
  /** Lamports at the deposit address. */
  balance: string;
  /** The protocol fee on top of each amount: floor(amount × feeBasisPoints / 10 000). */
  feeBasisPoints: number;
  /** The largest amount that fits both remaining and balance with its fee; "0" while paused. */
  maxTransfer: string;
  /** Destinations the agent may pay; empty = any destination. */
  whitelist: string[];
  /** Open approval requests (pending, not expired by the Clock), newest first, at most 100. */
  pendingApprovals: Override[];
  pendingApprovalsTotal: number;
}

/** A transfer to check before sending it (GET /api/vaults/:address/check). */
export interface TransferCheckQuery {
  destination: string;
  /** Lamports: a safe integer, a decimal string or a bigint, 1..2^64-1. */
  amount: string | number | bigint;
  /** The key the agent would sign with; another than the vault's agent signer is refused. */
  agent?: string;
}

/** What the program would do with a transfer now. */
export interface TransferCheck {
  vault: string;
  destination: string;
  amount: string;
  /** The protocol fee the program would add on top of the amount. */
  fee: string;
  /** allowed: it would execute; blocked: TransactionBlocked, the transaction fails; refused: it fails before the policy runs. */
  verdict: 'allowed' | 'blocked' | 'refused';
  reason:
    | 'not_whitelisted'
    | 'exceeded_daily_limit'
    | 'insufficient_funds'
    | 'vault_paused'
    | 'wrong_agent'
    | null;
  /** possible: the block would ask the owner for an approval (whitelist or limit). */
  approval: 'possible' | 'none';
  /** What the window would have left after it; null unless allowed. */
  remainingAfter: string | null;
  slot: number;
  asOf: string;
}

/** A proposed policy to replay against the vault's recent transfers (POST /api/vaults/:address/policy-preview). */
export interface PolicyPreviewRequest {
  /** The proposed daily limit in lamports: a safe integer or a decimal string, 1..2^64-1. */
  dailyLimit?: string | number;
  /** The proposed whitelist, whole (at most 20 addresses); [] = any destination. */
  whitelist?: string[];
  /** Start of the replayed period (ISO 8601); default 30 days back, at most 90. */
  since?: string;
}

export interface PolicyPreviewChange {
  signature: string | null;
  timestamp: string;
  destination: string;
  amount: string;
  /** What the program did. */
  was: 'executed' | 'blocked';
  wasReason: 'not_whitelisted' | 'exceeded_daily_limit' | 'insufficient_funds' | null;
  /** What it would do under the proposal. */
  would: 'executed' | 'blocked';
  wouldReason: 'not_whitelisted' | 'exceeded_daily_limit' | 'insufficient_funds' | null;
}

/** The replay of a proposed policy: a summary and the transfers whose outcome would differ. */
export interface PolicyPreview {
  vault: string;
  period: { start: string; end: string };
  current: { dailyLimit: string; whitelist: string[] };
  proposed: { dailyLimit: string; whitelist: string[] };
  summary: {
    attempts: number;
    newlyBlocked: number;
    newlyAllowed: number;
    newlyBlockedVolume: string;
    newlyAllowedVolume: string;
    blockedUnderProposal: number;
    executedUnderProposal: number;
  };
  /** Oldest first, at most 100. */
  changes: PolicyPreviewChange[];
  /** True when more than 100 transfers would change. */
  truncated: boolean;
}

/** json: the signed envelope; slack, discord, telegram: that platform's own message body (unsigned). */
export type WebhookFormat = 'json' | 'slack' | 'discord' | 'telegram';

export interface WebhookSubscription {
  id: string;
  /** A chat destination shows only its origin and last 4 characters (its URL holds a secret). */
  url: string;
  format: WebhookFormat;
  events: string[];
  /** Vault address; null = every vault of the owner. */
  vault: string | null;
  active: boolean;
  /** False for a mailto: address until its recipient confirms. */
  verified: boolean;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookWithSecret extends WebhookSubscription {
  /** whsec_… signing secret; shown only in this response. */
  secret: string;
}

export interface WebhookList {
  webhooks: WebhookSubscription[];
  pagination: Pagination;
}

export interface CreateWebhookBody {
  /** https:// receiver, a Slack, Discord or Telegram webhook URL, or mailto:address when the service sends e-mail. */
  url: string;
  /** Omitted: detected from the URL (Slack, Discord, Telegram), else json. */
  format?: WebhookFormat;
  events: WebhookEventName[];
  /** Vault address; omitted = every vault the caller owns, now and later. */
  vault?: string;
}

export interface UpdateWebhookBody {
  url?: string;
  /** Omitted with a new url: detected from it; omitted without one: unchanged. */
  format?: WebhookFormat;
  events?: WebhookEventName[];
  /** True re-enables a disabled subscription. */
  active?: boolean;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** `failing`: the last attempt failed, still retrying or exhausted (`failed` is exhausted only). */
export type DeliveryFilter = DeliveryStatus | 'failing';

export interface DeliveriesQuery extends PageQuery {
  status?: DeliveryFilter;
}

export interface RecoverBody {
  /** ISO 8601 date or date-time, at most 14 days back. */
  since: string;
}

export interface Recovered {
  /** How many deliveries were queued to be sent again now (oldest first, at most 100 a call). */
  requeued: number;
  /** Failing deliveries since then left for another call, once the cooldown has passed. */
  remaining: number;
  /** Seconds before this subscription may be recovered again (0 when nothing was queued). */
  cooldownSeconds: number;
}

export interface DeliveryAttempt {
  attempt: number;
  startedAt: string;
  durationMs: number;
  /** HTTP status, or SMTP reply code for e-mail. */
  statusCode: number | null;
  error: string | null;
  /** First 1 KiB of the response. */
  responseBody: string | null;
}

export interface WebhookDelivery {
  /** Also the webhook-id header and the payload id. */
  id: string;
  webhookId: string;
  /** An event name, or webhook.test. */
  event: string;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  completedAt: string | null;
  /** What is signed and sent (the body adds `signature`). */
  payload: { id: string; event: string; timestamp: string; data: Record<string, unknown> };
  attempts: DeliveryAttempt[];
}

export interface DeliveryList {
  deliveries: WebhookDelivery[];
  pagination: Pagination;
}

/** An API key as listed: never the key itself. */
export interface ApiKey {
  id: string;
  name: string;
  /** The key's first 10 characters (`vk_` and 7 more), to tell keys apart. */
  prefix: string;
  createdAt: string;
  /** When a request last used it (updated at most once a minute); null when never. */
  lastUsedAt: string | null;
}

export interface ApiKeyWithKey extends ApiKey {
  /** `vk_…`: shown only in this response. */
  key: string;
}

export interface ApiKeyList {
  apiKeys: ApiKey[];
}

export interface CreateApiKeyBody {
  /** 1 to 64 characters. */
  name: string;
}

export interface ActionsJson {
  rules: { pathPattern: string; apiPath: string }[];
}

export interface ActionMetadata {
  type: 'action';
  icon: string;
  title: string;
  description: string;
  label: string;
  disabled?: boolean;
  links: { actions: { type: 'transaction' | 'message'; label: string; href: string }[] };
  error?: { message: string };
}

/** The Actions ActionPostRequest body. */
export interface ActionPostRequest {
  /** The wallet that signs: must be the vault authority. */
  account: string;
  type?: 'transaction' | 'message' | 'post' | 'external-link';
  data?: Record<string, unknown>;
}

export interface ActionTransaction {
  type: 'transaction';
  /** Unsigned wire transaction, base64; fee payer = account; simulated, compute budget first. */
  transaction: string;
  message: string;
  /** Action chaining: POST `{ account, signature }` to `next.href` once the transaction is sent. */
  links: { next: { type: 'post'; href: string } };
}

/** GET /api/overrides/:vault/:nonce/preview: the query besides the request's address. */
export interface ApprovalPreviewQuery {
  /** The wallet that would sign: the vault authority. */
  account: string;
  /** The blocked transfer, for every request but the nonce's first. */
  transfer?: string;
}

/** One account's lamports before and after the simulated approve (decimal strings; `delta` signed). */
export interface BalanceChange {
  address: string;
  /** `payer`: the signing wallet, which pays the fees (and the override account's rent when it is created). */
  role: 'payer' | 'vault' | 'destination' | 'treasury';
  before: string;
  after: string;
  delta: string;
}

/** What approving signs and does: the approve transaction for `account`, simulated. */
export interface TransactionPreview {
  /** Instruction names in order, the compute budget ones included. */
  instructions: string[];
  /** The SetComputeUnitLimit the transaction carries; null when the simulation failed. */
  computeUnits: number | null;
  priorityFeeLamports: string;
  networkFeeLamports: string;
  /** Why approving now would fail (then `balanceChanges` is empty), or null. */
  simulationError: {
    message: string;
    programError: { code: number; name: string } | null;
    runtimeError: string | null;
  } | null;
  balanceChanges: BalanceChange[];
}

/** Action chaining after approve: the transaction the wallet sent. */
export interface ConfirmApproveBody {
  account: string;
  /** base58 signature of the sent approve transaction. */
  signature: string;
  type?: string;
}

/** Solana Actions 2.4 SignMessageData. */
export interface SignMessageData {
  domain: string;
  address: string;
  statement: string;
  nonce: string;
  issuedAt: string;
  chainId?: string;
}

export type RejectResponse =
  | { type: 'post'; message: string }
  | {
      type: 'message';
      data: SignMessageData;
      /** Relay unchanged to links.next. */
      state: string;
      links: { next: { type: 'post'; href: string } };
    };

export interface ConfirmRejectBody {
  account: string;
  type?: string;
  /** base58 ed25519 signature. */
  signature: string;
  /** The SignMessageData that was signed (or its text). */
  data: SignMessageData | string;
  state: string;
}

export interface CompletedAction {
  type: 'completed';
  icon: string;
  title: string;
  description: string;
  label: string;
}

/** What became of the approval request a blocked transfer asked for (GET /api/vaults/:address/approvals/:signature). */
export interface Approval {
  /**
   * pending: the owner has not decided; approved / executed: let through (executed: the transfer was
   * sent); rejected; expired: pending past expiresAt; none: no request for this transfer (not blocked,
   * blocked for funds, or not seen by the service yet).
   */
  status: 'pending' | 'approved' | 'rejected' | 'executed' | 'expired' | 'none';
  /** The override nonce; null when status is none. */
  nonce: string | null;
  /** Lamports; null when the transfer is unknown. */
  amount: string | null;
  destination: string | null;
  expiresAt: string | null;
  /** The request's Blink: share it (or approvalUrl) with the owner. */
  blinkUrl: string | null;
  /** The approval page for a plain browser. */
  approvalUrl: string | null;
}

/** A blocked transfer by its vault and its transaction signature (what the agent holds after a block). */
export interface ApprovalQuery {
  vault: string;
  signature: string;
}

export interface ApprovalWaitOptions extends ApprovalQuery {
  /** Give up after this long and resolve with the pending approval (default 60 000). */
  timeoutMs?: number | undefined;
  /** Stops waiting: the promise rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
}

/** A vault's alert settings (GET/PUT /api/vaults/:address/alerts). */
export interface AlertSettings {
  /** Percentages of the daily limit (1..100, at most 5, distinct); [] turns budget alerts off. */
  budgetThresholds: number[];
  /** More attempts than maxTransfers within windowSeconds sends agent.velocity; null: off. */
  velocity: { windowSeconds: number; maxTransfers: number } | null;
  /** override.expiring is sent when a pending override has at most this many minutes left (1..59). */
  expiryWarningMinutes: number;
}

/** One event of the live feed (GET /api/events/stream). */
export interface FeedEvent {
  /** Increasing; resume after it with Last-Event-ID. */
  id: number;
  /** The event's name, in the webhooks' vocabulary (`transaction.executed`, …). */
  name: FeedEventName;
  /** The vault program's own name for it (`WhitelistUpdated`, …; `Unknown` when not decoded); null for alerts. */
  programEvent: string | null;
  /** The vault it concerns, when it concerns one. */
  vault: string | null;
  /** The Solana transaction that emitted it (for an alert: the one that caused it; null for expiry alerts). */
  signature: string | null;
  eventIndex: number;
  slot: number | null;
  blockTime: string | null;
  instruction: string | null;
  /** The event's fields. */
  data: unknown;
}
