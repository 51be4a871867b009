// createServices(deps): every use case the HTTP application serves, built once per process. The chain
// adapters are plugged into the domain's ports here; route plugins receive the services they use.
import { address } from '@solana/kit';
import type { AppDeps } from './app-deps.js';
import { createReadCache, type ReadCache } from './cache/read-cache.js';
import { createAgentTransferChain } from './chain/agent-transfer-chain.js';
import { approvalChain } from './chain/approval-chain.js';
import { readGenesisHash, watchDemoLedger } from './chain/demo-cluster.js';
import { createLandingChain } from './chain/landing-chain.js';
import { createLiveVaultAccounts } from './chain/live-vault-accounts.js';
import { createVaultStateReader } from './chain/vault-state-reader.js';
import { createVaultTransactionBuilder } from './chain/vault-transaction-builder.js';
import { createVaultWindowDecoder } from './chain/vault-window-decoder.js';
import { type ActionService, createActionService } from './domain/actions/action-service.js';
import {
  type AgentTransferService,
  type AgentTransferServiceDeps,
  createAgentTransferService,
} from './domain/agent-transfers/agent-transfer-service.js';
import { type AlertSettingsService, createAlertSettingsService } from './domain/alerts/alert-settings.js';
import { type AnalyticsService, createAnalyticsService } from './domain/analytics/analytics.js';
import { type ApiKeyService, createApiKeyService } from './domain/api-keys/api-key-service.js';
import { createKeyVaultResolver, type KeyVaultResolver } from './domain/api-keys/key-vaults.js';
import { type ApprovalService, createApprovalService } from './domain/approvals/approval-service.js';
import { createApprovalWaitCap } from './domain/approvals/approval-waits.js';
import { type AuditService, createAuditService } from './domain/audit/audit-service.js';
import { createDatabaseClaimStore } from './domain/auth/replay-guard-store.js';
import { createWalletAuth, type WalletAuth } from './domain/auth/wallet-auth.js';
import { type BudgetService, createBudgetService } from './domain/budget/budget-service.js';
import { createDemoGuard, type DemoGuard } from './domain/demo/demo-guard.js';
import { type DemoWallet, loadDemoWallet } from './domain/demo/demo-wallet.js';
import { createExportService, type ExportService } from './domain/exports/export-service.js';
import { createHealthService, type HealthService } from './domain/health/health.js';
import { createReadinessService, type ReadinessService } from './domain/health/readiness.js';
import { createTransactionLanding } from './domain/landing/transaction-landing.js';
import { createLiveFeed, type LiveFeed } from './domain/live-feed/live-feed.js';
import { createOverrideReadService, type OverrideReadService } from './domain/overrides/override-reads.js';
import { createPolicyPreviewService, type PolicyPreviewService } from './domain/policy/policy-preview.js';
import {
  createTransactionReadService,
  type TransactionReadService,
} from './domain/transactions/transaction-reads.js';
import { createVaultReadService, type VaultReadService } from './domain/vaults/vault-reads.js';
import { createVaultWriteService, type VaultWriteService } from './domain/vaults/vault-writes.js';
import { createDeliveryService, type DeliveryService } from './domain/webhooks/delivery-service.js';
import { createSecretBox, type SecretBox } from './domain/webhooks/secret-box.js';
import { createWebhookService, type WebhookService } from './domain/webhooks/webhook-service.js';
import { createEventLoopDelay, type EventLoopDelay } from './lib/event-loop-delay.js';

export interface Services {
  /** The one read cache of the process: concurrent misses of a key share one load. */
  readonly readCache: ReadCache;
  /** The one sealer of webhook secrets at rest (the API stores them, the worker signs with them). */
  readonly secretBox: SecretBox;
  readonly walletAuth: WalletAuth;
  readonly apiKeys: ApiKeyService;
  /** Which vault a request of a key limited to some vaults acts on. */
  readonly keyVaults: KeyVaultResolver;
  /** The audit trail: requests' writes are recorded through it, and owners read it. */
  readonly audit: AuditService;
  readonly vaults: VaultReadService;
  readonly vaultWrites: VaultWriteService;
  readonly alerts: AlertSettingsService;
  readonly transactions: TransactionReadService;
  readonly overrides: OverrideReadService;
  readonly analytics: AnalyticsService;
  /** Owners' CSV and JSON Lines exports, streamed, at most two at once per owner. */
  readonly exports: ExportService;
  /** An agent's budget and pre-flight check, from the chain's state (live accounts unless LIVE_ACCOUNTS=false). */
  readonly budget: BudgetService;
  /** An agent's transfer built (checked, made to land) and relayed once it signed it. */
  readonly agentTransfers: AgentTransferService;
  /** The owner's policy preview: the vault's recent attempts replayed under a proposed limit or whitelist. */
  readonly policyPreview: PolicyPreviewService;
  /** The owner's decision on a blocked transfer's override, by the transfer's signature, read now or held. */
  readonly approvals: ApprovalService;
  readonly actions: ActionService;
  readonly webhooks: WebhookService;
  readonly deliveries: DeliveryService;
  readonly liveFeed: LiveFeed;
  readonly health: HealthService;
  readonly readiness: ReadinessService;
  /** The one event-loop monitor of the process (/livez). */
  readonly eventLoopDelay: EventLoopDelay;
  /** DEMO_MODE only (`npm run demo`): the demo owner's key for the approval page's demo wallet. */
  readonly demoWallet: DemoWallet | null;
  /** DEMO_MODE only: whether the demo's RPC still serves its local ledger (checked on every reconnect). */
  readonly demoGuard: DemoGuard | null;
  /** Stops what the services hold open (feed polling, the loop monitor) and saves pending Blink views. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** How long a live chain read may take before the request fails with RPC_UNAVAILABLE. */
  readonly chainTimeoutMs?: number;
}

const CHAIN_TIMEOUT_MS = 3_000;

export function createServices(deps: AppDeps, options: ServiceOptions = {}): Services {
  const { config, storage, clock } = deps;
  const programId = address(config.programId);
  const readCache = createReadCache({ cache: deps.cache, metrics: deps.metrics, enabled: config.readCache });
  const secretBox = createSecretBox(config.webhookSecretsKeys);
  const webhooks = createWebhookService({
    db: storage.db,
    clock,
    urlPolicy: { allowPrivateUrls: config.webhookAllowPrivateUrls, emailEnabled: config.smtpUrl !== null },
    secretBox,
    mailer: deps.confirmationMailer,
    publicBaseUrl: config.publicBaseUrl,
  });
  const landingChain = createLandingChain(deps.rpc, programId);
  const landing = createTransactionLanding({
    chain: landingChain,
    settings: config.priorityFee,
    clock,
    logger: deps.logger,
  });
  const actions = createActionService({ ...deps, readCache, chain: approvalChain, landing, landingChain });
  const liveFeed = createLiveFeed({ storage });
  const eventLoopDelay = createEventLoopDelay();
  const vaults = createVaultReadService({ db: storage.db, readCache });
  const chainTimeoutMs = options.chainTimeoutMs ?? CHAIN_TIMEOUT_MS;
  const budget = createBudget(deps, vaults, chainTimeoutMs);
  const approvals = createApprovals(deps);
  const demo = createDemo(deps);
  reportInProcessSizes(deps, { actions, liveFeed, approvals });
  return {
    readCache,
    secretBox,
    walletAuth: createWalletAuth({
      cache: deps.cache,
      // Only a shared cache can fail over: the in-process one never refuses to answer.
      claimStore: deps.cache.kind === 'redis' ? createDatabaseClaimStore(storage) : undefined,
      clock,
      maxAgeSeconds: config.authMaxAgeSeconds,
      domain: new URL(config.publicBaseUrl).host,
      requireRequestBinding: config.authRequireRequestBinding,
    }),
    apiKeys: createApiKeyService({ db: storage.db, clock }),
    keyVaults: createKeyVaultResolver({ db: storage.db }),
    audit: createAuditService({ db: storage.db, clock }),
    vaults,
    vaultWrites: createVaultWriteService({
      db: storage.db,
      cache: deps.cache,
      clock,
      landing,
      transactions: createVaultTransactionBuilder(programId),
    }),
    alerts: createAlertSettingsService({ db: storage.db, clock }),
    transactions: createTransactionReadService({
      storage,
      readCache,
      links: { publicBaseUrl: config.publicBaseUrl, cluster: config.cluster },
    }),
    overrides: createOverrideReadService({
      db: storage.db,
      readCache,
      clock,
      publicBaseUrl: config.publicBaseUrl,
    }),
    analytics: createAnalyticsService({
      storage,
      clock,
      readCache,
      rpc: deps.rpc,
      decodeVaultWindow: createVaultWindowDecoder(programId, deps.logger),
      chainTimeoutMs,
      logger: deps.logger,
    }),
    exports: createExportService({ storage, clock }),
    budget: budget.service,
    agentTransfers: createAgentTransfers(deps, { budget: budget.service, landing, landingChain, approvals }),
    policyPreview: createPolicyPreviewService({ storage, clock, metrics: deps.metrics }),
    approvals,
    actions,
    webhooks,
    deliveries: createDeliveryService({ db: storage.db, clock, webhooks }),
    liveFeed,
    health: createHealthService({ ...deps, version: config.version }),
    readiness: createReadinessService({ ...deps, roles: config.roles }),
    eventLoopDelay,
    demoWallet: demo?.wallet ?? null,
    demoGuard: demo?.guard ?? null,
    async close() {
      demo?.unwatch();
      budget.close();
      approvals.close();
      liveFeed.close();
      eventLoopDelay.close();
      await actions.close();
    },
  };
}

/** An agent's transfers: the build on the budget's check and the landing, the relay on the approvals. */
function createAgentTransfers(
  deps: AppDeps,
  parts: Pick<AgentTransferServiceDeps, 'budget' | 'landing' | 'landingChain' | 'approvals'>,
): AgentTransferService {
  return createAgentTransferService({
    ...parts,
    db: deps.storage.db,
    clock: deps.clock,
    chain: createAgentTransferChain(deps.rpc, address(deps.config.programId)),
  });
}

/** DEMO_MODE: the owner's key, and the guard re-checking the ledger whenever a connection is re-established. */
function createDemo(deps: AppDeps) {
  const { config } = deps;
  if (config.demo === null) return null;
  const guard =
    deps.demoGuard ?? createDemoGuard({ endpoints: config.rpcEndpoints, readGenesisHash, log: deps.logger });
  const wallet = loadDemoWallet({
    keypairFile: config.demo.ownerKeypairFile,
    rpcUrl: config.rpcUrl,
    cluster: config.cluster,
  });
  return { wallet, guard, unwatch: watchDemoLedger(deps.rpcEndpoints, guard) };
}

/** Agents' approval reads and held waits, under the configured wait caps. */
function createApprovals(deps: AppDeps): ApprovalService {
  return createApprovalService({
    db: deps.storage.db,
    clock: deps.clock,
    publicBaseUrl: deps.config.publicBaseUrl,
    waits: createApprovalWaitCap(deps.config.approvalWaits, deps.metrics),
  });
}

/** What this process holds in memory, as the in-process size gauges. */
function reportInProcessSizes(
  deps: AppDeps,
  held: {
    actions: ActionService;
    liveFeed: ReturnType<typeof createLiveFeed>;
    approvals: ApprovalService;
  },
): void {
  const sizes = deps.metrics.inProcessSizes;
  sizes.set('approval_confirms', () => held.actions.openApprovalWork().confirms);
  sizes.set('approval_simulations', () => held.actions.openApprovalWork().simulations);
  sizes.set('cache_entries', () => deps.cache.localEntries());
  sizes.set('live_feed_listeners', held.liveFeed.listenerCount);
  sizes.set('approval_waits', held.approvals.waiting);
}

/** The budget and check, reading through live accounts (LIVE_ACCOUNTS, the default) or afresh each time. */
function createBudget(deps: AppDeps, vaults: VaultReadService, chainTimeoutMs: number) {
  const { config } = deps;
  const programId = address(config.programId);
  const live = config.liveAccounts.enabled
    ? createLiveVaultAccounts({
        rpc: deps.rpc,
        rpcEndpoints: deps.rpcEndpoints,
        programId,
        logger: deps.logger,
        maxVaults: config.liveAccounts.maxVaults,
        idleMs: config.liveAccounts.idleSeconds * 1000,
        onRead: (source) => deps.metrics.vaultStateReads.labels(source).inc(),
      })
    : null;
  if (live !== null) deps.metrics.inProcessSizes.set('live_vaults', live.size);
  const service = createBudgetService({
    db: deps.storage.db,
    getVault: (idOrAddress) => vaults.getVault(idOrAddress),
    chain: live ?? createVaultStateReader({ rpc: deps.rpc, programId, logger: deps.logger }),
    publicBaseUrl: config.publicBaseUrl,
    chainTimeoutMs,
    logger: deps.logger,
  });
  return { service, close: () => live?.close() };
}
