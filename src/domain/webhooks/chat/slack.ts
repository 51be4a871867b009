// The Slack incoming-webhook body: `{ text, blocks }` with one mrkdwn section and, for a pending
// approval, an actions block whose button opens the approval page.
import type { ChatField, ChatMessage } from './chat-message.js';
import { escapeWithin, joinLinesWithin } from './fit-text.js';

/** Slack's documented limits (Block Kit reference). */
export const SLACK_LIMITS = { sectionText: 3000, text: 3000, buttonText: 75, buttonUrl: 3000, value: 300 };

/** mrkdwn gives `&`, `<` and `>` meaning (entities, links, mentions): they are sent as entities. */
export function escapeSlack(raw: string): string {
  return raw.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

const isPlainToken = (value: string) => /^[A-Za-z0-9]+$/.test(value);

function fieldLine(field: ChatField): string {
  const label = escapeWithin(field.label, 100, escapeSlack);
  const value =
    field.code === true && isPlainToken(field.value)
      ? `\`${field.value.slice(0, SLACK_LIMITS.value)}\``
      : escapeWithin(field.value, SLACK_LIMITS.value, escapeSlack);
  return `*${label}:* ${value}`;
}

export function buildSlackBody(message: ChatMessage) {
  const lines = [
    `*${escapeWithin(message.title, 300, escapeSlack)}*`,
    escapeWithin(message.summary, 500, escapeSlack),
    ...message.fields.map(fieldLine),
  ];
  const blocks: unknown[] = [
    { type: 'section', text: { type: 'mrkdwn', text: joinLinesWithin(lines, SLACK_LIMITS.sectionText) } },
  ];
  if (message.button !== null && message.button.url.length <= SLACK_LIMITS.buttonUrl) {
    blocks.push({
      type: 'actions',
      elements: [
        {
          type: 'button',
          text: { type: 'plain_text', text: message.button.label.slice(0, SLACK_LIMITS.buttonText) },
          url: message.button.url,
          style: 'primary',
          action_id: 'vaultkeeper_open_approval',
        },
      ],
    });
  }
  return { text: escapeWithin(message.title, SLACK_LIMITS.text, escapeSlack), blocks };
}
