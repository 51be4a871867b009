// The two signature schemes of a delivery (docs/WEBHOOKS.md, What a delivery looks like): the Vaultkeeper hex HMAC and Standard Webhooks.
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** A new subscription secret: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
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
  const key = Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    'base64',
  );
  const mac = createHmac('sha256', key)
    .update(`${webhookId}.${timestampSeconds}.${body}`, 'utf8')
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
  const body = `${input.payload.slice(0, -1)},"signature":"${signature}"}`;
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
