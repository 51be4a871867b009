// What a chat message says about an event, before any platform's markup: the event's shared text
// (title, sentence, labelled fields), a colour and at most one button. Each platform escapes it its own way.
import { describeEvent, type EventContext, type EventLine, type EventTone } from '../event-text.js';

export type ChatField = EventLine;

export interface ChatMessage {
  title: string;
  summary: string;
  fields: ChatField[];
  /** The page the title links to (the approval page of an override), or null. */
  url: string | null;
  /** The button: only for events the owner can act on (a pending approval). */
  button: { label: string; url: string } | null;
  /** 0xRRGGBB. */
  color: number;
  /** When the event happened (ISO). */
  timestamp: string | null;
  /** The vault it is about: its name (null when it has none) and short address. */
  vault: { name: string | null; short: string } | null;
}

const COLORS: Record<EventTone, number> = {
  bad: 0xd64545,
  good: 0x2e9d5b,
  ask: 0xe8a317,
  info: 0x3b82f6,
  quiet: 0x8a8f98,
};

/** The event's message; an event this code does not know yet lists its data. */
export function buildChatMessage(
  event: string,
  payload: { timestamp?: unknown; data?: unknown },
  context: EventContext = {},
): ChatMessage {
  const text = describeEvent(event, payload, context);
  const page = text.links.page;
  return {
    title: text.title,
    summary: text.summary,
    fields: text.lines,
    url: page,
    button: text.actionable && page !== null ? { label: 'Approve or reject', url: page } : null,
    color: COLORS[text.tone],
    timestamp: typeof payload.timestamp === 'string' && payload.timestamp !== '' ? payload.timestamp : null,
    vault: text.vault,
  };
}
