// The demo's webhook receiver (the test receiver on 127.0.0.1): checks both signatures of every
// delivery, as a real receiver should, notes repeats of a delivery id, and prints one line per delivery.
// Two paths, each with its own secret: the webhook subscription's (url) and the one the printed
// `vaultkeeper listen --secret` signs with (listenUrl), so both kinds of delivery verify.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { WEBHOOK_SECRET_PREFIX } from '@vaultkeeper/webhooks';
import { Webhook } from 'standardwebhooks';
import { createWebhookReceiver } from '../support/webhook-receiver.js';

export interface WebhookReceiver {
  /** Where the demo's webhook subscription delivers. */
  readonly url: string;
  /** Where `vaultkeeper listen` forwards: deliveries signed with listenSecret. */
  readonly listenUrl: string;
  readonly listenSecret: string;
  /** The subscription's secret, known once the subscription is created. */
  setSecret(secret: string): void;
  /** Print each delivery (true) or only count them (false, for the fast-forwarded history). */
  setVerbose(verbose: boolean): void;
  counts(): { received: number; verified: number; failed: number };
  close(): Promise<void>;
}

interface Delivery {
  id: string;
  event: string;
  timestamp: string;
  data: Record<string, unknown>;
  signature: string;
}

const LISTEN_PATH = '/listen';

function sameHex(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

export async function startWebhookReceiver(print: (line: string) => void): Promise<WebhookReceiver> {
  let subscriptionSecret: string | null = null;
  const listenSecret = `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
  let verbose = true;
  const seen = new Set<string>();
  const totals = { received: 0, verified: 0, failed: 0 };

  function verify(
    secret: string | null,
    raw: string,
    delivery: Delivery,
    headers: IncomingHttpHeaders,
  ): string | null {
    if (secret === null) return 'no secret yet';
    // The body signature covers the body's text up to its `signature` field.
    const signed = JSON.stringify({
      id: delivery.id,
      event: delivery.event,
      timestamp: delivery.timestamp,
      data: delivery.data,
    });
    const expected = createHmac('sha256', secret).update(signed).digest('hex');
    if (!raw.startsWith(signed.slice(0, -1))) return 'body does not start with the signed text';
    if (!sameHex(expected, delivery.signature)) return 'body signature mismatch';
    if (!sameHex(expected, String(headers['x-vaultkeeper-signature'] ?? '')))
      return 'header signature mismatch';
    try {
      new Webhook(secret).verify(raw, headers as Record<string, string>);
    } catch (error) {
      return `standard webhook signature: ${(error as Error).message}`;
    }
    return null;
  }

  const receiver = await createWebhookReceiver({
    responder: ({ body: raw, headers, path }) => {
      const fromListen = path.startsWith(LISTEN_PATH);
      let delivery: Delivery;
      try {
        delivery = JSON.parse(raw) as Delivery;
      } catch {
        return { status: 400 };
      }
      totals.received += 1;
      const problem = verify(fromListen ? listenSecret : subscriptionSecret, raw, delivery, headers);
      if (problem === null) totals.verified += 1;
      else totals.failed += 1;
      const repeat = seen.has(delivery.id);
      seen.add(delivery.id);
      if (verbose || problem !== null) {
        const vault =
          typeof delivery.data?.vault === 'string' ? ` vault ${delivery.data.vault.slice(0, 6)}…` : '';
        const check = problem === null ? 'signatures ok' : `REJECTED: ${problem}`;
        print(
          `${fromListen ? 'listen  ' : ''}${delivery.event.padEnd(20)}${vault}  ${check}${repeat ? ' (retry of a delivery already seen)' : ''}`,
        );
      }
      return problem === null ? { status: 200, body: 'ok' } : { status: 401 };
    },
  });
  const origin = new URL(receiver.url).origin;
  return {
    url: receiver.url,
    listenUrl: `${origin}${LISTEN_PATH}`,
    listenSecret,
    setSecret: (value) => {
      subscriptionSecret = value;
    },
    setVerbose: (value) => {
      verbose = value;
    },
    counts: () => ({ ...totals }),
    close: () => receiver.close(),
  };
}
