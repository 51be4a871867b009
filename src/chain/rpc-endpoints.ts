// Several Solana RPC endpoints in order of preference. Every call goes to the first endpoint that is
// not cooling down; a connection error, timeout, 5xx or 429 (rpc-failure.ts) cools that endpoint down
// (for Retry-After when the node gives one, else a growing backoff) and the call moves on to the next.
// Once a cooldown ends the preferred endpoint gets the next call again, so traffic returns to it when it
// recovers. Endpoint URLs carry API keys: only their scheme and host ever leave this module (labels).
import {
  createDefaultRpcTransport,
  createSolanaRpcFromTransport,
  createSolanaRpcSubscriptions,
  type RpcTransport,
} from '@solana/kit';
import { backoffDelay } from '../lib/backoff.js';
import type { Metrics } from '../lib/metrics.js';
import { applyReplacements, urlLabel, urlReplacements } from '../lib/url-redaction.js';
import type { SolanaRpc, SolanaRpcSubscriptions } from './rpc.js';
import { classifyRpcFailure, type RpcFailure, sendWithTimeout, UNCLASSIFIED } from './rpc-failure.js';

export interface RpcEndpointConfig {
  readonly rpcUrl: string;
  readonly wsUrl: string;
}

export interface RpcEndpoint {
  readonly index: number;
  /** scheme://host of the HTTP URL: safe for logs and metrics. */
  readonly label: string;
  /** scheme://host of the WebSocket URL the log feed uses (ws:// or wss://): what feed errors name. */
  readonly wsLabel: string;
  readonly rpcUrl: string;
  /** The endpoint's own kit transport (one per endpoint; keeps its connections). */
  readonly transport: RpcTransport;
  /**
   * A new subscriptions client for one connection: its own WebSocket and kit's bookkeeping (shared
   * subscriptions, the channel pool). A client outlives a dropped connection badly (a connect that
   * failed during an outage was handed to every later subscribe, so the connection never came back);
   * one per connection leaves nothing of the old one behind.
   */
  openSubscriptions(): SolanaRpcSubscriptions;
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
  /**
   * Calls `listener` whenever a connection to an endpoint is established again: a subscription
   * (re)connecting to it (`connected`), or a call answering after its failures. Returns the unsubscribe.
   */
  onConnection(listener: (endpoint: RpcEndpoint) => void): () => void;
  /** A long-lived connection (the WebSocket feed) to the endpoint was just established. */
  connected(endpoint: RpcEndpoint): void;
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

/** scheme://host of a URL; never its path, query or credentials. */
export const rpcEndpointLabel = urlLabel;

const PROBE_PAYLOAD = { jsonrpc: '2.0', id: 0, method: 'getSlot' };

export function createRpcEndpoints(
  configs: readonly RpcEndpointConfig[],
  options: RpcEndpointsOptions = {},
): RpcEndpoints {
  if (configs.length === 0) throw new Error('at least one RPC endpoint is required');
  const labels = uniqueLabels(configs.map((c) => rpcEndpointLabel(c.rpcUrl)));
  const endpoints: RpcEndpoint[] = configs.map((c, index) => ({
    index,
    label: labels[index] as string,
    wsLabel: rpcEndpointLabel(c.wsUrl),
    rpcUrl: c.rpcUrl,
    transport: createDefaultRpcTransport({ url: c.rpcUrl }),
    openSubscriptions: () => createSolanaRpcSubscriptions(c.wsUrl),
  }));
  const pool: Pool = {
    endpoints,
    health: endpoints.map(() => ({ failures: 0, until: 0, retryAfterUntil: 0 })),
    now: options.now ?? Date.now,
    timeoutMs: options.timeoutMs ?? 15_000,
    cooldown: { baseMs: options.cooldownMs ?? 1_000, capMs: options.maxCooldownMs ?? 30_000 },
    metrics: options.metrics,
    listeners: new Set(),
  };
  const secrets = rpcUrlReplacements(configs);
  for (const endpoint of endpoints) publish(pool, endpoint);
  return {
    endpoints,
    request: (send, signal) => request(pool, send, signal),
    pick: () => candidates(pool)[0] ?? null,
    isAvailable: (endpoint) => available(pool, endpoint.index),
    hasPreferredBefore: (index) => endpoints.some((e) => e.index < index && available(pool, e.index)),
    recordFailure: (endpoint, error) =>
      recordFailureKind(pool, endpoint, classifyRpcFailure(error, pool.now()) ?? UNCLASSIFIED),
    recordSuccess: (endpoint) => recordSuccess(pool, endpoint),
    probe: (endpoint) => probe(pool, endpoint),
    status: () =>
      endpoints.map((e) => {
        const state = pool.health[e.index]!;
        return {
          endpoint: e.label,
          available: available(pool, e.index),
          consecutiveFailures: state.failures,
          cooldownMs: Math.max(0, state.until - pool.now()),
        };
      }),
    redact: (text) => applyReplacements(text, secrets),
    onConnection: (listener) => {
      pool.listeners.add(listener);
      return () => pool.listeners.delete(listener);
    },
    connected: (endpoint) => announce(pool, endpoint),
  };
}

/** The endpoints and what each one's recent calls say about it. */
interface Pool {
  readonly endpoints: readonly RpcEndpoint[];
  // until: cooling down (tried only when no other endpoint is out of its cooldown);
  // retryAfterUntil: inside the window the node asked for with Retry-After (never tried).
  readonly health: { failures: number; until: number; retryAfterUntil: number }[];
  readonly now: () => number;
  readonly timeoutMs: number;
  /** Cooldown after a failure without Retry-After: doubles per consecutive failure, up to capMs. */
  readonly cooldown: { baseMs: number; capMs: number };
  readonly metrics: RpcEndpointsOptions['metrics'];
  /** Told of every (re)established connection (onConnection). */
  readonly listeners: Set<(endpoint: RpcEndpoint) => void>;
}

function announce(pool: Pool, endpoint: RpcEndpoint): void {
  for (const listener of pool.listeners) listener(endpoint);
}

const available = (pool: Pool, i: number) => (pool.health[i]?.until ?? 0) <= pool.now();
const allowed = (pool: Pool, i: number) => (pool.health[i]?.retryAfterUntil ?? 0) <= pool.now();

/** Out of cooldown first, in order of preference; then those cooling down after errors, soonest first. */
function candidates(pool: Pool): RpcEndpoint[] {
  return [
    ...pool.endpoints.filter((e) => available(pool, e.index)),
    ...pool.endpoints
      .filter((e) => !available(pool, e.index) && allowed(pool, e.index))
      .sort((x, y) => pool.health[x.index]!.until - pool.health[y.index]!.until),
  ];
}

function publish(pool: Pool, endpoint: RpcEndpoint): void {
  pool.metrics?.rpcEndpointAvailable.labels(endpoint.label).set(available(pool, endpoint.index) ? 1 : 0);
}

function recordFailureKind(pool: Pool, endpoint: RpcEndpoint, failure: RpcFailure): void {
  const state = pool.health[endpoint.index]!;
  state.failures += 1;
  const now = pool.now();
  state.until = Math.max(
    state.until,
    now + (failure.retryAfterMs ?? backoffDelay(state.failures - 1, pool.cooldown)),
  );
  if (failure.retryAfterMs !== null) {
    state.retryAfterUntil = Math.max(state.retryAfterUntil, now + failure.retryAfterMs);
  }
  pool.metrics?.rpcRequests.labels(endpoint.label, failure.kind).inc();
  publish(pool, endpoint);
}

function recordSuccess(pool: Pool, endpoint: RpcEndpoint): void {
  const state = pool.health[endpoint.index]!;
  const recovered = state.failures > 0;
  state.failures = 0;
  state.until = 0;
  state.retryAfterUntil = 0;
  pool.metrics?.rpcRequests.labels(endpoint.label, 'ok').inc();
  publish(pool, endpoint);
  if (recovered) announce(pool, endpoint);
}

async function request<T>(
  pool: Pool,
  send: (endpoint: RpcEndpoint, signal: AbortSignal) => Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  let lastError: unknown = null;
  for (const endpoint of candidates(pool)) {
    signal?.throwIfAborted();
    try {
      const result = await sendWithTimeout(pool.timeoutMs, (attempt) => send(endpoint, attempt), signal);
      recordSuccess(pool, endpoint);
      return result;
    } catch (error) {
      if (signal?.aborted) throw error;
      const failure = classifyRpcFailure(error, pool.now());
      if (failure === null) throw error;
      recordFailureKind(pool, endpoint, failure);
      lastError = error;
    }
  }
  if (lastError !== null) throw lastError;
  const next = Math.min(...pool.health.map((h) => h.retryAfterUntil));
  throw new RpcEndpointsUnavailableError(Math.max(0, next - pool.now()));
}

async function probe(pool: Pool, endpoint: RpcEndpoint): Promise<boolean> {
  try {
    await sendWithTimeout(
      pool.timeoutMs,
      (signal) => endpoint.transport({ payload: PROBE_PAYLOAD, signal }),
      undefined,
    );
    recordSuccess(pool, endpoint);
    return true;
  } catch (error) {
    recordFailureKind(pool, endpoint, classifyRpcFailure(error, pool.now()) ?? UNCLASSIFIED);
    return false;
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

/** Text replacements that keep RPC URLs' paths and queries (where providers put API keys) out of logs. */
export function rpcUrlReplacements(configs: readonly RpcEndpointConfig[]): [string, string][] {
  return urlReplacements(configs.flatMap((c) => [c.rpcUrl, c.wsUrl]));
}

/** Two endpoints on the same host get their position appended, so metrics keep them apart. */
function uniqueLabels(labels: string[]): string[] {
  return labels.map((label, i) =>
    labels.filter((l) => l === label).length > 1 ? `${label}#${i + 1}` : label,
  );
}
