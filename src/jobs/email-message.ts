// The e-mail form of an event: a subject that says what happened, plain text, and escaped HTML.
import { describeEvent, type EventContext, type EventLine } from '../domain/webhooks/event-text.js';
import { escapeHtml } from '../lib/html.js';

export interface EmailMessage {
  subject: string;
  text: string;
  html: string;
}

/** Builds the message for any event from its shared text, with the time it happened as the last line. */
export function buildEmailMessage(
  event: string,
  payload: { timestamp?: unknown; data?: unknown },
  context: EventContext = {},
): EmailMessage {
  const text = describeEvent(event, payload, context);
  const time = typeof payload.timestamp === 'string' && payload.timestamp !== '' ? payload.timestamp : null;
  const lines = time === null ? text.lines : [...text.lines, { label: 'Time', value: time }];
  return {
    subject: `[Vaultkeeper] ${text.title.trim()}`,
    ...render(text.summary, lines, { ...text.links, actionable: text.actionable }),
  };
}

function render(
  intro: string,
  lines: EventLine[],
  links: { page: string | null; blink: string | null; actionable: boolean },
): { text: string; html: string } {
  const width = Math.max(...lines.map((l) => l.label.length), 0);
  const { page, blink } = links;
  const text = [
    intro,
    '',
    ...lines.map((l) => `${`${l.label}:`.padEnd(width + 2)}${l.value}`),
    ...(page === null && blink === null ? [] : ['']),
    ...(page === null
      ? []
      : [`${links.actionable ? 'Approve or reject in your browser' : 'See it'}: ${page}`]),
    ...(blink === null ? [] : [`Blink (approve or reject): ${blink}`]),
    '',
    '— Vaultkeeper',
  ].join('\n');
  const rows = lines
    .map((l) => `<tr><th align="left">${escapeHtml(l.label)}</th><td>${escapeHtml(l.value)}</td></tr>`)
    .join('');
  const html = [
    '<!doctype html><html><body>',
    `<p>${escapeHtml(intro)}</p>`,
    `<table cellpadding="4">${rows}</table>`,
    page === null
      ? ''
      : `<p><a href="${escapeHtml(page)}">${links.actionable ? 'Approve or reject in your browser' : 'See the override'}</a></p>`,
    blink === null ? '' : `<p><a href="${escapeHtml(blink)}">Open the Blink to approve or reject</a></p>`,
    '<p>— Vaultkeeper</p>',
    '</body></html>',
  ].join('');
  return { text, html };
}
