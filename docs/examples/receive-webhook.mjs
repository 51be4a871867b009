// Receiving Vaultkeeper webhooks with the package's verifier (@vaultkeeper/webhooks): Standard Webhooks
// signature, timestamp tolerance and secret rotation in one call. Run:
//   WEBHOOK_SECRET=whsec_... node receive-webhook.mjs
// During a rotation, pass both secrets: WEBHOOK_SECRET=whsec_new,whsec_old
import { createServer } from 'node:http';
import { verifyWebhook, WebhookVerificationError } from '@vaultkeeper/webhooks';

/** A receiver: 401 with the reason on a refused delivery, 200 once handled; dedupe on `id`. */
export function createReceiver(secrets, onEvent) {
  const seen = new Set();
  return createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', async () => {
      try {
        // The raw bytes as received, never a re-serialized object.
        const event = await verifyWebhook({ secrets, rawBody: Buffer.concat(chunks), headers: req.headers });
        if (!seen.has(event.id)) {
          seen.add(event.id);
          await onEvent(event);
        }
        res.writeHead(200).end();
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error;
        res.writeHead(401, { 'content-type': 'text/plain' }).end(error.code);
      }
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const secrets = (process.env.WEBHOOK_SECRET ?? '').split(',').filter(Boolean);
  if (secrets.length === 0)
    throw new Error('Set WEBHOOK_SECRET to the whsec_… secret you got when subscribing');
  const port = Number(process.env.PORT ?? 8080);
  createReceiver(secrets, (event) => console.log(event.event, JSON.stringify(event.data))).listen(port);
  console.log(`listening on :${port}`);
}
