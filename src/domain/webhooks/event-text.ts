// What a notification says about an event, before any channel's markup: a title, one sentence and
// labelled lines. The e-mail and the chat messages both render this; each adds only its own frame.
import { formatSol } from '../../lib/lamports.js';

export interface EventLine {
  label: string;
  value: string;
  /** An address, signature or other machine text: shown in code style where the channel has one. */
  code?: boolean;
  /** The vault's name: text its owner typed, which a channel with plain-text elements shows in one. */
  vaultName?: boolean;
}

/** What the delivery knows beside the payload: the vault's name now (payloads of transfers carry none). */
export interface EventContext {
  vaultName?: string | null;
}

/** How the event reads at a glance; chat platforms show it as a colour. */
export type EventTone = 'bad' | 'good' | 'ask' | 'info' | 'quiet';

export interface EventText {
  title: string;
  summary: string;
  lines: EventLine[];
  tone: EventTone;
  /** A pending approval the owner can act on (a button, a Blink); later states only link to the page. */
  actionable: boolean;
  /** The approval page and the Blink, only when they are http(s) links. */
  links: { page: string | null; blink: string | null };
  /** The vault the event is about: its name (null when it has none) and short address. */
  vault: { name: string | null; short: string } | null;
}

const REASONS: Record<string, string> = {
  not_whitelisted: 'destination not on the whitelist',
  exceeded_daily_limit: 'daily limit exceeded',
  insufficient_funds: 'insufficient funds',
};

type Data = Record<string, unknown>;

const str = (value: unknown): string | null =>
  typeof value === 'string' && value !== ''
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : null;

/** Lamports as SOL, with the exact lamports beside them (`1.5 SOL (1500000000 lamports)`). */
function sol(value: unknown): string | null {
  const text = str(value);
  return text !== null && /^\d{1,20}$/.test(text)
    ? `${formatSol(BigInt(text))} SOL (${text} lamports)`
    : text;
}

/** Lamports as SOL only, for a title. */
function solShort(value: unknown): string | null {
  const text = str(value);
  return text !== null && /^\d{1,20}$/.test(text) ? `${formatSol(BigInt(text))} SOL` : text;
}

const short = (address: string | null): string =>
  address !== null && address.length > 12 ? `${address.slice(0, 4)}…${address.slice(-4)}` : (address ?? '?');

const webLink = (value: unknown): string | null => {
  const text = str(value);
  return text !== null && /^https?:\/\/[^\s]+$/.test(text) && text.length <= 512 ? text : null;
};

type Add = (label: string, value: string | null, code?: boolean) => void;
type Context = { data: Data; vaultLabel: string; add: Add };
type Described = Pick<EventText, 'title' | 'summary' | 'tone' | 'actionable'>;

const say = (title: string, summary: string, tone: EventTone, actionable = false): Described => ({
  title,
  summary,
  tone,
  actionable,
});

const dataOf = (payload: { data?: unknown }) =>
  (typeof payload.data === 'object' && payload.data !== null ? payload.data : {}) as Data;

/** The address of the vault an event is about (`data.vault`, `data.vault.address` or `data.address`). */
export function findEventVault(payload: { data?: unknown }): string | null {
  const data = dataOf(payload);
  const vaultObject = (typeof data.vault === 'object' && data.vault !== null ? data.vault : {}) as Data;
  return str(data.vault) ?? str(vaultObject.address) ?? str(data.address);
}

/** How a message names the vault: its name beside its short address, or the short address alone. */
export function buildVaultLabel(name: string | null, vault: string | null): string {
  if (name === null) return short(vault);
  return vault === null ? name : `${name} (${short(vault)})`;
}

/** The text of any event; an event this code does not know yet lists its data. */
export function describeEvent(
  event: string,
  payload: { data?: unknown },
  context: EventContext = {},
): EventText {
  const data = dataOf(payload);
  const vaultObject = (typeof data.vault === 'object' && data.vault !== null ? data.vault : {}) as Data;
  const vault = findEventVault(payload);
  const name = str(data.name) ?? str(vaultObject.name) ?? str(context.vaultName);
  const lines: EventLine[] = [];
  const add: Add = (label, value, code = false) => {
    if (value !== null) lines.push({ label, value, ...(code ? { code } : {}) });
  };
  if (name !== null) lines.push({ label: 'Vault name', value: name, vaultName: true });
  add('Vault', vault, true);
  const described = describeTransfer(event, { data, vaultLabel: buildVaultLabel(name, vault), add });
  const blink = described.actionable ? webLink(data.blinkUrl) : null;
  return {
    ...described,
    lines,
    links: { page: webLink(data.approvalUrl), blink },
    vault: vault === null && name === null ? null : { name, short: short(vault) },
  };
}

/** Transfers and overrides. */
function describeTransfer(event: string, ctx: Context): Described {
  const { data, vaultLabel, add } = ctx;
  const amount = solShort(data.amount);
  const amountFrom = `${amount === null ? '' : `${amount} `}from ${vaultLabel}`;
  const reason = str(data.blockReason) ?? str(data.reason);
  const transfer = () => {
    add('Amount', sol(data.amount));
    add('Destination', str(data.destination), true);
  };
  switch (event) {
    case 'transaction.blocked':
      transfer();
      add('Reason', reason === null ? null : (REASONS[reason] ?? reason));
      add('Override', str(data.nonce));
      add('Signature', str(data.signature), true);
      return say(
        `Transfer blocked: ${amountFrom}`,
        'A transfer from your vault was blocked by its policy. You can approve or reject it.',
        'bad',
        true,
      );
    case 'transaction.executed':
      transfer();
      add('Signature', str(data.signature), true);
      return say(`Transfer sent: ${amountFrom}`, 'A transfer from your vault was executed.', 'good');
    case 'transaction.dropped':
      add('Signature', str(data.signature), true);
      add('Slot', str(data.slot));
      add('Was', str(data.previousStatus));
      return say(
        `Transaction dropped: ${vaultLabel}`,
        'The cluster dropped a transaction of your vault before it was final: it no longer counts.',
        'info',
      );
    case 'override.created':
    case 'override.expiring':
      transfer();
      add('Reason', reason === null ? null : (REASONS[reason] ?? reason));
      add('Minutes left', str(data.minutesLeft));
      add('Expires', str(data.expiresAt));
      return event === 'override.created'
        ? say(
            `Override ${str(data.nonce) ?? ''} created: ${vaultLabel}`.replace('  ', ' '),
            'A blocked transfer waits for your approval.',
            'ask',
            true,
          )
        : say(
            `Approval expires in ${str(data.minutesLeft) ?? '?'} min: ${vaultLabel}`,
            'A blocked transfer is waiting for your decision and will expire soon.',
            'ask',
            true,
          );
    case 'override.expired':
      transfer();
      add('Status', str(data.status));
      return say(
        `Approval expired: ${vaultLabel}`,
        'A blocked transfer waited for your decision and has expired; it can no longer be approved.',
        'quiet',
      );
    case 'override.approved':
    case 'override.executed':
    case 'override.rejected': {
      transfer();
      add('Status', str(data.status));
      add('Signature', str(data.signature), true);
      const verb = event.slice('override.'.length);
      return say(
        `Override ${str(data.nonce) ?? ''} ${verb}: ${vaultLabel}`.replace('  ', ' '),
        `An override of your vault was ${verb}.`,
        verb === 'executed' ? 'good' : verb === 'approved' ? 'info' : 'quiet',
      );
    }
    default:
      return describeVaultEvent(event, ctx);
  }
}

/** Everything else about a vault: its state, its policy, alerts, the test event, and unknown events. */
function describeVaultEvent(event: string, ctx: Context): Described {
  const { data, vaultLabel, add } = ctx;
  switch (event) {
    case 'vault.created':
    case 'vault.paused':
    case 'vault.resumed': {
      add('Daily limit', sol(data.dailyLimit));
      const verb = event.slice('vault.'.length);
      return say(
        `Vault ${verb}: ${vaultLabel}`,
        `Your vault was ${verb}.`,
        verb === 'paused' ? 'bad' : 'info',
      );
    }
    case 'policy.updated':
      add('Daily limit', sol(data.dailyLimit));
      add('Whitelisted addresses', str(data.whitelistCount));
      add('Agent signer', str(data.agentSigner), true);
      return say(`Policy updated: ${vaultLabel}`, 'The policy of your vault changed.', 'info');
    case 'budget.threshold':
      add('Spent in this window', sol(data.spentToday));
      add('Daily limit', sol(data.dailyLimit));
      add('Remaining', sol(data.remaining));
      add('Window resets at', str(data.resetsAt));
      add('Signature', str(data.signature), true);
      return say(
        `${str(data.threshold) ?? '?'} % of the daily limit spent: ${vaultLabel}`,
        `Your vault's agent has spent ${str(data.threshold) ?? '?'} % of its daily limit in this window.`,
        'ask',
      );
    case 'agent.velocity':
      add('Agent signer', str(data.agentSigner), true);
      add('Attempts', str(data.count));
      add('Allowed', `${str(data.maxTransfers) ?? '?'} in ${str(data.windowSeconds) ?? '?'} s`);
      add('Since', str(data.since));
      return say(
        `Unusual transfer rate: ${vaultLabel}`,
        "Your vault's agent is attempting more transfers than you set as usual.",
        'bad',
      );
    case 'webhook.test':
      return say(
        'Test notification',
        'This is a test notification from Vaultkeeper. This destination works.',
        'info',
      );
    default:
      for (const [key, value] of Object.entries(data).slice(0, 10)) {
        if (key !== 'vault' && key !== 'name') add(key, str(value));
      }
      return say(`${event}: ${vaultLabel}`, `Vaultkeeper event ${event}.`, 'info');
  }
}
