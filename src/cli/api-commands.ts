// Commands that act as an owner: they call the API with an API key, as any integration would, so the
// service applies its own rules (ownership, URL policy, secrets shown once). The key is never printed.
import {
  API_KEY_PATTERN,
  createVaultkeeperClient,
  VaultkeeperError,
  type WebhookFormat,
} from '@vaultkeeper/client';
import { WEBHOOK_EVENTS, type WebhookEventName } from '@vaultkeeper/webhooks';
import type { ClientEnvironment } from '../config.js';
import { isSolanaAddress } from '../lib/address.js';
import { isUuid } from '../lib/uuid.js';
import { CliError, EXIT, type Output } from './output.js';
import { closest } from './parse-command-line.js';

export type Values = Readonly<Record<string, string | boolean | undefined>>;

export interface ApiAccess {
  readonly baseUrl: string;
  readonly apiKey: string;
}

/** A string option's value (undefined when absent). */
export const text = (values: Values, name: string) => {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
};

/** The service URL and API key from the flags, else the environment (the URL last from PUBLIC_BASE_URL). */
export function resolveApiAccess(
  values: Values,
  env: ClientEnvironment,
  publicBaseUrl: () => string,
): ApiAccess {
  const apiKey = text(values, 'api-key') ?? env.apiKey;
  if (apiKey === undefined) {
    throw new CliError(
      'this command needs an API key: --api-key or VAULTKEEPER_API_KEY',
      EXIT.usage,
      'create one with a wallet signature (POST /api/api-keys, or Authorize on /docs); docs/AUTH.md, API keys',
    );
  }
  if (!API_KEY_PATTERN.test(apiKey)) {
    throw new CliError('the API key given is not one: vk_ followed by 43 characters', EXIT.usage);
  }
  const baseUrl = text(values, 'api-url') ?? env.apiUrl ?? publicBaseUrl();
  return { baseUrl: parseHttpUrl(baseUrl, '--api-url'), apiKey };
}

/** An http(s) URL, or exit 2 naming the option. */
export function parseHttpUrl(value: string, option: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`${option} must be an http:// or https:// URL, got "${value}"`, EXIT.usage);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(`${option} must be an http:// or https:// URL, got "${value}"`, EXIT.usage);
  }
  return url.toString();
}

export function parseAddress(value: string | undefined, option: string): string | undefined {
  if (value !== undefined && !isSolanaAddress(value)) {
    throw new CliError(`${option} must be a base58 address (32 bytes), got "${value}"`, EXIT.usage);
  }
  return value;
}

export function parseWebhookId(value: string | undefined): string {
  if (value === undefined) throw new CliError('--webhook <id> is required', EXIT.usage);
  if (!isUuid(value))
    throw new CliError(`--webhook must be a subscription id (uuid), got "${value}"`, EXIT.usage);
  return value;
}

/** Comma-separated names, each one of `known` (a typo gets a suggestion). */
export function parseEventNames<T extends string>(
  value: string | undefined,
  known: readonly T[],
): T[] | undefined {
  if (value === undefined) return undefined;
  const names = value.split(',').map((n) => n.trim());
  for (const name of names) {
    if (!(known as readonly string[]).includes(name)) {
      const near = closest(name, known);
      throw new CliError(
        `unknown event "${name}"${near === undefined ? '' : ` (did you mean "${near}"?)`}`,
        EXIT.usage,
        `events: ${known.join(', ')}`,
      );
    }
  }
  return names as T[];
}

/** Runs an API call; its failures become one line and exit 1 (the key is never part of them). */
export async function callApi<T>(access: ApiAccess, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof VaultkeeperError)) throw error;
    if (error.code === 'NETWORK_ERROR') {
      throw new CliError(
        `cannot reach the service at ${access.baseUrl}: ${error.message}`,
        EXIT.failed,
        'is it running? Set --api-url or VAULTKEEPER_URL',
      );
    }
    const reason = typeof error.details.reason === 'string' ? ` (${error.details.reason})` : '';
    const fix = error.status === 401 ? 'check the API key, or create another' : undefined;
    throw new CliError(`${error.status} ${error.code}${reason}: ${error.message}`, EXIT.failed, fix);
  }
}

const clientOf = (access: ApiAccess) =>
  createVaultkeeperClient({ baseUrl: access.baseUrl, signer: access.apiKey, maxRetries: 1 });

const WEBHOOK_FORMATS: readonly WebhookFormat[] = ['json', 'slack', 'discord', 'telegram'];

/** webhooks list with VAULTKEEPER_URL and VAULTKEEPER_API_KEY set: the key owner's subscriptions, from the service. */
export async function listWebhooksThroughApi(access: ApiAccess, out: Output) {
  const webhooks = await callApi(access, async () => {
    const all = [];
    for await (const webhook of clientOf(access).webhooks.all()) all.push(webhook);
    return all;
  });
  out.result({ webhooks });
  for (const w of webhooks)
    out.line(`${w.id} ${w.url} [${w.events.join(', ')}] ${w.active ? 'active' : 'disabled'}`);
  if (webhooks.length === 0) out.line('no subscriptions');
  return EXIT.ok;
}

/** webhooks create --url <url> --events <a,b> [--vault <address>] [--format <format>]: prints the secret once. */
export async function createWebhookCommand(values: Values, access: () => ApiAccess, out: Output) {
  const url = text(values, 'url');
  if (url === undefined) throw new CliError('--url <url> is required', EXIT.usage);
  const events = parseEventNames<WebhookEventName>(text(values, 'events'), WEBHOOK_EVENTS);
  if (events === undefined)
    throw new CliError('--events <a,b> is required', EXIT.usage, `events: ${WEBHOOK_EVENTS.join(', ')}`);
  const vault = parseAddress(text(values, 'vault'), '--vault');
  const format = text(values, 'format');
  if (format !== undefined && !WEBHOOK_FORMATS.includes(format as WebhookFormat)) {
    throw new CliError(`--format must be one of ${WEBHOOK_FORMATS.join(', ')}`, EXIT.usage);
  }
  const api = access();
  const created = await callApi(api, () =>
    clientOf(api).webhooks.create({
      url,
      events,
      ...(vault === undefined ? {} : { vault }),
      ...(format === undefined ? {} : { format: format as WebhookFormat }),
    }),
  );
  out.result(created);
  out.line(
    `created ${created.id} ${created.url} [${created.events.join(', ')}] ${created.vault ?? 'every vault you own'}`,
  );
  out.line(`signing secret (shown once, store it now): ${created.secret}`);
  return EXIT.ok;
}

/** webhooks test --webhook <id>: queues a webhook.test delivery. */
export async function testWebhookCommand(values: Values, access: () => ApiAccess, out: Output) {
  const id = parseWebhookId(text(values, 'webhook'));
  const api = access();
  const delivery = await callApi(api, () => clientOf(api).webhooks.test(id));
  out.result(delivery);
  out.line(`queued ${delivery.event} delivery ${delivery.id} to ${id}`);
  return EXIT.ok;
}

/** webhooks delete --webhook <id>. */
export async function deleteWebhookCommand(values: Values, access: () => ApiAccess, out: Output) {
  const id = parseWebhookId(text(values, 'webhook'));
  const api = access();
  await callApi(api, () => clientOf(api).webhooks.delete(id));
  out.result({ deleted: id });
  out.line(`deleted ${id}`);
  return EXIT.ok;
}

const DURATION = /^(\d{1,4})(m|h|d)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `--since`: an ISO 8601 date or date-time as is, or a duration back from now (`90m`, `6h`, `3d`). */
export function parseRecoverSince(value: string | undefined, now: Date): string {
  if (value === undefined)
    throw new CliError('--since <time> is required', EXIT.usage, 'an ISO date or time, or 90m, 6h, 3d back');
  const duration = DURATION.exec(value);
  if (duration === null) return value;
  const ms = Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS];
  return new Date(now.getTime() - ms).toISOString();
}

/** webhooks recover --webhook <id> --since <time>: re-sends every delivery whose last attempt failed. */
export async function recoverWebhookCommand(values: Values, access: () => ApiAccess, out: Output) {
  const id = parseWebhookId(text(values, 'webhook'));
  const since = parseRecoverSince(text(values, 'since'), new Date());
  const api = access();
  const recovered = await callApi(api, () => clientOf(api).webhooks.recover(id, { since }));
  out.result({ webhook: id, since, ...recovered });
  out.line(`${recovered.requeued} failed deliveries since ${since} queued to be sent again now`);
  if (recovered.remaining > 0)
    out.line(`${recovered.remaining} more left: run this again in ${recovered.cooldownSeconds} s`);
  return EXIT.ok;
}
