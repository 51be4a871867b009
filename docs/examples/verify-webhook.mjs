// Receiving Vaultkeeper webhooks: verify the signature on the raw body before trusting anything.
// Node 18+, no dependencies. Run: WEBHOOK_SECRET=whsec_... node verify-webhook.mjs
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const TOLERANCE_SECONDS = 300;

function safeEqual(a, b) {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Standard Webhooks scheme (webhook-id, webhook-timestamp, webhook-signature headers).
 * After a secret rotation the header carries two signatures; any one matching is enough.
 */
export function verifyStandardWebhook(rawBody, headers, secret, nowSeconds = Math.floor(Date.now() / 1000)) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > TOLERANCE_SECONDS) return false; // replayed or stale
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest('base64');
  return signatures
    .split(' ')
    .some((entry) => entry.startsWith('v1,') && safeEqual(entry.slice(3), expected));
}

/**
 * Vaultkeeper scheme: hex HMAC-SHA256 (key = the whole secret string) of the body text that
 * precedes `,"signature":…`, sent in X-Vaultkeeper-Signature and as the body's `signature` field.
 */
export function verifyVaultkeeperSignature(rawBody, headers, secret) {
  const cut = rawBody.lastIndexOf(',"signature":"');
  if (cut === -1) return false;
  const signed = `${rawBody.slice(0, cut)}}`;
  const expected = createHmac('sha256', secret).update(signed).digest('hex');
  const fromBody = rawBody.slice(cut + ',"signature":"'.length, -2);
  const fromHeader = headers['x-vaultkeeper-signature'] ?? '';
  return safeEqual(fromHeader, expected) && safeEqual(fromBody, expected);
}

/** A receiver: 401 on a bad signature, 200 once handled; a delivery may arrive twice, so dedupe on `id`. */
export function createWebhookServer(secret, onEvent) {
  const seen = new Set();
  return createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', async () => {
      const rawBody = Buffer.concat(chunks).toString('utf8'); // verify the bytes as received, not re-serialized JSON
      // Standard Webhooks also covers secret rotation and replays; verifyVaultkeeperSignature is the alternative.
      if (!verifyStandardWebhook(rawBody, req.headers, secret)) {
        res.writeHead(401).end();
        return;
      }
      const event = JSON.parse(rawBody);
      if (!seen.has(event.id)) {
        seen.add(event.id);
        await onEvent(event);
      }
      res.writeHead(200).end();
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) throw new Error('Set WEBHOOK_SECRET to the whsec_… secret you got when subscribing');
  const port = Number(process.env.PORT ?? 8080);
  createWebhookServer(secret, (event) => console.log(event.event, JSON.stringify(event.data))).listen(port);
  console.log(`listening on :${port}`);
}
