// The API's resources, queries and bodies: aliases of the types openapi-typescript renders from the
// service's OpenAPI document (./generated/openapi.ts, npm run codegen). Hand-written here only what the
// document cannot say: the client's own inputs (bigint amounts, waiting options).
import type { components, operations } from './generated/openapi.js';

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

type S = components['schemas'];
type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Query<O extends keyof operations> = NonNullable<operations[O]['parameters']['query']>;
type Body<O extends keyof operations> = Json<NonNullable<operations[O]['requestBody']>>;
type Reply<O extends keyof operations, C extends keyof operations[O]['responses']> = Json<
  operations[O]['responses'][C]
>;

/** Lamports in a request: a JSON safe integer or a decimal string. */
export type LamportsInput = number | string;

export type Pagination = S['Pagination'];
export type PageQuery = Query<'listWebhooks'>;
export type Health = S['Health'];
export type VaultListItem = S['VaultListItem'];
export type VaultList = S['VaultList'];
export type VaultListQuery = Query<'listVaults'>;
export type CreateVaultBody = Body<'createVault'>;
export type CreateVaultResponse = Reply<'createVault', 201>;
export type UpdateVaultBody = Body<'updateVault'>;
export type UpdateVaultResponse = Reply<'updateVault', 200>;
export type AuthVerifyResponse = Reply<'verifyAuth', 200>;
export type TransactionDetail = Reply<'getTransaction', 200>;
export type TransactionList = Reply<'listTransactions', 200>;
export type TransactionListQuery = Query<'listTransactions'>;
export type OverrideList = Reply<'listOverrides', 200>;
export type OverrideListQuery = Query<'listOverrides'>;
/** An export's selection: a vault or an owner, a time range, a status, csv or jsonl. */
export type TransactionExportQuery = Query<'exportTransactions'>;
export type OverrideExportQuery = Query<'exportOverrides'>;
export type AuditExportQuery = Query<'exportAudit'>;
/** An owner's pending overrides: every unexpired one across the vaults `owner` owns. */
export type PendingOverrideQuery = PageQuery & { owner: string };
export type AnalyticsQuery = Query<'getAnalytics'>;
export type Analytics = Reply<'getAnalytics', 200>;
export type RealtimeQuery = Query<'getRealtimeAnalytics'>;
export type Realtime = Reply<'getRealtimeAnalytics', 200>;
export type Budget = Reply<'getVaultBudget', 200>;
/** A transfer to check before sending it: `amount` may also be a bigint (sent as a decimal string). */
export type TransferCheckQuery = Omit<Query<'checkVaultTransfer'>, 'amount'> & {
  amount: string | number | bigint;
};
export type TransferCheck = Reply<'checkVaultTransfer', 200>;
export type AgentTransferBuildBody = Body<'buildAgentTransfer'>;
export type AgentTransferBuild = Reply<'buildAgentTransfer', 200>;
export type AgentTransferSendBody = Body<'sendAgentTransfer'>;
export type AgentTransferResult = Reply<'sendAgentTransfer', 200>;
export type PolicyPreviewRequest = Body<'previewVaultPolicy'>;
export type PolicyPreviewChange = S['PolicyPreviewChange'];
export type PolicyPreview = Reply<'previewVaultPolicy', 200>;
export type WebhookFormat = S['Webhook']['format'];
export type WebhookSubscription = Reply<'getWebhook', 200>;
export type WebhookWithSecret = Reply<'createWebhook', 201>;
export type WebhookList = Reply<'listWebhooks', 200>;
export type CreateWebhookBody = Body<'createWebhook'>;
export type UpdateWebhookBody = Body<'updateWebhook'>;
export type DeliveryStatus = S['Delivery']['status'];
/** `failing`: the last attempt failed, still retrying or exhausted (`failed` is exhausted only). */
export type DeliveryFilter = NonNullable<DeliveriesQuery['status']>;
export type DeliveriesQuery = Query<'listDeliveries'>;
export type RecoverBody = Body<'recoverDeliveries'>;
export type Recovered = Reply<'recoverDeliveries', 202>;
export type DeliveryAttempt = S['Delivery']['attempts'][number];
export type WebhookDelivery = Reply<'testWebhook', 202>;
export type DeliveryList = Reply<'listDeliveries', 200>;
export type ApiKey = S['ApiKey'];
export type ApiKeyWithKey = Reply<'createApiKey', 201>;
export type ApiKeyList = Reply<'listApiKeys', 200>;
export type CreateApiKeyBody = Body<'createApiKey'>;
export type ApiKeyScope = S['ApiKey']['scopes'][number];
export type AuditEntry = S['AuditEntry'];
export type AuditQuery = Query<'listAuditEntries'>;
export type AuditPage = Reply<'listAuditEntries', 200>;
export type ActionsJson = Reply<'getActionsJson', 200>;
export type ActionMetadata = Reply<'getApprovalAction', 200>;
export type ActionPostRequest = Body<'approveOverrideAction'>;
export type ActionTransaction = Reply<'approveOverrideAction', 200>;
export type ApprovalPreviewQuery = Query<'previewOverrideApproval'>;
export type TransactionPreview = Reply<'previewOverrideApproval', 200>;
export type BalanceChange = TransactionPreview['balanceChanges'][number];
export type ConfirmApproveBody = Body<'confirmOverrideApproval'>;
export type RejectResponse = Reply<'rejectOverrideAction', 200>;
/** Solana Actions 2.4 SignMessageData. */
export type SignMessageData = Extract<RejectResponse, { type: 'message' }>['data'];
export type ConfirmRejectBody = Body<'confirmOverrideRejection'>;
export type CompletedAction = Reply<'confirmOverrideApproval', 200>;
export type Approval = Reply<'getTransferApproval', 200>;
export type AlertSettings = Reply<'getAlertSettings', 200>;
/** One event of the live feed; `data` stays `unknown` (the event's fields, whose shape depends on `name`). */
export type FeedEvent = Omit<S['FeedEvent'], 'data'> & { data: unknown };

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
