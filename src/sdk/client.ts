// vaultkeeper/client: a typed method for every API route, on fetch (Node 20+, browsers, edge runtimes).
// Request and response types are the route schemas' own (type-only imports: nothing of the server is
// bundled).
import type { Static } from 'typebox';
import type { FeedEvent } from '../domain/live-feed/live-feed.js';
import type {
  ActionMetadataResponse,
  ActionPostBody,
  ActionsJson,
  CompletedAction,
  ConfirmRejectBody,
  RejectResponse,
  TransactionResponse,
} from '../http/routes/actions.schemas.js';
import type {
  AnalyticsQuery,
  AnalyticsResponse,
  RealtimeResponse,
} from '../http/routes/analytics.schemas.js';
import type { AuthVerifyResponse } from '../http/routes/auth.schemas.js';
import type { HealthResponse } from '../http/routes/health.schemas.js';
import type { Override, OverrideList, OverrideListQuery } from '../http/routes/overrides.schemas.js';
import type {
  TransactionDetail,
  TransactionList,
  TransactionListQuery,
} from '../http/routes/transactions.schemas.js';
import type {
  CreateVaultBody,
  CreateVaultResponse,
  UpdateVaultBody,
  UpdateVaultResponse,
} from '../http/routes/vault-writes.schemas.js';
import type { VaultDetail, VaultList, VaultListQuery } from '../http/routes/vaults.schemas.js';
import type {
  CreateWebhookBody,
  DeliveriesQuery,
  Delivery,
  DeliveryList,
  UpdateWebhookBody,
  Webhook,
  WebhookList,
  WebhooksQuery,
  WebhookWithSecret,
} from '../http/routes/webhooks.schemas.js';
import { readEventStream } from './event-stream.js';
import {
  type CallOptions,
  createTransport,
  type Query,
  type Transport,
  type TransportOptions,
} from './transport.js';

export type { FeedEvent } from '../domain/live-feed/live-feed.js';
export { fromBase58, toBase58 } from './encoding.js';
export { buildSignMessageText, type SignMessageData } from './sign-message.js';
export type { KitMessagePartialSigner, MessageSigner, WalletStandardSignMessage } from './signers.js';
export { fromKitSigner, fromSecretKey, fromWalletStandard } from './signers.js';
export type { AuthMode, CallOptions, TransportOptions as ClientOptions } from './transport.js';
export { VaultkeeperError } from './transport.js';

export type Health = Static<typeof HealthResponse>;
export type Vault = Static<typeof VaultDetail>;
export type VaultListItem = Static<typeof VaultList>['vaults'][number];
export type Transaction = Static<typeof TransactionDetail>;
export type TransactionListItem = Static<typeof TransactionList>['transactions'][number];
export type OverrideRequest = Static<typeof Override>;
export type WebhookSubscription = Static<typeof Webhook>;
export type WebhookDelivery = Static<typeof Delivery>;
export type Analytics = Static<typeof AnalyticsResponse>;
export type Realtime = Static<typeof RealtimeResponse>;
export type Pagination = Static<typeof VaultList>['pagination'];

/** The Actions ActionPostRequest body. */
export type ActionPostRequest = Static<typeof ActionPostBody>;

/** Page-less list queries: the iterators walk every page themselves (`limit` sets their page size). */
type Walk<Q> = Omit<Q, 'page'>;
/** Where an override or Action lives: its vault, nonce and (for all but the first) its transfer. */
export interface OverrideAddress {
  vault: string;
  nonce: string | number | bigint;
  transfer?: string | undefined;
}

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

const seg = (value: string | number | bigint) => encodeURIComponent(String(value));

function vaultMethods(t: Transport) {
  const list = (query: Static<typeof VaultListQuery> = {}, o: CallOptions = {}) =>
    t.request<Static<typeof VaultList>>({ method: 'GET', path: '/api/vaults', query, ...o });
  return {
    list,
    /** Every vault (newest first), across pages. */
    all: (query: Walk<Static<typeof VaultListQuery>> = {}, o: CallOptions = {}) =>
      walk(async (page) => {
        const { vaults, pagination } = await list({ ...query, page }, o);
        return { items: vaults, pagination };
      }),
    get: (addressOrId: string, o: CallOptions = {}) =>
      t.request<Vault>({ method: 'GET', path: `/api/vaults/${seg(addressOrId)}`, ...o }),
    /** The unsigned transaction creating a vault owned by the signer. */
    create: (body: Static<typeof CreateVaultBody>, o: CallOptions = {}) =>
      t.request<Static<typeof CreateVaultResponse>>({
        method: 'POST',
        path: '/api/vaults',
        body,
        auth: 'required',
        ...o,
      }),
    update: (addressOrId: string, body: Static<typeof UpdateVaultBody>, o: CallOptions = {}) =>
      t.request<Static<typeof UpdateVaultResponse>>({
        method: 'PATCH',
        path: `/api/vaults/${seg(addressOrId)}`,
        body,
        auth: 'required',
        ...o,
      }),
  };
}

function transactionMethods(t: Transport) {
  const list = (query: Static<typeof TransactionListQuery> = {}, o: CallOptions = {}) =>
    t.request<Static<typeof TransactionList>>({ method: 'GET', path: '/api/transactions', query, ...o });
  return {
    list,
    all: (query: Walk<Static<typeof TransactionListQuery>> = {}, o: CallOptions = {}) =>
      walk(async (page) => {
        const { transactions, pagination } = await list({ ...query, page }, o);
        return { items: transactions, pagination };
      }),
    /** One transfer by signature; `index` picks another transfer of the same transaction. */
    get: (signature: string, query: { index?: number } = {}, o: CallOptions = {}) =>
      t.request<Transaction>({ method: 'GET', path: `/api/transactions/${seg(signature)}`, query, ...o }),
  };
}

function overrideMethods(t: Transport) {
  const list = (query: Static<typeof OverrideListQuery> = {}, o: CallOptions = {}) =>
    t.request<Static<typeof OverrideList>>({ method: 'GET', path: '/api/overrides', query, ...o });
  return {
    list,
    all: (query: Walk<Static<typeof OverrideListQuery>> = {}, o: CallOptions = {}) =>
      walk(async (page) => {
        const { overrides, pagination } = await list({ ...query, page }, o);
        return { items: overrides, pagination };
      }),
    get: ({ vault, nonce, transfer }: OverrideAddress, o: CallOptions = {}) =>
      t.request<OverrideRequest>({
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
  const list = (query: Static<typeof WebhooksQuery> = {}, o: CallOptions = {}) =>
    t.request<Static<typeof WebhookList>>({ method: 'GET', path: '/api/webhooks', query, auth, ...o });
  const deliveries = (id: string, query: Static<typeof DeliveriesQuery> = {}, o: CallOptions = {}) =>
    t.request<Static<typeof DeliveryList>>({
      method: 'GET',
      path: path(id, '/deliveries'),
      query,
      auth,
      ...o,
    });
  return {
    /** Subscribes; the answer's `secret` is shown only here. */
    create: (body: Static<typeof CreateWebhookBody>, o: CallOptions = {}) =>
      t.request<Static<typeof WebhookWithSecret>>({
        method: 'POST',
        path: '/api/webhooks',
        body,
        auth,
        ...o,
      }),
    list,
    all: (query: Walk<Static<typeof WebhooksQuery>> = {}, o: CallOptions = {}) =>
      walk(async (page) => {
        const { webhooks, pagination } = await list({ ...query, page }, o);
        return { items: webhooks, pagination };
      }),
    get: (id: string, o: CallOptions = {}) =>
      t.request<WebhookSubscription>({ method: 'GET', path: path(id), auth, ...o }),
    update: (id: string, body: Static<typeof UpdateWebhookBody>, o: CallOptions = {}) =>
      t.request<WebhookSubscription>({ method: 'PATCH', path: path(id), body, auth, ...o }),
    delete: (id: string, o: CallOptions = {}) =>
      t.request<void>({ method: 'DELETE', path: path(id), auth, ...o }),
    rotateSecret: (id: string, o: CallOptions = {}) =>
      t.request<Static<typeof WebhookWithSecret>>({
        method: 'POST',
        path: path(id, '/rotate-secret'),
        auth,
        ...o,
      }),
    /** Queues a webhook.test delivery. */
    test: (id: string, o: CallOptions = {}) =>
      t.request<WebhookDelivery>({ method: 'POST', path: path(id, '/test'), auth, ...o }),
    deliveries,
    allDeliveries: (id: string, query: Walk<Static<typeof DeliveriesQuery>> = {}, o: CallOptions = {}) =>
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
  };
}

function actionMethods(t: Transport) {
  const path = ({ vault, nonce }: OverrideAddress, rest = '') =>
    `/api/actions/${seg(vault)}/${seg(nonce)}${rest}`;
  const post = <T>(
    at: OverrideAddress,
    rest: string,
    body: unknown,
    auth: 'optional' | 'none',
    o: CallOptions,
  ) =>
    t.request<T>({
      method: 'POST',
      path: path(at, rest),
      query: { transfer: at.transfer },
      body,
      auth,
      ...o,
    });
  return {
    /** actions.json: which URLs of the host are Action APIs. */
    rules: (o: CallOptions = {}) =>
      t.request<Static<typeof ActionsJson>>({ method: 'GET', path: '/actions.json', ...o }),
    /** The Blink metadata of an override. */
    get: (at: OverrideAddress, o: CallOptions = {}) =>
      t.request<Static<typeof ActionMetadataResponse>>({
        method: 'GET',
        path: path(at),
        query: { transfer: at.transfer },
        ...o,
      }),
    /** The unsigned transaction approving the override and executing its transfer; signed when a signer is set. */
    approve: (at: OverrideAddress, body: ActionPostRequest, o: CallOptions = {}) =>
      post<Static<typeof TransactionResponse>>(at, '/approve', body, 'optional', o),
    /** With a signer, rejects at once (`post`); without one, answers the message to sign (`message`). */
    reject: (at: OverrideAddress, body: ActionPostRequest, o: CallOptions = {}) =>
      post<Static<typeof RejectResponse>>(at, '/reject', body, 'optional', o),
    confirmReject: (at: OverrideAddress, body: Static<typeof ConfirmRejectBody>, o: CallOptions = {}) =>
      post<Static<typeof CompletedAction>>(at, '/reject/confirm', body, 'none', o),
  };
}

export interface EventStreamOptions extends CallOptions {
  /** Only this vault's events. */
  vault?: string | undefined;
  /** Resume right after this event id (as after a reconnect). */
  lastEventId?: number | undefined;
}

/** A Vaultkeeper API client. `baseUrl` is the service's PUBLIC_BASE_URL (its host is the signed Domain). */
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
        t.request<Static<typeof AuthVerifyResponse>>({
          method: 'POST',
          path: '/api/auth/verify',
          auth: 'required',
          ...o,
        }),
    },
    vaults: vaultMethods(t),
    transactions: transactionMethods(t),
    overrides: overrideMethods(t),
    analytics: {
      get: (query: Static<typeof AnalyticsQuery> = {}, o: CallOptions = {}) =>
        t.request<Analytics>({ method: 'GET', path: '/api/analytics', query: query as Query, ...o }),
      realtime: (vault: string, o: CallOptions = {}) =>
        t.request<Realtime>({ method: 'GET', path: '/api/analytics/realtime', query: { vault }, ...o }),
    },
    webhooks: webhookMethods(t),
    actions: actionMethods(t),
    events: {
      /** The live event feed (Server-Sent Events) as an async iterator; abort the signal or `break` to close. */
      stream: ({
        vault,
        lastEventId,
        signal,
      }: EventStreamOptions = {}): AsyncGenerator<FeedEvent, void, undefined> =>
        readEventStream<FeedEvent>(() =>
          t.open({
            method: 'GET',
            path: '/api/events/stream',
            query: { vault },
            headers: {
              accept: 'text/event-stream',
              ...(lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) }),
            },
            signal,
          }),
        ),
    },
  };
}

export type VaultkeeperClient = ReturnType<typeof createVaultkeeperClient>;
