// The live feed: a logsSubscribe mentioning the program at `confirmed`, kept up with capped,
// jittered reconnects. It only names signatures; each is then read with getTransaction.
// It connects to the first RPC endpoint not cooling down, moves on when that one fails, and while on a
// fallback checks the preferred endpoints now and then, reconnecting to the first one that answers.
import type { Address } from '@solana/kit';
import type { Logger } from 'pino';
import { createBackoff, sleep } from './backoff.js';
import type { RpcEndpoint, RpcEndpoints } from './rpc-endpoints.js';

const STABLE_MS = 10_000;

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

export async function runLogSubscription(
  deps: LogSubscriptionDeps,
  handlers: LogSubscriptionHandlers,
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
      const notifications = await endpoint.subscriptions
        .logsNotifications({ mentions: [deps.programId] }, { commitment: 'confirmed' })
        .subscribe({ abortSignal: attempt.signal });
      connectedAt = Date.now();
      handlers.onConnected(endpoint.label, endpoint.wsLabel);
      for await (const notification of notifications) {
        handlers.onSignature(notification.value.signature, Number(notification.context.slot));
      }
      if (signal.aborted) return;
      throw new Error('log subscription ended');
    } catch (error) {
      if (signal.aborted) return;
      if (movingBack) {
        deps.logger.info({ from: endpoint.label }, 'a preferred RPC endpoint is back; moving the feed to it');
        handlers.onDisconnected(error, 0, endpoint.label, endpoint.wsLabel);
        continue;
      }
      rpcEndpoints.recordFailure(endpoint, error);
      // A subscription that stayed up a while starts the backoff over; one that flaps keeps climbing.
      if (connectedAt > 0 && Date.now() - connectedAt > STABLE_MS) backoff.reset();
      connectedAt = 0;
      // Another endpoint out of its cooldown is tried at once; the backoff is for when all have failed.
      const next = rpcEndpoints.pick();
      const delay = next !== null && next !== endpoint && rpcEndpoints.isAvailable(next) ? 0 : backoff.next();
      handlers.onDisconnected(error, delay, endpoint.label, endpoint.wsLabel);
      await sleep(delay, signal);
    } finally {
      clearInterval(recheck);
      signal.removeEventListener('abort', stop);
      attempt.abort();
    }
  }
}

/** Whether an endpoint preferred to `current` is out of its cooldown and answers a cheap call. */
async function findRecoveredPreferred(rpcEndpoints: RpcEndpoints, current: RpcEndpoint): Promise<boolean> {
  if (!rpcEndpoints.hasPreferredBefore(current.index)) return false;
  const candidate = rpcEndpoints.pick();
  return candidate !== null && candidate.index < current.index && (await rpcEndpoints.probe(candidate));
}
