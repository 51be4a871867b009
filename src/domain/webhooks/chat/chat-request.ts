// The HTTP request of a chat delivery: the platform's body built from the stored payload, sent to the
// destination's own URL without any signature header, and the platform's wait after a 429.
import type { EventContext } from '../event-text.js';
import { buildChatMessage } from './chat-message.js';
import { type ChatFormat, parseTelegramUrl } from './destination.js';
import { buildDiscordBody, discordRequestUrl } from './discord.js';
import { buildSlackBody } from './slack.js';
import { buildTelegramBody } from './telegram.js';

export interface ChatRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

/**
 * The request for one delivery; `payload` is the stored JSON text of `{ id, event, timestamp, data }`,
 * `context` what the worker adds (the vault's name).
 */
export function buildChatRequest(
  format: ChatFormat,
  url: string,
  payload: string,
  context: EventContext = {},
): ChatRequest {
  const parsed = JSON.parse(payload) as { event?: unknown; timestamp?: unknown; data?: unknown };
  const message = buildChatMessage(String(parsed.event ?? ''), parsed, context);
  const headers = { 'content-type': 'application/json' };
  switch (format) {
    case 'slack':
      return { url, body: JSON.stringify(buildSlackBody(message)), headers };
    case 'discord':
      return { url: discordRequestUrl(url), body: JSON.stringify(buildDiscordBody(message)), headers };
    case 'telegram': {
      const target = parseTelegramUrl(new URL(url));
      if (target === null) throw new Error('telegram destination without a bot token and chat id');
      return {
        url: target.endpoint,
        body: JSON.stringify(buildTelegramBody(message, target.chatId)),
        headers,
      };
    }
  }
}

/** Longest wait a platform's 429 can impose on one delivery (the schedule still applies after it). */
export const MAX_PLATFORM_WAIT_MS = 6 * 60 * 60 * 1000;

/**
 * How long a 429 asks to wait, in ms: Discord's `retry_after` (seconds, fractional) or Telegram's
 * `parameters.retry_after` in the JSON body, else the `Retry-After` header (`headerMs`); null when
 * neither says.
 */
export function parsePlatformRetryAfterMs(
  statusCode: number | null,
  responseBody: string | null,
  headerMs: number | null,
): number | null {
  if (statusCode !== 429) return null;
  const fromBody = retryAfterInBody(responseBody);
  const ms = fromBody ?? headerMs;
  return ms === null ? null : Math.min(ms, MAX_PLATFORM_WAIT_MS);
}

function retryAfterInBody(responseBody: string | null): number | null {
  if (responseBody === null) return null;
  let body: unknown;
  try {
    body = JSON.parse(responseBody);
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null) return null;
  const record = body as { retry_after?: unknown; parameters?: { retry_after?: unknown } };
  const seconds = record.retry_after ?? record.parameters?.retry_after;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0
    ? Math.ceil(seconds * 1000)
    : null;
}
