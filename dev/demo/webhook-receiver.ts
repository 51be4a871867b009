// The demo's webhook receiver (the test receiver on 127.0.0.1): checks both signatures of every
// delivery, as a real receiver should, notes repeats of a delivery id, and prints one line per delivery.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { createWebhookReceiver } from '../support/webhook-receiver.js';

export interface WebhookReceiver {
  readonly url: string;
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

function sameHex(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

export async function startWebhookReceiver(print: (line: string) => void): Promise<WebhookReceiver> {
  let secret: string | null = null;
  let verbose = true;
  const seen = new Set<string>();
  const totals = { received: 0, verified: 0, failed: 0 };

  function verify(raw: string, delivery: Delivery, headers: IncomingHttpHeaders): string | null {
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
    responder: ({ body: raw, headers }) => {
      let delivery: Delivery;
      try {
        delivery = JSON.parse(raw) as Delivery;
      } catch {
        return { status: 400 };
      }
      totals.received += 1;
      const problem = verify(raw, delivery, headers);
      if (problem === null) totals.verified += 1;
      else totals.failed += 1;
      const repeat = seen.has(delivery.id);
      seen.add(delivery.id);
      if (verbose || problem !== null) {
        const vault =
          typeof delivery.data?.vault === 'string' ? ` vault ${delivery.data.vault.slice(0, 6)}…` : '';
        const check = problem === null ? 'signatures ok' : `REJECTED: ${problem}`;
        print(
          `${delivery.event.padEnd(20)}${vault}  ${check}${repeat ? ' (retry of a delivery already seen)' : ''}`,
        );
      }
      return problem === null ? { status: 200, body: 'ok' } : { status: 401 };
    },
  });
  return {
    url: receiver.url,
    setSecret: (value) => {
      secret = value;
    },
    setVerbose: (value) => {
      verbose = value;
    },
    counts: () => ({ ...totals }),
    close: () => receiver.close(),
  };
}
