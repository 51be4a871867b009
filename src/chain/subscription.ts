// The live feed: a logsSubscribe mentioning the program at `confirmed`, kept up with capped,
// jittered reconnects. It only names signatures; each is then read with getTransaction.
import type { Address } from '@solana/kit';
import type { Logger } from 'pino';
import type { SolanaRpcSubscriptions } from '../app-deps.js';
import { createBackoff, sleep } from './backoff.js';

const STABLE_MS = 10_000;

export interface LogSubscriptionHandlers {
  /** The server acknowledged the subscription: from now on no signature is missed while it stays up. */
  onConnected(): void;
  onSignature(signature: string, slot: number): void;
  /** The subscription failed or dropped; a reconnect follows after the returned delay. */
  onDisconnected(error: unknown, retryInMs: number): void;
}

export async function runLogSubscription(
  deps: { subscriptions: SolanaRpcSubscriptions; programId: Address; logger: Logger },
  handlers: LogSubscriptionHandlers,
  signal: AbortSignal,
): Promise<void> {
  const backoff = createBackoff({ baseMs: 250, capMs: 15_000 });
  let connectedAt = 0;
  while (!signal.aborted) {
    const attempt = new AbortController();
    const stop = () => attempt.abort();
    signal.addEventListener('abort', stop, { once: true });
    try {
      const notifications = await deps.subscriptions
        .logsNotifications({ mentions: [deps.programId] }, { commitment: 'confirmed' })
        .subscribe({ abortSignal: attempt.signal });
      connectedAt = Date.now();
      handlers.onConnected();
      for await (const notification of notifications) {
        handlers.onSignature(notification.value.signature, Number(notification.context.slot));
      }
      if (signal.aborted) return;
      throw new Error('log subscription ended');
    } catch (error) {
      if (signal.aborted) return;
      // A subscription that stayed up a while starts the backoff over; one that flaps keeps climbing.
      if (connectedAt > 0 && Date.now() - connectedAt > STABLE_MS) backoff.reset();
      connectedAt = 0;
      const delay = backoff.next();
      handlers.onDisconnected(error, delay);
      await sleep(delay, signal);
    } finally {
      signal.removeEventListener('abort', stop);
      attempt.abort();
    }
  }
}
