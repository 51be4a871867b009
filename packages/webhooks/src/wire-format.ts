// The wire format of a delivery, written once: the server signs with it and verifyWebhook reads with it.
// Strings only (no crypto), so the server's node:crypto signer and this package's Web Crypto verifier
// compute their HMACs over exactly the same text.

/** Every subscription secret starts with this; the rest is base64 of the Standard Webhooks key. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** What the body carries after the signed payload: `…,"signature":"<hex>"}`. */
const SIGNATURE_FIELD = ',"signature":"';

/** The base64 text of a secret's Standard Webhooks key (the part after `whsec_`, if present). */
export function standardKeyText(secret: string): string {
  return secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
}

/** The text a Standard Webhooks signature covers: `<webhook-id>.<webhook-timestamp>.<body>`. */
export function standardSignedText(
  webhookId: string,
  timestampSeconds: number | string,
  body: string,
): string {
  return `${webhookId}.${timestampSeconds}.${body}`;
}

/** The body of a delivery: the payload's JSON object with the hex Vaultkeeper HMAC of it as its last field. */
export function spliceSignature(payload: string, signatureHex: string): string {
  return `${payload.slice(0, -1)}${SIGNATURE_FIELD}${signatureHex}"}`;
}

/**
 * The inverse of spliceSignature: the payload text that was signed and what follows the signature
 * field (`<hex>"}` when well formed), or null when the body carries no signature field.
 */
export function splitSignature(body: string): { signed: string; signatureTail: string } | null {
  const cut = body.lastIndexOf(SIGNATURE_FIELD);
  if (cut === -1) return null;
  return { signed: `${body.slice(0, cut)}}`, signatureTail: body.slice(cut + SIGNATURE_FIELD.length) };
}
