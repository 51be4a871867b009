// The two signature schemes of a delivery (docs/WEBHOOKS.md, What a delivery looks like): the Vaultkeeper hex HMAC and Standard Webhooks.
// The wire format (secret prefix, signed texts, the body's signature field) is @vaultkeeper/webhooks' own.
import { createHmac, randomBytes } from 'node:crypto';
import {
  spliceSignature,
  standardKeyText,
  standardSignedText,
  WEBHOOK_SECRET_PREFIX,
} from '@vaultkeeper/webhooks';

/** A new subscription secret: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** Hex HMAC-SHA256 keyed by the secret string's UTF-8 bytes over the payload text. */
export function signVaultkeeper(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload, 'utf8').digest('hex');
}

/** Standard Webhooks `v1,<base64>` keyed by the base64-decoded part after `whsec_`. */
export function signStandard(
  secret: string,
  webhookId: string,
  timestampSeconds: number,
  body: string,
): string {
  const key = Buffer.from(standardKeyText(secret), 'base64');
  const mac = createHmac('sha256', key)
    .update(standardSignedText(webhookId, timestampSeconds, body), 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

export interface SigningSecrets {
  secret: string;
  /** The secret before the last rotation, while it still signs (null when none or expired). */
  previousSecret: string | null;
}

export interface SignedDelivery {
  body: string;
  headers: Record<string, string>;
}

/**
 * The exact request of one attempt. `payload` is the stored JSON text of {id, event, timestamp, data};
 * the body is that text with `signature` appended, so the signed text is the body's start.
 */
export function buildSignedDelivery(input: {
  deliveryId: string;
  event: string;
  payload: string;
  secrets: SigningSecrets;
  attemptAt: Date;
}): SignedDelivery {
  const signature = signVaultkeeper(input.secrets.secret, input.payload);
  const body = spliceSignature(input.payload, signature);
  const timestamp = Math.floor(input.attemptAt.getTime() / 1000);
  const standard = [input.secrets.secret, input.secrets.previousSecret]
    .filter((s): s is string => s !== null)
    .map((s) => signStandard(s, input.deliveryId, timestamp, body));
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-vaultkeeper-signature': signature,
      'x-vaultkeeper-event': input.event,
      'webhook-id': input.deliveryId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': standard.join(' '),
    },
  };
}

/** The previous secret only while its overlap window lasts. */
export function activePreviousSecret(
  previousSecret: string | null,
  expiresAt: Date | null,
  now: Date,
): string | null {
  return previousSecret !== null && expiresAt !== null && expiresAt.getTime() > now.getTime()
    ? previousSecret
    : null;
}
