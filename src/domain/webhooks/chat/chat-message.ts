// What a chat message says about an event, before any platform's markup: a title, one sentence, labelled
// fields, a colour and at most one button. Every text here is raw; each platform escapes it its own way.
import { formatSol } from '../../../lib/lamports.js';

export interface ChatField {
  label: string;
  value: string;
  /** An address, signature or other machine text: shown in code style where the platform has one. */
  code?: boolean;
}

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
}

const COLORS = { bad: 0xd64545, good: 0x2e9d5b, ask: 0xe8a317, info: 0x3b82f6, quiet: 0x8a8f98 };

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

const sol = (value: unknown): string | null => {
  const text = str(value);
  return text !== null && /^\d{1,20}$/.test(text) ? `${formatSol(BigInt(text))} SOL` : text;
};

const short = (address: string | null): string =>
  address !== null && address.length > 12 ? `${address.slice(0, 4)}…${address.slice(-4)}` : (address ?? '?');

const webLink = (value: unknown): string | null => {
  const text = str(value);
  return text !== null && /^https?:\/\/[^\s]+$/.test(text) && text.length <= 512 ? text : null;
};

/** The event's message; an event this code does not know yet lists its data. */
export function buildChatMessage(
  event: string,
  payload: { timestamp?: unknown; data?: unknown },
): ChatMessage {
  const data = (typeof payload.data === 'object' && payload.data !== null ? payload.data : {}) as Data;
  const vault = str(data.vault) ?? str(data.address);
  const name = str(data.name);
  const context = { data, vaultLabel: name ?? short(vault), fields: [] as ChatField[] };
  const add = (label: string, value: string | null, code = false) => {
    if (value !== null) context.fields.push({ label, value, ...(code ? { code } : {}) });
  };
  if (name !== null) add('Vault name', name);
  add('Vault', vault, true);
  const described = describe(event, context, add);
  const page = webLink(data.approvalUrl);
  return {
    ...described,
    fields: context.fields,
    url: page,
    button: described.approvable && page !== null ? { label: 'Approve or reject', url: page } : null,
    timestamp: str(payload.timestamp),
  };
}

interface Described {
  title: string;
  summary: string;
  color: number;
  approvable: boolean;
}

type Add = (label: string, value: string | null, code?: boolean) => void;

const say = (title: string, summary: string, color: number, approvable = false): Described => ({
  title,
  summary,
  color,
  approvable,
});

type Context = { data: Data; vaultLabel: string };

function describe(event: string, ctx: Context, add: Add): Described {
  return event.startsWith('transaction.') || event.startsWith('override.')
    ? describeTransfer(event, ctx, add)
    : describeVaultEvent(event, ctx, add);
}

/** Transfers and approval requests (overrides). */
function describeTransfer(event: string, ctx: Context, add: Add): Described {
  const { data, vaultLabel } = ctx;
  const amount = sol(data.amount);
  const reason = str(data.blockReason);
  const reasonText = reason === null ? null : (REASONS[reason] ?? reason);
  const transfer = () => {
    add('Amount', amount);
    add('Destination', str(data.destination), true);
  };
  switch (event) {
    case 'transaction.blocked':
      transfer();
      add('Reason', reasonText);
      add('Signature', str(data.signature), true);
      return say(
        `Transfer blocked: ${amount ?? 'a transfer'} from ${vaultLabel}`,
        'A transfer from your vault was blocked by its policy. You can approve or reject it.',
        COLORS.bad,
        true,
      );
    case 'transaction.executed':
      transfer();
      add('Signature', str(data.signature), true);
      return say(
        `Transfer sent: ${amount ?? 'a transfer'} from ${vaultLabel}`,
        'A transfer from your vault was executed.',
        COLORS.good,
      );
    case 'override.created':
    case 'override.expiring':
      transfer();
      add('Reason', reasonText);
      add('Minutes left', str(data.minutesLeft));
      add('Expires', str(data.expiresAt));
      return event === 'override.created'
        ? say(
            `Approval requested: ${amount ?? 'a transfer'} from ${vaultLabel}`,
            'A blocked transfer waits for your approval.',
            COLORS.ask,
            true,
          )
        : say(
            `Approval expires in ${str(data.minutesLeft) ?? 'a few'} min: ${vaultLabel}`,
            'A transfer waiting for your approval expires soon.',
            COLORS.ask,
            true,
          );
    case 'override.approved':
    case 'override.executed':
    case 'override.rejected':
    case 'override.expired': {
      transfer();
      add('Status', str(data.status));
      const verb = event.slice('override.'.length);
      const color = verb === 'executed' ? COLORS.good : verb === 'approved' ? COLORS.info : COLORS.quiet;
      return say(
        `Override ${verb}: ${amount ?? 'a transfer'} from ${vaultLabel}`,
        `An approval request of your vault was ${verb}.`,
        color,
      );
    }
    default:
      return describeVaultEvent(event, ctx, add);
  }
}

/** Everything else about a vault: its state, its policy, alerts, the test event, and unknown events. */
function describeVaultEvent(event: string, ctx: Context, add: Add): Described {
  const { data, vaultLabel } = ctx;
  switch (event) {
    case 'vault.created':
    case 'vault.paused':
    case 'vault.resumed': {
      add('Daily limit', sol(data.dailyLimit));
      const verb = event.slice('vault.'.length);
      return say(
        `Vault ${verb}: ${vaultLabel}`,
        `Your vault was ${verb}.`,
        verb === 'paused' ? COLORS.bad : COLORS.info,
      );
    }
    case 'policy.updated':
      add('Daily limit', sol(data.dailyLimit));
      add('Whitelisted addresses', str(data.whitelistCount));
      add('Agent signer', str(data.agentSigner), true);
      return say(`Policy updated: ${vaultLabel}`, 'The policy of your vault changed.', COLORS.info);
    case 'budget.threshold':
      add('Spent today', sol(data.spentToday));
      add('Daily limit', sol(data.dailyLimit));
      add('Remaining', sol(data.remaining));
      add('Resets at', str(data.resetsAt));
      add('Signature', str(data.signature), true);
      return say(
        `${str(data.threshold) ?? '?'}% of the daily limit spent: ${vaultLabel}`,
        'Your vault’s agent has spent this share of its daily limit in the current window.',
        COLORS.ask,
      );
    case 'agent.velocity':
      add('Agent', str(data.agentSigner), true);
      add('Transfers', str(data.count));
      add('Allowed', `${str(data.maxTransfers) ?? '?'} in ${str(data.windowSeconds) ?? '?'} s`);
      add('Since', str(data.since));
      return say(
        `Unusual agent activity: ${str(data.count) ?? 'many'} transfers from ${vaultLabel}`,
        'Your vault’s agent made more transfer attempts than your velocity alert allows.',
        COLORS.bad,
      );
    case 'webhook.test':
      return say(
        'Test notification',
        'This is a test notification from Vaultkeeper. Your chat destination works.',
        COLORS.info,
      );
    default:
      for (const [key, value] of Object.entries(data).slice(0, 10)) {
        if (key !== 'vault' && key !== 'name') add(key, str(value));
      }
      return say(`${event}: ${vaultLabel}`, `Vaultkeeper event ${event}.`, COLORS.info);
  }
}
