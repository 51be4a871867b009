// Long-lived WebSocket subscriptions kept up with capped, jittered reconnects: the live feed (a
// logsSubscribe mentioning the program at `confirmed`, which only names signatures; each is then read
// with getTransaction) and the live vault accounts (live-vault-accounts.ts).
// A subscription connects to the first RPC endpoint not cooling down, moves on when that one fails, and
// while on a fallback checks the preferred endpoints now and then, reconnecting to the first that answers.
import type { Address } from '@solana/kit';
import type { Logger } from 'pino';
import { createBackoff, sleep } from '../lib/backoff.js';
import type { SolanaRpcSubscriptions } from './rpc.js';
import type { RpcEndpoint, RpcEndpoints } from './rpc-endpoints.js';

const STABLE_MS = 10_000;

export interface SubscriptionHandlers<T> {
  /**
   * The server acknowledged the subscription; `connection` aborts when this connection ends, and
   * `subscriptions` is its client (more subscriptions ride on the same connection through it).
   */
  onConnected(endpoint: RpcEndpoint, connection: AbortSignal, subscriptions: SolanaRpcSubscriptions): void;
  onNotification(notification: T): void;
  /** The subscription failed or dropped; a reconnect follows after the returned delay. */
  onDisconnected(error: unknown, retryInMs: number, endpoint: RpcEndpoint): void;
}

export interface SubscriptionDeps {
  rpcEndpoints: RpcEndpoints;
  logger: Logger;
  /** What the logs call it ("the feed"). */
  name: string;
  /** While on a fallback endpoint, how often a preferred one is checked (default 10 s). */
  preferredRecheckMs?: number;
}

/** Opens the subscription through a connection's client; resolves once the server has acknowledged it. */
export type OpenSubscription<T> = (
  subscriptions: SolanaRpcSubscriptions,
  signal: AbortSignal,
) => Promise<AsyncIterable<T>>;

/** Keeps one subscription up until `signal` aborts, reconnecting and failing over as described above. */
export async function runSubscription<T>(
  deps: SubscriptionDeps,
  open: OpenSubscription<T>,
  handlers: SubscriptionHandlers<T>,
  signal: AbortSignal,
): Promise<void> {
  const { rpcEndpoints } = deps;
  const backoff = createBackoff({ baseMs: 250, capMs: 15_000 });
  let connectedAt = 0;
  while (!signal.aborted) {
    const endpoint = rpcEndpoints.pick();
    if (endpoint === null) {
      // Every endpoint asked to wait (Retry-After): nothing is sent until one window closes.
      await sleep(backoff.next(), signal);
      continue;
    }
    const attempt = new AbortController();
    let movingBack = false;
    const stop = () => attempt.abort();
    signal.addEventListener('abort', stop, { once: true });
    const recheck = setInterval(() => {
      void findRecoveredPreferred(rpcEndpoints, endpoint).then((found) => {
        if (found && !attempt.signal.aborted) {
          movingBack = true;
          attempt.abort();
        }
      });
    }, deps.preferredRecheckMs ?? 10_000);
    try {
      // Every attempt is a new connection with a client of its own (RpcEndpoint.openSubscriptions).
      const subscriptions = endpoint.openSubscriptions();
      const notifications = await open(subscriptions, attempt.signal);
      connectedAt = Date.now();
      rpcEndpoints.connected(endpoint);
      handlers.onConnected(endpoint, attempt.signal, subscriptions);
      for await (const notification of notifications) handlers.onNotification(notification);
      if (signal.aborted) return;
      throw new Error(`${deps.name} subscription ended`);
    } catch (error) {
      if (signal.aborted) return;
      if (movingBack) {
        deps.logger.info(
          { from: endpoint.label },
          `a preferred RPC endpoint is back; moving ${deps.name} to it`,
        );
        handlers.onDisconnected(error, 0, endpoint);
        continue;
      }
      rpcEndpoints.recordFailure(endpoint, error);
      // A subscription that stayed up a while starts the backoff over; one that flaps keeps climbing.
      if (connectedAt > 0 && Date.now() - connectedAt > STABLE_MS) backoff.reset();
      connectedAt = 0;
      // Another endpoint out of its cooldown is tried at once; the backoff is for when all have failed.
      const next = rpcEndpoints.pick();
      const delay = next !== null && next !== endpoint && rpcEndpoints.isAvailable(next) ? 0 : backoff.next();
      handlers.onDisconnected(error, delay, endpoint);
      await sleep(delay, signal);
    } finally {
      clearInterval(recheck);
      signal.removeEventListener('abort', stop);
      attempt.abort();
    }
  }
}

export interface LogSubscriptionHandlers {
  /** The server acknowledged the subscription: from now on no signature is missed while it stays up. */
  onConnected(endpoint: string, websocket: string): void;
  onSignature(signature: string, slot: number): void;
  /** The subscription failed or dropped; a reconnect follows after the returned delay. */
  onDisconnected(error: unknown, retryInMs: number, endpoint: string, websocket: string): void;
}

export interface LogSubscriptionDeps {
  rpcEndpoints: RpcEndpoints;
  programId: Address;
  logger: Logger;
  /** While on a fallback endpoint, how often a preferred one is checked (default 10 s). */
  preferredRecheckMs?: number;
}

/** The live feed: the program's transactions' signatures as the cluster confirms them. */
export function runLogSubscription(
  deps: LogSubscriptionDeps,
  handlers: LogSubscriptionHandlers,
  signal: AbortSignal,
): Promise<void> {
  return runSubscription(
    { ...deps, name: 'the feed' },
    (subscriptions, attempt) =>
      subscriptions
        .logsNotifications({ mentions: [deps.programId] }, { commitment: 'confirmed' })
        .subscribe({ abortSignal: attempt }),
    {
      onConnected: (endpoint) => handlers.onConnected(endpoint.label, endpoint.wsLabel),
      onNotification: (notification) =>
        handlers.onSignature(notification.value.signature, Number(notification.context.slot)),
      onDisconnected: (error, delay, endpoint) =>
        handlers.onDisconnected(error, delay, endpoint.label, endpoint.wsLabel),
    },
    signal,
  );
}

/** Whether an endpoint preferred to `current` is out of its cooldown and answers a cheap call. */
async function findRecoveredPreferred(rpcEndpoints: RpcEndpoints, current: RpcEndpoint): Promise<boolean> {
  if (!rpcEndpoints.hasPreferredBefore(current.index)) return false;
  const candidate = rpcEndpoints.pick();
  return candidate !== null && candidate.index < current.index && (await rpcEndpoints.probe(candidate));
}
