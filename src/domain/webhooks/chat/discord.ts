// The Discord webhook body: `{ content, embeds: [one embed], components: [a link button] }`, markdown
// escaped and no mention ever resolved.
import type { ChatField, ChatMessage } from './chat-message.js';
import { escapeWithin } from './fit-text.js';

/** Discord's documented limits (Embed limits, Message components, Execute Webhook). */
export const DISCORD_LIMITS = {
  content: 2000,
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  embedTotal: 6000,
  buttonLabel: 80,
  buttonUrl: 512,
  value: 300,
};

/** A backslash before every markdown, mention, link and emoji character makes it show as typed. */
export function escapeDiscord(raw: string): string {
  return raw.replace(/[\\`*_~|<>#[\]()@:!-]/g, '\\$&');
}

const isPlainToken = (value: string) => /^[A-Za-z0-9]+$/.test(value);

function embedField(field: ChatField) {
  const value =
    field.code === true && isPlainToken(field.value)
      ? `\`${field.value.slice(0, DISCORD_LIMITS.value)}\``
      : escapeWithin(field.value, DISCORD_LIMITS.value, escapeDiscord);
  return { name: escapeWithin(field.label, 100, escapeDiscord), value, inline: field.value.length <= 40 };
}

/** Fields are dropped from the end until the embed's characters are within Discord's total. */
function fitFields(title: string, description: string, fields: ReturnType<typeof embedField>[]) {
  const kept = fields.slice(0, DISCORD_LIMITS.fields);
  const size = () =>
    title.length + description.length + kept.reduce((n, f) => n + f.name.length + f.value.length, 0);
  while (kept.length > 0 && size() > DISCORD_LIMITS.embedTotal) kept.pop();
  return kept;
}

export function buildDiscordBody(message: ChatMessage) {
  const title = escapeWithin(message.title, DISCORD_LIMITS.title, escapeDiscord);
  const description = escapeWithin(message.summary, DISCORD_LIMITS.description, escapeDiscord);
  const embed = {
    title,
    description,
    ...(message.url === null ? {} : { url: message.url }),
    color: message.color,
    ...(message.timestamp === null || Number.isNaN(Date.parse(message.timestamp))
      ? {}
      : { timestamp: new Date(message.timestamp).toISOString() }),
    fields: fitFields(title, description, message.fields.map(embedField)),
  };
  const button =
    message.button !== null && message.button.url.length <= DISCORD_LIMITS.buttonUrl ? message.button : null;
  return {
    content: escapeWithin(message.title, DISCORD_LIMITS.content, escapeDiscord),
    embeds: [embed],
    components:
      button === null
        ? []
        : [
            {
              type: 1,
              components: [
                {
                  type: 2,
                  style: 5,
                  label: button.label.slice(0, DISCORD_LIMITS.buttonLabel),
                  url: button.url,
                },
              ],
            },
          ],
    allowed_mentions: { parse: [] },
  };
}

/** Discord shows a plain (not app-owned) webhook's link buttons only when asked with this parameter. */
export function discordRequestUrl(url: string): string {
  const target = new URL(url);
  target.searchParams.set('with_components', 'true');
  return target.toString();
}
