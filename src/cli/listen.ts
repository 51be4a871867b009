// vaultkeeper listen: reads the live feed and POSTs each event of the owner's vaults to a local URL,
// signed exactly as a webhook delivery is (both schemes, one whsec_ secret), for developing a receiver.
import { createVaultkeeperClient, type FeedEvent, VaultkeeperError } from '@vaultkeeper/client';
import { FEED_EVENTS, standardKeyText, WEBHOOK_SECRET_PREFIX } from '@vaultkeeper/webhooks';
import { buildSignedDelivery, generateWebhookSecret } from '../domain/webhooks/signatures.js';
import {
  type ApiAccess,
  callApi,
  parseAddress,
  parseEventNames,
  parseHttpUrl,
  type Values,
} from './api-commands.js';
import { CliError, EXIT, type Output } from './output.js';

/** As a webhook delivery: success is a 2xx within this time. */
const FORWARD_TIMEOUT_MS = 10_000;

export interface ListenSettings {
  forwardTo: string;
  vault: string | undefined;
  events: readonly string[] | undefined;
  secret: string;
  /** True when the secret was made here (then it is printed: the receiver needs it). */
  generated: boolean;
}

export function parseListenSettings(values: Values): ListenSettings {
  const forwardTo = typeof values['forward-to'] === 'string' ? values['forward-to'] : undefined;
  if (forwardTo === undefined) {
    throw new CliError(
      '--forward-to <url> is required',
      EXIT.usage,
      'e.g. --forward-to http://localhost:4000/webhooks',
    );
  }
  const given = typeof values.secret === 'string' ? values.secret : undefined;
  if (given !== undefined && !isWebhookSecret(given)) {
    throw new CliError('--secret must be whsec_ followed by base64', EXIT.usage);
  }
  return {
    forwardTo: parseHttpUrl(forwardTo, '--forward-to'),
    vault: parseAddress(typeof values.vault === 'string' ? values.vault : undefined, '--vault'),
    events: parseEventNames(typeof values.events === 'string' ? values.events : undefined, FEED_EVENTS),
    secret: given ?? generateWebhookSecret(),
    generated: given === undefined,
  };
}

/** `whsec_` followed by base64 of at least three bytes. */
function isWebhookSecret(text: string): boolean {
  return text.startsWith(WEBHOOK_SECRET_PREFIX) && /^[A-Za-z0-9+/]{4,}={0,2}$/.test(standardKeyText(text));
}

/** Decides whether an event is the owner's: by its vault's authority, read once per vault. */
function createOwnership(client: ReturnType<typeof createVaultkeeperClient>, wallet: string) {
  const known = new Map<string, boolean>();
  return async (vault: string | null): Promise<boolean> => {
    if (vault === null) return false;
    const cached = known.get(vault);
    if (cached !== undefined) return cached;
    try {
      const owned = (await client.vaults.get(vault)).authority === wallet;
      known.set(vault, owned);
      return owned;
    } catch (error) {
      if (error instanceof VaultkeeperError && error.status === 404) return false;
      throw error;
    }
  };
}

/** One POST, signed as a delivery of the event; answers the status line printed for it. */
async function forward(settings: ListenSettings, event: FeedEvent, signal: AbortSignal): Promise<string> {
  const id = `feed_${event.id}`;
  const payload = JSON.stringify({
    id,
    event: event.name,
    timestamp: event.blockTime ?? new Date().toISOString(),
    data: event,
  });
  const delivery = buildSignedDelivery({
    deliveryId: id,
    event: event.name,
    payload,
    secrets: { secret: settings.secret, previousSecret: null },
    attemptAt: new Date(),
  });
  try {
    const response = await fetch(settings.forwardTo, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body,
      redirect: 'manual',
      signal: AbortSignal.any([signal, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]),
    });
    await response.body?.cancel();
    return String(response.status);
  } catch (error) {
    if (signal.aborted) throw error;
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return `failed (${cause ?? (error as Error).message})`;
  }
}

/** Runs until the signal aborts: reads, filters, forwards, and reconnects after drops. */
export async function runListen(
  settings: ListenSettings,
  access: ApiAccess,
  out: Output,
  signal: AbortSignal,
) {
  const client = createVaultkeeperClient({ baseUrl: access.baseUrl, signer: access.apiKey, maxRetries: 1 });
  const { wallet } = await callApi(access, () => client.auth.verify({ signal }));
  const owns = createOwnership(client, wallet);
  if (settings.vault !== undefined && !(await callApi(access, () => owns(settings.vault!)))) {
    throw new CliError(`vault ${settings.vault} is not one of ${wallet}'s vaults`, EXIT.failed);
  }
  out.note(
    `Forwarding ${settings.events?.join(', ') ?? 'every event'} of ${settings.vault ?? `the vaults of ${wallet}`} from ${access.baseUrl} to ${settings.forwardTo}`,
  );
  if (settings.generated)
    out.note(`Webhook signing secret: ${settings.secret} (verify deliveries with it; Ctrl-C stops)`);
  const stream = client.events.stream({
    vault: settings.vault,
    reconnect: true,
    signal,
    onReconnect: ({ error, delayMs, lastEventId }) =>
      out.note(
        `stream dropped (${(error as Error).message}); reconnecting in ${delayMs} ms, after event ${lastEventId ?? 'none'}`,
      ),
  });
  try {
    for await (const event of stream) {
      if (settings.events !== undefined && !settings.events.includes(event.name)) continue;
      if (!(await callApi(access, () => owns(event.vault)))) continue;
      const status = await forward(settings, event, signal);
      out.line(`${event.name}  feed_${event.id}  → ${status}`);
      out.record({ event: event.name, id: `feed_${event.id}`, status });
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
  return EXIT.ok;
}
