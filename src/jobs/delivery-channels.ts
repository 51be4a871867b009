// One attempt over the subscription's channel: a signed HTTP POST, or an e-mail for `mailto:`.
import type { Logger } from 'pino';
import type { SecretBox } from '../domain/webhooks/secret-box.js';
import { activePreviousSecret, buildSignedDelivery } from '../domain/webhooks/signatures.js';
import { mailtoAddress } from '../domain/webhooks/subscription-url.js';
import { findEventContext, type VaultNameLookup } from '../domain/webhooks/vault-names.js';
import { chatFormatOf, sendChatDelivery } from './chat-channel.js';
import type { ClaimedDelivery } from './delivery.js';
import { buildEmailMessage } from './email-message.js';
import type { EmailSender } from './email-sender.js';
import type { HttpSender, SendOutcome } from './http-sender.js';

export type Channel = 'webhook' | 'email';

export interface Senders {
  http: HttpSender;
  email: EmailSender | null;
  secretBox: SecretBox;
  /** Names the vault in e-mail and chat messages (without it they show its short address only). */
  vaultNames?: VaultNameLookup;
}

export async function sendDelivery(
  delivery: ClaimedDelivery,
  startedAt: Date,
  senders: Senders,
): Promise<{ channel: Channel; outcome: SendOutcome }> {
  const to = mailtoAddress(delivery.url);
  if (to !== null) {
    if (senders.email === null) {
      const error = 'e-mail delivery is not configured (SMTP_URL is unset)';
      return {
        channel: 'email',
        outcome: { ok: false, statusCode: null, error, retryAfter: null, responseBody: null },
      };
    }
    const context = await findEventContext(delivery.payload, senders.vaultNames);
    const message = buildEmailMessage(delivery.event, JSON.parse(delivery.payload), context);
    const outcome = await senders.email.send({ to, deliveryId: delivery.id, event: delivery.event, message });
    return { channel: 'email', outcome };
  }
  const format = chatFormatOf(delivery);
  if (format !== null) {
    const context = await findEventContext(delivery.payload, senders.vaultNames);
    return {
      channel: 'webhook',
      outcome: await sendChatDelivery({ ...delivery, format }, startedAt, senders, context),
    };
  }
  const previous = activePreviousSecret(delivery.previousSecret, delivery.previousSecretExpiresAt, startedAt);
  const signed = buildSignedDelivery({
    deliveryId: delivery.id,
    event: delivery.event,
    payload: delivery.payload,
    secrets: {
      secret: senders.secretBox.open(delivery.secret),
      previousSecret: previous === null ? null : senders.secretBox.open(previous),
    },
    attemptAt: startedAt,
  });
  return { channel: 'webhook', outcome: await senders.http.send({ url: delivery.url, ...signed }) };
}

/** Sends over the delivery's channel; a crash is an attempt like any other, so it too runs out of retries. */
export function sendOrCrash(
  delivery: ClaimedDelivery,
  startedAt: Date,
  senders: Senders,
  logger: Logger,
): Promise<{ channel: Channel; outcome: SendOutcome }> {
  return sendDelivery(delivery, startedAt, senders).catch((error: unknown) => {
    logger.error({ err: (error as Error).message, deliveryId: delivery.id }, 'delivery crashed');
    const outcome = {
      ok: false,
      statusCode: null,
      error: 'internal_error',
      retryAfter: null,
      responseBody: null,
    };
    return { channel: 'webhook' as const, outcome };
  });
}
