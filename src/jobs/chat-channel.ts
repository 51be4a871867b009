// One attempt of a chat delivery (Slack, Discord, Telegram): the platform's body to the destination's
// own URL, opened from its sealed form only here; a 429's wait is read from the body or the header.

import { buildChatRequest, parsePlatformRetryAfterMs } from '../domain/webhooks/chat/chat-request.js';
import { type ChatFormat, isChatFormat, type WebhookFormat } from '../domain/webhooks/chat/destination.js';
import type { EventContext } from '../domain/webhooks/event-text.js';
import type { SecretBox } from '../domain/webhooks/secret-box.js';
import type { HttpSender, SendOutcome } from './http-sender.js';
import { parseRetryAfterMs } from './retry-policy.js';

/** The chat format of a claimed delivery, or null for a signed JSON (or e-mail) one. */
export function chatFormatOf(delivery: { format: WebhookFormat }): ChatFormat | null {
  return isChatFormat(delivery.format) ? delivery.format : null;
}

export async function sendChatDelivery(
  delivery: { format: ChatFormat; sealedUrl: string | null; payload: string },
  startedAt: Date,
  senders: { http: HttpSender; secretBox: SecretBox },
  context: EventContext = {},
): Promise<SendOutcome> {
  if (delivery.sealedUrl === null) throw new Error('chat destination without its URL');
  const url = senders.secretBox.open(delivery.sealedUrl);
  const outcome = await senders.http.send(buildChatRequest(delivery.format, url, delivery.payload, context));
  const headerMs = parseRetryAfterMs(outcome.retryAfter, startedAt);
  const platformWaitMs = parsePlatformRetryAfterMs(outcome.statusCode, outcome.responseBody, headerMs);
  return platformWaitMs === null ? outcome : { ...outcome, platformWaitMs };
}
