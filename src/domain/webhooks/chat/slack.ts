// The Slack incoming-webhook body: `{ text, blocks }`: the title as a header and the vault's name in a
// context line (plain text: mrkdwn has no escape for * _ ~ `, so text someone typed never enters it),
// one mrkdwn section and, for a pending approval, an actions block whose button opens the approval page.
import type { ChatField, ChatMessage } from './chat-message.js';
import { escapeWithin, joinLinesWithin } from './fit-text.js';

/** Slack's documented limits (Block Kit reference). */
export const SLACK_LIMITS = {
  sectionText: 3000,
  text: 3000,
  header: 150,
  contextText: 300,
  buttonText: 75,
  buttonUrl: 3000,
  value: 300,
};

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

/** Plain text cut to `max` characters on whole code points (plain_text needs no escaping). */
function plainWithin(raw: string, max: number): string {
  return escapeWithin(raw, max, (text) => text);
}

/** The vault's name beside its short address, as plain text. */
function vaultContext(message: ChatMessage) {
  const vault = message.vault;
  if (vault === null || vault.name === null) return [];
  const text = plainWithin(`Vault: ${vault.name} (${vault.short})`, SLACK_LIMITS.contextText);
  return [{ type: 'context', elements: [{ type: 'plain_text', text, emoji: false }] }];
}

export function buildSlackBody(message: ChatMessage) {
  const lines = [
    escapeWithin(message.summary, 500, escapeSlack),
    ...message.fields.filter((f) => f.vaultName !== true).map(fieldLine),
  ];
  const blocks: unknown[] = [
    {
      type: 'header',
      text: { type: 'plain_text', text: plainWithin(message.title, SLACK_LIMITS.header), emoji: false },
    },
    ...vaultContext(message),
    {
      type: 'section',
      // verbatim: no URL, channel or mention in the text is turned into a link.
      text: { type: 'mrkdwn', text: joinLinesWithin(lines, SLACK_LIMITS.sectionText), verbatim: true },
    },
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
  // The notification's text: not read as mrkdwn; its control characters still go as entities.
  return { text: escapeWithin(message.title, SLACK_LIMITS.text, escapeSlack), mrkdwn: false, blocks };
}
