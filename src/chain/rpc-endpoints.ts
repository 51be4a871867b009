// Several Solana RPC endpoints in order of preference. Every call goes to the first endpoint that is
// not cooling down; a connection error, timeout, 5xx or 429 cools that endpoint down (for Retry-After
// when the node gives one, else a growing backoff) and the call moves on to the next. Once a cooldown
// ends the preferred endpoint gets the next call again, so traffic returns to it when it recovers.
// Endpoint URLs carry API keys: only their scheme and host ever leave this module (labels).
import {
  createDefaultRpcTransport,
  createSolanaRpcFromTransport,
  createSolanaRpcSubscriptions,
  isSolanaError,
  type RpcTransport,
  SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR,
} from '@solana/kit';
import type { Metrics } from '../lib/metrics.js';
import type { SolanaRpc, SolanaRpcSubscriptions } from './rpc.js';

export interface RpcEndpointConfig {
  readonly rpcUrl: string;
  readonly wsUrl: string;
}

export interface RpcEndpoint {
  readonly index: number;
  /** scheme://host of the HTTP URL: safe for logs and metrics. */
  readonly label: string;
  readonly rpcUrl: string;
  /** The endpoint's own kit transport (one per endpoint; keeps its connections). */
  readonly transport: RpcTransport;
  readonly subscriptions: SolanaRpcSubscriptions;
}

export interface RpcEndpointStatus {
  readonly endpoint: string;
  readonly available: boolean;
  readonly consecutiveFailures: number;
  /** Milliseconds until the endpoint is tried again (0 when available). */
  readonly cooldownMs: number;
}

export interface RpcEndpoints {
  readonly endpoints: readonly RpcEndpoint[];
  /** Runs one request on the first available endpoint, failing over as described above. */
  request<T>(
    send: (endpoint: RpcEndpoint, signal: AbortSignal) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T>;
  /**
   * The first endpoint not cooling down; when all are, the first one not inside a Retry-After window
   * (a cooldown after errors only ranks an endpoint last); null when every one is inside such a window.
   */
  pick(): RpcEndpoint | null;
  /** Whether the endpoint is out of its cooldown. */
  isAvailable(endpoint: RpcEndpoint): boolean;
  /** Whether an endpoint ahead of `index` in preference is out of its cooldown. */
  hasPreferredBefore(index: number): boolean;
  /** Counts a failure of a long-lived use (the WebSocket feed) against the endpoint. */
  recordFailure(endpoint: RpcEndpoint, error: unknown): void;
  recordSuccess(endpoint: RpcEndpoint): void;
  /** Sends getSlot to this endpoint alone; records and returns whether it answered. */
  probe(endpoint: RpcEndpoint): Promise<boolean>;
  status(): RpcEndpointStatus[];
  /** Replaces every endpoint URL in a text with its label (for error messages that quote a URL). */
  redact(text: string): string;
}

export interface RpcEndpointsOptions {
  metrics?: Pick<Metrics, 'rpcRequests' | 'rpcEndpointAvailable'>;
  /** A call that has not answered after this long counts as a failure of its endpoint. */
  timeoutMs?: number;
  /** First cooldown after a failure without Retry-After; doubles per consecutive failure. */
  cooldownMs?: number;
  maxCooldownMs?: number;
  now?: () => number;
}

/** Every endpoint is inside its Retry-After window: nothing was sent. */
export class RpcEndpointsUnavailableError extends Error {
  constructor(readonly retryInMs: number) {
    super(`every RPC endpoint asked to wait (Retry-After); next one available in ${retryInMs} ms`);
    this.name = 'RpcEndpointsUnavailableError';
  }
}

/** A non-2xx HTTP answer from a request sent outside kit's transport (JSON-RPC batches). */
export class RpcHttpStatusError extends Error {
  constructor(
    readonly statusCode: number,
    readonly headers: Headers,
  ) {
    super(`RPC answered HTTP ${statusCode}`);
    this.name = 'RpcHttpStatusError';
  }
}

class RpcTimeoutError extends Error {
  constructor(ms: number) {
    super(`RPC call did not answer within ${ms} ms`);
    this.name = 'RpcTimeoutError';
  }
}

/** scheme://host of a URL; never its path, query or credentials. */
export function rpcEndpointLabel(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}

type Failure = { kind: 'rate_limited' | 'error' | 'timeout'; retryAfterMs: number | null };
/** A long-lived use failed in a way the transport does not name (e.g. a WebSocket that dropped). */
const UNCLASSIFIED: Failure = { kind: 'error', retryAfterMs: null };
const PROBE_PAYLOAD = { jsonrpc: '2.0', id: 0, method: 'getSlot' };

/** Whether an error is the endpoint's fault (move on) or the call's (give it back to the caller). */
export function classifyRpcFailure(error: unknown, now = Date.now()): Failure | null {
  let status: number | null = null;
  let headers: Headers | null = null;
  if (isSolanaError(error, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR)) {
    status = error.context.statusCode;
    headers = error.context.headers as Headers;
  } else if (error instanceof RpcHttpStatusError) {
    status = error.statusCode;
    headers = error.headers;
  } else if (error instanceof RpcTimeoutError) {
    return { kind: 'timeout', retryAfterMs: null };
  } else if (error instanceof TypeError || (error as { code?: unknown })?.code === 'ECONNREFUSED') {
    // fetch rejects with a TypeError when the connection fails or drops mid-answer.
    return { kind: 'error', retryAfterMs: null };
  }
  if (status === null) return null;
  if (status === 429) return { kind: 'rate_limited', retryAfterMs: parseRetryAfter(headers, now) };
  if (status >= 500) return { kind: 'error', retryAfterMs: parseRetryAfter(headers, now) };
  return null;
}

/** Retry-After in seconds or as an HTTP date, in milliseconds from now (null when absent or invalid). */
export function parseRetryAfter(headers: Headers | null, now = Date.now()): number | null {
  const raw = headers?.get('retry-after')?.trim();
  if (raw === undefined || raw === '') return null;
  if (/^\d+$/.test(raw)) return Number(raw) * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export function createRpcEndpoints(
  configs: readonly RpcEndpointConfig[],
  options: RpcEndpointsOptions = {},
): RpcEndpoints {
  if (configs.length === 0) throw new Error('at least one RPC endpoint is required');
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const baseCooldownMs = options.cooldownMs ?? 1_000;
  const maxCooldownMs = options.maxCooldownMs ?? 30_000;
  const labels = uniqueLabels(configs.map((c) => rpcEndpointLabel(c.rpcUrl)));
  const endpoints: RpcEndpoint[] = configs.map((c, index) => ({
    index,
    label: labels[index] as string,
    rpcUrl: c.rpcUrl,
    transport: createDefaultRpcTransport({ url: c.rpcUrl }),
    subscriptions: createSolanaRpcSubscriptions(c.wsUrl),
  }));
  // until: cooling down (tried only when no other endpoint is out of its cooldown);
  // retryAfterUntil: inside the window the node asked for with Retry-After (never tried).
  const health = endpoints.map(() => ({ failures: 0, until: 0, retryAfterUntil: 0 }));
  const secrets = rpcUrlReplacements(configs);

  const available = (i: number) => (health[i]?.until ?? 0) <= now();
  const allowed = (i: number) => (health[i]?.retryAfterUntil ?? 0) <= now();
  /** Out of cooldown first, in order of preference; then those cooling down after errors, soonest first. */
  const candidates = () => [
    ...endpoints.filter((e) => available(e.index)),
    ...endpoints
      .filter((e) => !available(e.index) && allowed(e.index))
      .sort((x, y) => health[x.index]!.until - health[y.index]!.until),
  ];
  const publish = (endpoint: RpcEndpoint) =>
    options.metrics?.rpcEndpointAvailable.labels(endpoint.label).set(available(endpoint.index) ? 1 : 0);
  for (const endpoint of endpoints) publish(endpoint);

  const recordFailureKind = (endpoint: RpcEndpoint, failure: Failure) => {
    const state = health[endpoint.index]!;
    state.failures += 1;
    const backoff = Math.min(maxCooldownMs, baseCooldownMs * 2 ** Math.min(state.failures - 1, 20));
    state.until = Math.max(state.until, now() + (failure.retryAfterMs ?? backoff));
    if (failure.retryAfterMs !== null) {
      state.retryAfterUntil = Math.max(state.retryAfterUntil, now() + failure.retryAfterMs);
    }
    options.metrics?.rpcRequests.labels(endpoint.label, failure.kind).inc();
    publish(endpoint);
  };
  const recordSuccess = (endpoint: RpcEndpoint) => {
    const state = health[endpoint.index]!;
    state.failures = 0;
    state.until = 0;
    state.retryAfterUntil = 0;
    options.metrics?.rpcRequests.labels(endpoint.label, 'ok').inc();
    publish(endpoint);
  };

  const attempt = <T>(
    endpoint: RpcEndpoint,
    send: (endpoint: RpcEndpoint, signal: AbortSignal) => Promise<T>,
    signal: AbortSignal | undefined,
  ) => sendWithTimeout(timeoutMs, (attemptSignal) => send(endpoint, attemptSignal), signal);

  return {
    endpoints,
    async request(send, signal) {
      let lastError: unknown = null;
      for (const endpoint of candidates()) {
        signal?.throwIfAborted();
        try {
          const result = await attempt(endpoint, send, signal);
          recordSuccess(endpoint);
          return result;
        } catch (error) {
          if (signal?.aborted) throw error;
          const failure = classifyRpcFailure(error, now());
          if (failure === null) throw error;
          recordFailureKind(endpoint, failure);
          lastError = error;
        }
      }
      if (lastError !== null) throw lastError;
      const next = Math.min(...health.map((h) => h.retryAfterUntil));
      throw new RpcEndpointsUnavailableError(Math.max(0, next - now()));
    },
    pick() {
      return candidates()[0] ?? null;
    },
    isAvailable(endpoint) {
      return available(endpoint.index);
    },
    hasPreferredBefore(index) {
      return endpoints.some((e) => e.index < index && available(e.index));
    },
    recordFailure(endpoint, error) {
      recordFailureKind(endpoint, classifyRpcFailure(error, now()) ?? UNCLASSIFIED);
    },
    recordSuccess,
    async probe(endpoint) {
      try {
        await attempt(endpoint, (e, signal) => e.transport({ payload: PROBE_PAYLOAD, signal }), undefined);
        recordSuccess(endpoint);
        return true;
      } catch (error) {
        recordFailureKind(endpoint, classifyRpcFailure(error, now()) ?? UNCLASSIFIED);
        return false;
      }
    },
    status() {
      return endpoints.map((e) => {
        const state = health[e.index]!;
        return {
          endpoint: e.label,
          available: available(e.index),
          consecutiveFailures: state.failures,
          cooldownMs: Math.max(0, state.until - now()),
        };
      });
    },
    redact(text) {
      let out = text;
      for (const [secret, label] of secrets) if (out.includes(secret)) out = out.split(secret).join(label);
      return out;
    },
  };
}

/** Runs send with a signal that also aborts after timeoutMs; that timeout rejects as RpcTimeoutError. */
async function sendWithTimeout<T>(
  timeoutMs: number,
  send: (signal: AbortSignal) => Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new RpcTimeoutError(timeoutMs)), timeoutMs);
  try {
    return await send(signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal);
  } catch (error) {
    if (timeout.signal.aborted && !signal?.aborted) throw timeout.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** A Solana RPC client whose every call fails over across the endpoints. */
export function createFailoverSolanaRpc(rpcEndpoints: RpcEndpoints): SolanaRpc {
  const transport = (({ payload, signal }: { payload: unknown; signal?: AbortSignal }) =>
    rpcEndpoints.request(
      (endpoint, attemptSignal) => endpoint.transport({ payload, signal: attemptSignal }),
      signal,
    )) as RpcTransport;
  return createSolanaRpcFromTransport(transport);
}

/**
 * Text replacements that keep RPC URLs' paths and queries (where providers put API keys) out of
 * logs: each full URL becomes its scheme and host, a bare path-and-query becomes [redacted].
 * Longest first, so a URL is replaced whole before its own path is.
 */
export function rpcUrlReplacements(configs: readonly RpcEndpointConfig[]): [string, string][] {
  const pairs = new Map<string, string>();
  for (const url of configs.flatMap((c) => [c.rpcUrl, c.wsUrl])) {
    const parsed = new URL(url);
    const label = `${parsed.protocol}//${parsed.host}`;
    pairs.set(url, label);
    pairs.set(parsed.href, label);
    const secretPart = `${parsed.pathname}${parsed.search}`;
    if (secretPart.length > 4) pairs.set(secretPart, '/[redacted]');
  }
  return [...pairs].sort((a, b) => b[0].length - a[0].length);
}

/** Two endpoints on the same host get their position appended, so metrics keep them apart. */
function uniqueLabels(labels: string[]): string[] {
  return labels.map((label, i) =>
    labels.filter((l) => l === label).length > 1 ? `${label}#${i + 1}` : label,
  );
}
