// @vaultkeeper/client: a typed method for every API route, on fetch (Node 20+, browsers, edge runtimes).
import { agentMethods } from './agents.js';
import { actionMethods, approvalMethods, type OverrideAddress } from './approvals.js';
import { exportMethods } from './exports.js';
import { type EventStreamOptions, followEvents } from './live-feed.js';
import {
  type CallOptions,
  createTransport,
  type Query,
  pathSegment as seg,
  type Transport,
  type TransportOptions,
} from './transport.js';
import type {
  AlertSettings,
  Analytics,
  AnalyticsQuery,
  ApiKeyList,
  ApiKeyWithKey,
  AuditPage,
  AuditQuery,
  AuthVerifyResponse,
  Budget,
  CreateApiKeyBody,
  CreateVaultBody,
  CreateVaultResponse,
  CreateWebhookBody,
  DeliveriesQuery,
  DeliveryList,
  FeedEvent,
  Health,
  Override,
  OverrideList,
  OverrideListQuery,
  PageQuery,
  Pagination,
  PendingOverrideQuery,
  PolicyPreview,
  PolicyPreviewRequest,
  Realtime,
  RealtimeQuery,
  RecoverBody,
  Recovered,
  TransactionDetail,
  TransactionList,
  TransactionListQuery,
  TransferCheck,
  TransferCheckQuery,
  UpdateVaultBody,
  UpdateVaultResponse,
  UpdateWebhookBody,
  Vault,
  VaultList,
  VaultListQuery,
  WebhookDelivery,
  WebhookList,
  WebhookSubscription,
  WebhookWithSecret,
} from './types.js';

export { FEED_EVENTS, isFeedEventName } from '@vaultkeeper/webhooks';
export type {
  AgentTransferInput,
  AgentTransferOutcome,
  KitTransaction,
  KitTransactionSigner,
} from './agents.js';
export { signWireTransaction } from './agents.js';
export { formatSol } from './amounts.js';
export type {
  ApprovalByTransfer,
  ApprovalInput,
  ApprovalRequest,
  FirstApprovalOfNonce,
  FirstOverrideOfNonce,
  OverrideAddress,
  OverrideByTransfer,
  OverrideReference,
  OverrideTarget,
} from './approvals.js';
export { fromBase58, toBase58 } from './encoding.js';
export type {
  ExportedAuditEntry,
  ExportedOverride,
  ExportedTransaction,
  ExportFile,
  ExportKind,
} from './exports.js';
export type { EventStreamOptions } from './live-feed.js';
export type { KitMessagePartialSigner, MessageSigner, WalletStandardSignMessage } from './signers.js';
export { fromKitSigner, fromSecretKey, fromWalletStandard } from './signers.js';
export type { AuthMode, CallOptions, TransportOptions as ClientOptions } from './transport.js';
export { VaultkeeperError } from './transport.js';
export type * from './types.js';
export {
  API_KEY_PATTERN,
  API_KEY_PREFIX,
  buildSignMessageText,
  type ErrorCode,
} from './wire.js';

/** The transaction detail (GET /api/transactions/:key, by a list item's id or by signature). */
export type Transaction = TransactionDetail;
/** @deprecated Use `Override`. */
export type OverrideRequest = Override;

/** Page-less list queries: the iterators walk every page themselves (`limit` sets their page size). */
type Walk<Q> = Omit<Q, 'page'>;

/** Yields every item of a paginated list, one page request at a time, in the list's order. */
async function* walk<Item>(
  fetchPage: (page: number) => Promise<{ items: Item[]; pagination: Pagination }>,
): AsyncGenerator<Item, void, undefined> {
  for (let page = 1; ; page += 1) {
    const { items, pagination } = await fetchPage(page);
    yield* items;
    if (page >= pagination.pages || items.length === 0) return;
  }
}

function vaultMethods(t: Transport) {
  const list = (query: VaultListQuery = {}, o: CallOptions = {}) =>
    t.request<VaultList>({ method: 'GET', path: '/api/vaults', query, ...o });
  return {
    list,
    /** Every vault (newest first), across pages. */
    all: (query: Walk<VaultListQuery> = {}, o: CallOptions = {}) =>
      walk(async (page) => {
        const { vaults, pagination } = await list({ ...query, page }, o);
        return { items: vaults, pagination };
      }),
    get: (addressOrId: string, o: CallOptions = {}) =>
      t.request<Vault>({ method: 'GET', path: `/api/vaults/${seg(addressOrId)}`, ...o }),
    /** The unsigned transaction creating a vault owned by the signer. */
    create: (body: CreateVaultBody, o: CallOptions = {}) =>
      t.request<CreateVaultResponse>({
        method: 'POST',
        path: '/api/vaults',
        body,
        auth: 'required',
        ...o,
      }),
    update: (addressOrId: string, body: UpdateVaultBody, o: CallOptions = {}) =>
      t.request<UpdateVaultResponse>({
        method: 'PATCH',
        path: `/api/vaults/${seg(addressOrId)}`,
        body,
        auth: 'required',
        ...o,
      }),
    /** What the vault's agent may still send, until when, and the vault's pending overrides; read from the chain. */
    budget: (vault: string, o: CallOptions = {}) =>
      t.request<Budget>({ method: 'GET', path: `/api/vaults/${seg(vault)}/budget`, ...o }),
    /** The vault's alert settings (owner only). */
    alerts: (addressOrId: string, o: CallOptions = {}) =>
      t.request<AlertSettings>({
        method: 'GET',
        path: `/api/vaults/${seg(addressOrId)}/alerts`,
        auth: 'required',
        ...o,
      }),
    /** Changes the given alert settings (owner only); answers all of them. */
    updateAlerts: (addressOrId: string, body: Partial<AlertSettings>, o: CallOptions = {}) =>
      t.request<AlertSettings>({
        method: 'PUT',
        path: `/api/vaults/${seg(addressOrId)}/alerts`,
        body,
        auth: 'required',
        ...o,
      }),
    /** Whether the program would let this transfer through now, and if not why (costs no transaction). */
    check: (vault: string, { destination, amount, agent }: TransferCheckQuery, o: CallOptions = {}) =>
      t.request<TransferCheck>({
        method: 'GET',
        path: `/api/vaults/${seg(vault)}/check`,
        query: { destination, amount: String(amount), agent },
        ...o,
      }),
    /** Which of the vault's recent transfers a proposed daily limit or whitelist would change (signs nothing). */
    policyPreview: (vault: string, body: PolicyPreviewRequest, o: CallOptions = {}) =>
      t.request<PolicyPreview>({
        method: 'POST',
        path: `/api/vaults/${seg(vault)}/policy-preview`,
        body,
        ...o,
      }),
  };
}

function transactionMethods(t: Transport) {
  const list = (query: TransactionListQuery = {}, o: CallOptions = {}) =>
    t.request<TransactionList>({ method: 'GET', path: '/api/transactions', query, ...o });
  return {
    list,
    all: (query: Walk<TransactionListQuery> = {}, o: CallOptions = {}) =>
      walk(async (page) => {
        const { transactions, pagination } = await list({ ...query, page }, o);
        return { items: transactions, pagination };
      }),
    /**
     * One transfer by a list item's `id` (any status) or by signature; with a signature, `index` picks
     * another transfer of the same transaction.
     */
    get: (idOrSignature: string, query: { index?: number } = {}, o: CallOptions = {}) =>
      t.request<Transaction>({
        method: 'GET',
        path: `/api/transactions/${seg(idOrSignature)}`,
        query,
        ...o,
      }),
  };
}

function overrideMethods(t: Transport) {
  const list = (query: OverrideListQuery = {}, o: CallOptions = {}) =>
    t.request<OverrideList>({ method: 'GET', path: '/api/overrides', query, ...o });
  return {
    list,
    all: (query: Walk<OverrideListQuery> = {}, o: CallOptions = {}) =>
      walk(async (page) => {
        const { overrides, pagination } = await list({ ...query, page }, o);
        return { items: overrides, pagination };
      }),
    /** One page of the owner's pending overrides (not expired) across their vaults, newest first. */
    pending: (query: PendingOverrideQuery, o: CallOptions = {}) => list({ ...query, status: 'pending' }, o),
    /** Every pending override of the owner, across pages. */
    allPending: (query: Walk<PendingOverrideQuery>, o: CallOptions = {}) =>
      walk(async (page) => {
        const { overrides, pagination } = await list({ ...query, status: 'pending', page }, o);
        return { items: overrides, pagination };
      }),
    get: ({ vault, nonce, transfer }: OverrideAddress, o: CallOptions = {}) =>
      t.request<Override>({
        method: 'GET',
        path: `/api/overrides/${seg(vault)}/${seg(nonce)}`,
        query: { transfer },
        ...o,
      }),
  };
}

function webhookMethods(t: Transport) {
  const auth = 'required' as const;
  const path = (id: string, rest = '') => `/api/webhooks/${seg(id)}${rest}`;
  const list = (query: PageQuery = {}, o: CallOptions = {}) =>
    t.request<WebhookList>({ method: 'GET', path: '/api/webhooks', query, auth, ...o });
  const deliveries = (id: string, query: DeliveriesQuery = {}, o: CallOptions = {}) =>
    t.request<DeliveryList>({
      method: 'GET',
      path: path(id, '/deliveries'),
      query,
      auth,
      ...o,
    });
  return {
    /** Subscribes; the answer's `secret` is shown only here. */
    create: (body: CreateWebhookBody, o: CallOptions = {}) =>
      t.request<WebhookWithSecret>({
        method: 'POST',
        path: '/api/webhooks',
        body,
        auth,
        ...o,
      }),
    list,
    all: (query: Walk<PageQuery> = {}, o: CallOptions = {}) =>
      walk(async (page) => {
        const { webhooks, pagination } = await list({ ...query, page }, o);
        return { items: webhooks, pagination };
      }),
    get: (id: string, o: CallOptions = {}) =>
      t.request<WebhookSubscription>({ method: 'GET', path: path(id), auth, ...o }),
    update: (id: string, body: UpdateWebhookBody, o: CallOptions = {}) =>
      t.request<WebhookSubscription>({ method: 'PATCH', path: path(id), body, auth, ...o }),
    delete: (id: string, o: CallOptions = {}) =>
      t.request<void>({ method: 'DELETE', path: path(id), auth, ...o }),
    rotateSecret: (id: string, o: CallOptions = {}) =>
      t.request<WebhookWithSecret>({
        method: 'POST',
        path: path(id, '/rotate-secret'),
        auth,
        ...o,
      }),
    /** Queues a webhook.test delivery. */
    test: (id: string, o: CallOptions = {}) =>
      t.request<WebhookDelivery>({ method: 'POST', path: path(id, '/test'), auth, ...o }),
    deliveries,
    allDeliveries: (id: string, query: Walk<DeliveriesQuery> = {}, o: CallOptions = {}) =>
      walk(async (page) => {
        const { deliveries: items, pagination } = await deliveries(id, { ...query, page }, o);
        return { items, pagination };
      }),
    retryDelivery: (id: string, deliveryId: string, o: CallOptions = {}) =>
      t.request<WebhookDelivery>({
        method: 'POST',
        path: path(id, `/deliveries/${seg(deliveryId)}/retry`),
        auth,
        ...o,
      }),
    /** Sends again now every delivery created since `since` whose last attempt failed. */
    recover: (id: string, body: RecoverBody, o: CallOptions = {}) =>
      t.request<Recovered>({ method: 'POST', path: path(id, '/recover'), body, auth, ...o }),
  };
}

function apiKeyMethods(t: Transport) {
  return {
    /** Creates a key acting as the signing wallet (needs a wallet signer); `key` is shown only here. */
    create: (body: CreateApiKeyBody, o: CallOptions = {}) =>
      t.request<ApiKeyWithKey>({ method: 'POST', path: '/api/api-keys', body, auth: 'wallet', ...o }),
    /** The caller's keys, without the keys themselves. */
    list: (o: CallOptions = {}) =>
      t.request<ApiKeyList>({ method: 'GET', path: '/api/api-keys', auth: 'required', ...o }),
    /** Revokes a key at once: a request carrying it is refused from then on. */
    delete: (id: string, o: CallOptions = {}) =>
      t.request<void>({ method: 'DELETE', path: `/api/api-keys/${seg(id)}`, auth: 'required', ...o }),
  };
}

function auditMethods(t: Transport) {
  return {
    /** A page of the owner's audit trail, newest first; pass `pagination.next` as `before` for the next. */
    list: (query: AuditQuery = {}, o: CallOptions = {}) =>
      t.request<AuditPage>({
        method: 'GET',
        path: '/api/audit',
        query: query as Query,
        auth: 'required',
        ...o,
      }),
  };
}

function analyticsMethods(t: Transport) {
  /** Today's figures of one vault: balance, spent today, utilization. */
  function realtime(query: RealtimeQuery, o?: CallOptions): Promise<Realtime>;
  /** @deprecated Pass `{ vault }`: like every method, realtime takes its query as one object. */
  function realtime(vault: string, o?: CallOptions): Promise<Realtime>;
  function realtime(query: RealtimeQuery | string, o: CallOptions = {}): Promise<Realtime> {
    const vault = typeof query === 'string' ? query : query?.vault;
    return t.request<Realtime>({ method: 'GET', path: '/api/analytics/realtime', query: { vault }, ...o });
  }
  return {
    get: (query: AnalyticsQuery = {}, o: CallOptions = {}) =>
      t.request<Analytics>({ method: 'GET', path: '/api/analytics', query: query as Query, ...o }),
    realtime,
  };
}

/**
 * A Vaultkeeper API client. `baseUrl` is the service's PUBLIC_BASE_URL (its host is the signed Domain);
 * `signer` a wallet signer or an API key (`vk_…`).
 */
export function createVaultkeeperClient(options: TransportOptions) {
  const t = createTransport(options);
  return {
    health: (o: CallOptions = {}) => t.request<Health>({ method: 'GET', path: '/api/health', ...o }),
    /** Prometheus text of /metrics. */
    metrics: (o: CallOptions = {}) =>
      t.request<string>({
        method: 'GET',
        path: '/metrics',
        text: true,
        headers: { accept: 'text/plain' },
        ...o,
      }),
    auth: {
      /** Checks the signer against the service (uses one signature). */
      verify: (o: CallOptions = {}) =>
        t.request<AuthVerifyResponse>({
          method: 'POST',
          path: '/api/auth/verify',
          auth: 'required',
          ...o,
        }),
    },
    vaults: vaultMethods(t),
    transactions: transactionMethods(t),
    overrides: overrideMethods(t),
    analytics: analyticsMethods(t),
    webhooks: webhookMethods(t),
    apiKeys: apiKeyMethods(t),
    /** Owners' exports (CSV or JSON Lines), streamed. */
    exports: exportMethods(t),
    audit: auditMethods(t),
    approvals: approvalMethods(t),
    /** An agent's transfers: built by the service, signed by the caller's key, relayed and confirmed. */
    agents: agentMethods(t),
    actions: actionMethods(t),
    events: {
      /**
       * The live feed (Server-Sent Events) as an async iterator; abort the signal or `break` to close.
       * With `reconnect: true` it opens the stream again after a drop and resumes after the last event.
       */
      stream: (options: EventStreamOptions = {}): AsyncGenerator<FeedEvent, void, undefined> =>
        followEvents(t, options),
    },
  };
}

export type VaultkeeperClient = ReturnType<typeof createVaultkeeperClient>;
