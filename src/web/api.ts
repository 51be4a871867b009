// The service's JSON API from the pages (same origin): typed reads and the error envelope.
import type { SignMessageData } from './encoding.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds to wait before trying again (429), when the service said so. */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

interface ErrorEnvelope {
  error?: unknown;
  message?: unknown;
  code?: unknown;
}

export async function requestJson<T>(
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: init.method ?? 'GET',
      // The pages re-read after each event: the browser's copy (max-age up to 5 min) would be stale.
      cache: 'no-store',
      headers:
        init.body === undefined ? { accept: 'application/json' } : { 'content-type': 'application/json' },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
  } catch {
    throw new ApiError(0, 'NETWORK_ERROR', 'The service cannot be reached. Check your connection.');
  }
  const body = (await response.json().catch(() => null)) as unknown;
  if (response.ok) return body as T;
  const envelope = (body ?? {}) as ErrorEnvelope;
  const message =
    typeof envelope.message === 'string'
      ? envelope.message
      : typeof envelope.error === 'string'
        ? envelope.error
        : `The service answered ${response.status}.`;
  const retryAfter = Number(response.headers.get('retry-after'));
  throw new ApiError(
    response.status,
    typeof envelope.code === 'string' ? envelope.code : 'HTTP_ERROR',
    message,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
  );
}

/** Only the path of an absolute link the service returned: the page talks to its own origin only. */
export function sameOriginPath(href: string): string {
  const url = new URL(href, location.href);
  return `${url.pathname}${url.search}`;
}

export interface Vault {
  id: string;
  address: string;
  depositAddress: string;
  authority: string;
  agentSigner: string;
  dailyLimit: string;
  spentToday: string;
  lastReset: string | null;
  name: string;
  paused: boolean;
  whitelist: string[];
  whitelistCount: number;
  tier: string;
  createdAt: string;
  updatedAt: string;
  stats: { transactionCount: number; totalVolume: string; blockedCount: number; avgTransactionSize: string };
}

export interface Transaction {
  id: string;
  signature: string | null;
  vault: string;
  destination: string;
  amount: string;
  status: 'executed' | 'blocked' | 'pending';
  blockReason: string | null;
  timestamp: string;
  feeCollected?: string;
  blinkUrl?: string;
}

export type OverrideStatus = 'pending' | 'approved' | 'rejected' | 'executed';

export interface Override {
  id: string;
  vault: string;
  nonce: string;
  destination: string;
  amount: string;
  blockReason: string | null;
  status: OverrideStatus;
  expiresAt: string;
  createdAt: string;
  expired: boolean;
  blinkUrl: string;
  approvalUrl: string;
}

export interface Analytics {
  summary: {
    totalSpent: string;
    transactionCount: number;
    blockedCount: number;
    averageAmount: string;
    successRate: number;
    totalFees: string;
  };
  spendingByPeriod: { period: string; amount: string; count: number }[];
}

export interface Realtime {
  balance: string;
  spentToday: string;
  dailyLimit: string;
  utilizationPct: number;
  transactionsToday: number;
  lastTransaction: string | null;
}

export type RejectResponse =
  | { type: 'post'; message: string }
  | {
      type: 'message';
      data: SignMessageData;
      state: string;
      links: { next: { type: 'post'; href: string } };
    };

const path = (...parts: string[]) => parts.map(encodeURIComponent).join('/');

export const api = {
  getVault: (address: string) => requestJson<Vault>(`/api/vaults/${path(address)}`),
  getOverride: (vault: string, nonce: string) =>
    requestJson<Override>(`/api/overrides/${path(vault, nonce)}`),
  listPendingOverrides: (vault: string) =>
    requestJson<{ overrides: Override[] }>(
      `/api/overrides?vault=${encodeURIComponent(vault)}&status=pending&limit=20`,
    ),
  listTransactions: (vault: string, options: { status?: string; limit?: number } = {}) =>
    requestJson<{ transactions: Transaction[]; pagination: { total: number } }>(
      `/api/transactions?vault=${encodeURIComponent(vault)}&limit=${options.limit ?? 20}${
        options.status ? `&status=${encodeURIComponent(options.status)}` : ''
      }`,
    ),
  getAnalytics: (vault: string) =>
    requestJson<Analytics>(`/api/analytics?vault=${encodeURIComponent(vault)}&groupBy=day`),
  getRealtime: (vault: string) =>
    requestJson<Realtime>(`/api/analytics/realtime?vault=${encodeURIComponent(vault)}`),
  approve: (vault: string, nonce: string, account: string) =>
    requestJson<{ type: 'transaction'; transaction: string; message: string }>(
      `/api/actions/${path(vault, nonce)}/approve`,
      { method: 'POST', body: { account } },
    ),
  reject: (vault: string, nonce: string, account: string) =>
    requestJson<RejectResponse>(`/api/actions/${path(vault, nonce)}/reject`, {
      method: 'POST',
      body: { account },
    }),
  confirmReject: (
    href: string,
    body: { account: string; signature: string; data: SignMessageData; state: string },
  ) =>
    requestJson<{ type: 'completed'; title: string; description: string }>(sameOriginPath(href), {
      method: 'POST',
      body,
    }),
};
