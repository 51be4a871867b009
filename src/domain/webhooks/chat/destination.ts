// Chat destinations: which platform a subscription's URL is for, whether a given format fits it, and
// the masked form of the URL that responses show (the URL itself holds the destination's secret).
import { validationError } from '../../../errors.js';
import { WEBHOOK_FORMATS, type WebhookFormat } from '../../../storage/schema/webhooks.js';

export { WEBHOOK_FORMATS, type WebhookFormat };
export type ChatFormat = Exclude<WebhookFormat, 'json'>;

export const isChatFormat = (format: WebhookFormat): format is ChatFormat => format !== 'json';

const DISCORD_HOSTS = new Set(['discord.com', 'discordapp.com', 'ptb.discord.com', 'canary.discord.com']);
const TELEGRAM_PATH = /^\/bot(\d{1,20}:[A-Za-z0-9_-]{20,100})\/sendMessage$/;
/** A numeric chat (negative for groups and channels) or a public channel's @username. */
const TELEGRAM_CHAT_ID = /^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})$/;

/** The platform a URL obviously belongs to, by its host (and path for Discord), or null. */
export function detectFormat(url: URL): ChatFormat | null {
  const host = url.hostname.toLowerCase();
  if (url.protocol !== 'https:') return null;
  if (host === 'hooks.slack.com') return 'slack';
  if (DISCORD_HOSTS.has(host) && url.pathname.startsWith('/api/webhooks/')) return 'discord';
  if (host === 'api.telegram.org') return 'telegram';
  return null;
}

/** Where a Telegram message goes: the bot's sendMessage endpoint (without the query) and the chat. */
export interface TelegramTarget {
  endpoint: string;
  chatId: string;
}

/** The endpoint and chat of a `…/bot<token>/sendMessage?chat_id=<id>` URL, or null when it is not one. */
export function parseTelegramUrl(url: URL): TelegramTarget | null {
  if (!TELEGRAM_PATH.test(url.pathname)) return null;
  const chatIds = url.searchParams.getAll('chat_id');
  if (chatIds.length !== 1 || !TELEGRAM_CHAT_ID.test(chatIds[0]!)) return null;
  if ([...url.searchParams.keys()].some((key) => key !== 'chat_id') || url.hash !== '') return null;
  return { endpoint: `${url.origin}${url.pathname}`, chatId: chatIds[0]! };
}

/**
 * The format a subscription delivers in: the one asked for, else the one its URL shows, else json.
 * A format that contradicts a known platform's URL, a chat format for `mailto:`, or a Telegram
 * format without a bot token and chat id is a VALIDATION_ERROR naming `body.format`. The URL is
 * never quoted in the message: it holds a secret.
 */
export function resolveFormat(url: string, requested: WebhookFormat | undefined): WebhookFormat {
  const fail = (message: string) => validationError([{ path: 'body.format', message }]);
  const parsed = new URL(url);
  if (parsed.protocol === 'mailto:') {
    if (requested !== undefined && requested !== 'json') throw fail(`${requested} needs an https:// URL`);
    return 'json';
  }
  const detected = detectFormat(parsed);
  const format = requested ?? detected ?? 'json';
  if (detected !== null && format !== detected) {
    throw fail(
      `${format} does not match the URL, which is a ${detected} webhook (omit format or use ${detected})`,
    );
  }
  if (format === 'telegram' && parseTelegramUrl(parsed) === null) {
    throw fail(
      'telegram needs a URL of the form https://api.telegram.org/bot<token>/sendMessage?chat_id=<id>',
    );
  }
  return format;
}

/** What a response shows of a chat destination's URL: the origin and the last 4 characters. */
export function maskUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}/…${url.slice(-4)}`;
}

/** How a subscription's destination is stored: a chat URL only masked in `url`, in full sealed. */
export interface StoredDestination {
  url: string;
  format: WebhookFormat;
  sealedUrl: string | null;
}

export function toStoredDestination(
  url: string,
  format: WebhookFormat,
  seal: (secret: string) => string,
): StoredDestination {
  return isChatFormat(format)
    ? { url: maskUrl(url), format, sealedUrl: seal(url) }
    : { url, format, sealedUrl: null };
}
