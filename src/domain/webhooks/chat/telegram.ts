// The Telegram Bot API sendMessage body: HTML text, and for a pending approval an inline keyboard
// with one URL button to the approval page.
import type { ChatField, ChatMessage } from './chat-message.js';
import { escapeWithin, joinLinesWithin } from './fit-text.js';

/** Telegram's documented limit: message text 1–4096 characters. */
export const TELEGRAM_LIMITS = { text: 4096, value: 300, buttonText: 64 };

/** parse_mode HTML knows only &lt; &gt; &amp; &quot;: these four characters are sent as entities. */
export function escapeTelegram(raw: string): string {
  return raw
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

const isPlainToken = (value: string) => /^[A-Za-z0-9]+$/.test(value);

function fieldLine(field: ChatField): string {
  const value =
    field.code === true && isPlainToken(field.value)
      ? `<code>${field.value.slice(0, TELEGRAM_LIMITS.value)}</code>`
      : escapeWithin(field.value, TELEGRAM_LIMITS.value, escapeTelegram);
  return `<b>${escapeWithin(field.label, 100, escapeTelegram)}:</b> ${value}`;
}

export function buildTelegramBody(message: ChatMessage, chatId: string) {
  const lines = [
    `<b>${escapeWithin(message.title, 300, escapeTelegram)}</b>`,
    escapeWithin(message.summary, 500, escapeTelegram),
    '',
    ...message.fields.map(fieldLine),
  ];
  return {
    chat_id: chatId,
    text: joinLinesWithin(lines, TELEGRAM_LIMITS.text),
    parse_mode: 'HTML',
    link_preview_options: { is_disabled: true },
    ...(message.button === null
      ? {}
      : {
          reply_markup: {
            inline_keyboard: [
              [{ text: message.button.label.slice(0, TELEGRAM_LIMITS.buttonText), url: message.button.url }],
            ],
          },
        }),
  };
}
