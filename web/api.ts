// The service's JSON API from the pages (same origin), through the package's own client: the types
// are the API's, the error is its VaultkeeperError.
import {
  type AlertSettings,
  type ConfirmRejectBody,
  createVaultkeeperClient,
  type MessageSigner,
  type PolicyPreviewRequest,
  type TransactionListItem,
  type UpdateVaultBody,
  VaultkeeperError,
} from '@vaultkeeper/client';

export type {
  AlertSettings,
  Analytics,
  Override,
  PolicyPreview,
  PolicyPreviewChange,
  PolicyPreviewRequest,
  Realtime,
  TransactionPreview,
  UpdateVaultBody,
  Vault,
} from '@vaultkeeper/client';
export type Transaction = TransactionListItem;

/** A failed call: `status`, `code` and the service's message, as the client reports it. */
export const ApiError = VaultkeeperError;

/** Seconds to wait before trying again when the service said so (429), else null. */
export function retryAfterOf(error: VaultkeeperError): number | null {
  const seconds = Number(error.details.retryAfter);
  return Number.isFinite(seconds) && seconds > 0 ? seconds : null;
}

/** How an override is addressed: its vault and nonce, plus its transfer when not the first. */
export interface OverrideAddress {
  vault: string;
  nonce: string;
  transfer: string | null;
}

/** The pages' client; `signer` signs each owner request (the connected wallet's signMessage). */
const pageClient = (signer?: MessageSigner) =>
  createVaultkeeperClient({
    baseUrl: location.origin,
    signer,
    // The pages re-read after each event: the browser's copy (max-age up to 5 min) would be stale.
    fetch: (input: RequestInfo | URL, init?: RequestInit) => fetch(input, { ...init, cache: 'no-store' }),
    // The vault page backs off by itself on 429, with what Retry-After says.
    maxRetries: 0,
  });
const client = pageClient();

/** The client's name of a request: an address without a transfer is the nonce's first, on purpose. */
const requestOf = (at: OverrideAddress) =>
  at.transfer === null
    ? { vault: at.vault, nonce: at.nonce, first: true as const }
    : { vault: at.vault, nonce: at.nonce, transfer: at.transfer };

export const api = {
  getVault: (address: string) => client.vaults.get(address),
  getOverride: (at: OverrideAddress) => client.overrides.get(requestOf(at)),
  listPendingOverrides: (vault: string) => client.overrides.list({ vault, status: 'pending', limit: 20 }),
  listOwnerPending: (owner: string, page: number) => client.overrides.pending({ owner, page, limit: 50 }),
  previewPolicy: (vault: string, body: PolicyPreviewRequest) => client.vaults.policyPreview(vault, body),
  listTransactions: (vault: string, options: { limit?: number } = {}) =>
    client.transactions.list({ vault, limit: options.limit ?? 20 }),
  getAnalytics: (vault: string) => client.analytics.get({ vault, groupBy: 'day' }),
  getRealtime: (vault: string) => client.analytics.realtime({ vault }),
  previewApproval: (at: OverrideAddress, account: string) =>
    client.approvals.preview({ ...requestOf(at), account }),
  approve: (at: OverrideAddress, account: string) => client.approvals.approve({ ...requestOf(at), account }),
  reject: (at: OverrideAddress, account: string) => client.approvals.reject({ ...requestOf(at), account }),
  confirmReject: (
    at: OverrideAddress,
    body: { account: string; signature: string; data: ConfirmRejectBody['data']; state: string },
  ) => client.approvals.confirmReject({ ...requestOf(at), ...body }),
};

/** The owner's writes, each request signed by `signer` (a wallet prompt per request). */
export function ownerApi(signer: MessageSigner) {
  const signed = pageClient(signer);
  return {
    updateVault: (vault: string, body: UpdateVaultBody) => signed.vaults.update(vault, body),
    getAlerts: (vault: string) => signed.vaults.alerts(vault),
    updateAlerts: (vault: string, body: Partial<AlertSettings>) => signed.vaults.updateAlerts(vault, body),
    exportTransactions: (vault: string, range: { from: string; to: string }) =>
      signed.exports.transactions({ vault, ...range, format: 'csv' }),
    listApiKeys: () => signed.apiKeys.list(),
  };
}

export type OwnerApi = ReturnType<typeof ownerApi>;

/** A route this service does not have (a 404 for the path itself, not for a vault or an override). */
export const isMissingRoute = (error: unknown) =>
  error instanceof VaultkeeperError && error.status === 404 && error.code === 'NOT_FOUND';
