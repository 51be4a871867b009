// A local stand-in for Slack, Discord or Telegram: checks each request against the platform's
// documented schema and limits (chat-platforms.ts) and answers the way the platform does.

import type { ReceivedRequest, Reply, WebhookReceiver } from '../../dev/support/webhook-receiver.js';
import { createWebhookReceiver } from '../../dev/support/webhook-receiver.js';
import { validateDiscordBody, validateSlackBody, validateTelegramBody } from './chat-platforms.js';

export type ChatPlatform = 'slack' | 'discord' | 'telegram';

export const TELEGRAM_TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';

export interface ChatReceiver {
  readonly receiver: WebhookReceiver;
  /** The destination URL a subscription is given (its path or query holds the secret part). */
  readonly url: string;
  /** Every problem found in any request (empty = the platform accepted everything). */
  readonly problems: string[];
  /** The parsed bodies the platform accepted. */
  readonly accepted: unknown[];
  /** Answers the next requests before validation (e.g. a 429); null = validate and accept. */
  override(reply: ((request: ReceivedRequest, index: number) => Reply | null) | null): void;
}

const SIGNATURE_HEADERS = ['x-vaultkeeper-signature', 'webhook-signature', 'webhook-id', 'webhook-timestamp'];

function problemsOf(platform: ChatPlatform, request: ReceivedRequest): string[] {
  const problems: string[] = [];
  const url = new URL(request.path, 'http://receiver');
  if (request.method !== 'POST') problems.push(`method ${request.method}`);
  if (request.headers['content-type'] !== 'application/json')
    problems.push('content-type is not application/json');
  for (const header of SIGNATURE_HEADERS)
    if (header in request.headers) problems.push(`signature header ${header} sent`);
  let body: unknown;
  try {
    body = JSON.parse(request.body);
  } catch {
    return [...problems, 'body is not JSON'];
  }
  if (platform === 'slack') {
    if (url.pathname !== '/services/T0001/B0001/xoxSecretPart1234abcd') problems.push(`path ${url.pathname}`);
    problems.push(...validateSlackBody(body));
  } else if (platform === 'discord') {
    if (url.pathname !== '/api/webhooks/1234567890/dscSecretToken5678wxyz')
      problems.push(`path ${url.pathname}`);
    problems.push(...validateDiscordBody(body, url.searchParams));
  } else {
    if (url.pathname !== `/bot${TELEGRAM_TOKEN}/sendMessage`) problems.push(`path ${url.pathname}`);
    if (url.search !== '') problems.push('chat_id sent in the query as well as the body');
    problems.push(...validateTelegramBody(body));
  }
  return problems;
}

/** The platform's answers: Slack `ok`, Discord 204, Telegram `{ ok: true }`; and their 400s. */
function answer(platform: ChatPlatform, ok: boolean): Reply {
  if (platform === 'slack') return ok ? { status: 200, body: 'ok' } : { status: 400, body: 'invalid_blocks' };
  if (platform === 'discord')
    return ok ? { status: 204 } : { status: 400, body: '{"message":"Invalid Form Body","code":50035}' };
  const json = { 'content-type': 'application/json' };
  return ok
    ? { status: 200, headers: json, body: '{"ok":true,"result":{"message_id":1}}' }
    : { status: 400, headers: json, body: '{"ok":false,"error_code":400,"description":"Bad Request"}' };
}

export async function createChatReceiver(platform: ChatPlatform): Promise<ChatReceiver> {
  const problems: string[] = [];
  const accepted: unknown[] = [];
  let before: ((request: ReceivedRequest, index: number) => Reply | null) | null = null;
  const receiver = await createWebhookReceiver({
    responder: (request, index) => {
      const early = before?.(request, index) ?? null;
      if (early !== null) return early;
      const found = problemsOf(platform, request);
      problems.push(...found);
      if (found.length === 0) accepted.push(JSON.parse(request.body));
      return answer(platform, found.length === 0);
    },
  });
  const origin = `http://127.0.0.1:${receiver.port}`;
  const url =
    platform === 'slack'
      ? `${origin}/services/T0001/B0001/xoxSecretPart1234abcd`
      : platform === 'discord'
        ? `${origin}/api/webhooks/1234567890/dscSecretToken5678wxyz`
        : `${origin}/bot${TELEGRAM_TOKEN}/sendMessage?chat_id=-1001234567890`;
  return {
    receiver,
    url,
    problems,
    accepted,
    override(reply) {
      before = reply;
    },
  };
}
