// The e-mail form of an event: a subject that says what happened, plain text, and escaped HTML.
import { escapeHtml } from '../lib/html.js';
import { formatSol } from '../lib/lamports.js';

export interface EmailMessage {
  subject: string;
  text: string;
  html: string;
}

interface Line {
  label: string;
  value: string;
}

const REASONS: Record<string, string> = {
  not_whitelisted: 'destination not on the whitelist',
  exceeded_daily_limit: 'daily limit exceeded',
  insufficient_funds: 'insufficient funds',
};

const str = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : null;

function sol(value: unknown): string | null {
  const text = str(value);
  return text !== null && /^\d{1,20}$/.test(text)
    ? `${formatSol(BigInt(text))} SOL (${text} lamports)`
    : text;
}

const short = (address: string | null): string =>
  address !== null && address.length > 12 ? `${address.slice(0, 4)}…${address.slice(-4)}` : (address ?? '?');

/** Builds the message for any event; unknown events fall back to listing their data. */
export function buildEmailMessage(
  event: string,
  payload: { timestamp?: unknown; data?: unknown },
): EmailMessage {
  const data = (payload.data ?? {}) as Record<string, unknown>;
  const vaultObject = (typeof data.vault === 'object' && data.vault !== null ? data.vault : {}) as Record<
    string,
    unknown
  >;
  const vault = str(data.vault) ?? str(vaultObject.address) ?? str(data.address);
  const vaultName = str(data.name) ?? str(vaultObject.name);
  const vaultLabel = vaultName !== null ? `${vaultName} (${short(vault)})` : short(vault);
  const amount = sol(data.amount);
  const reason = str(data.blockReason) ?? str(data.reason);
  // Only a pending request is worth acting on; later override mails link to the page to see its state.
  const actionable = ['transaction.blocked', 'override.created', 'override.expiring'].includes(event);
  const links = { page: str(data.approvalUrl), blink: actionable ? str(data.blinkUrl) : null, actionable };
  const lines: Line[] = [];
  const add = (label: string, value: string | null) => {
    if (value !== null) lines.push({ label, value });
  };
  add('Vault', vault);
  add('Vault name', vaultName);
  let subject: string;
  let intro: string;
  const alert = describeAlert(event, data, vaultLabel, add);
  if (alert !== null) ({ subject, intro } = alert);
  else
    switch (event) {
      case 'transaction.blocked':
        subject = `Transfer blocked: ${amount === null ? '' : `${formatShort(amount)} `}from ${vaultLabel}`;
        intro =
          'A transfer from your vault was blocked by its policy. You can approve or reject it with the link below.';
        break;
      case 'transaction.executed':
        subject = `Transfer sent: ${amount === null ? '' : `${formatShort(amount)} `}from ${vaultLabel}`;
        intro = 'A transfer from your vault was executed.';
        break;
      case 'override.created':
      case 'override.approved':
      case 'override.executed':
      case 'override.rejected': {
        const verb = event.split('.')[1];
        subject = `Override ${str(data.nonce) ?? ''} ${verb}: ${vaultLabel}`.replace('  ', ' ');
        intro = `An override request of your vault was ${verb}.`;
        break;
      }
      case 'vault.created':
      case 'vault.paused':
      case 'vault.resumed': {
        const verb = event.split('.')[1];
        subject = `Vault ${verb}: ${vaultLabel}`;
        intro = `Your vault was ${verb}.`;
        break;
      }
      case 'policy.updated':
        subject = `Policy updated: ${vaultLabel}`;
        intro = 'The policy of your vault changed.';
        add('Daily limit', sol(data.dailyLimit));
        add('Whitelisted addresses', str(data.whitelistCount));
        add('Agent signer', str(data.agentSigner));
        break;
      case 'webhook.test':
        subject = 'Test notification';
        intro = 'This is a test notification from Vaultkeeper. Your e-mail subscription works.';
        break;
      default:
        subject = `${event}: ${vaultLabel}`;
        intro = `Vaultkeeper event ${event}.`;
    }
  add('Amount', amount);
  add('Destination', str(data.destination));
  add('Reason', reason === null ? null : (REASONS[reason] ?? reason));
  add('Status', str(data.status));
  add('Override', event.startsWith('override.') ? null : str(data.nonce));
  add('Expires', str(data.expiresAt));
  add('Signature', str(data.signature));
  add('Time', str(payload.timestamp));
  return { subject: `[Vaultkeeper] ${subject.trim()}`, ...render(intro, lines, links) };
}

/** Subject, first line and figures of the alerts' mails (null: not an alert). */
function describeAlert(
  event: string,
  data: Record<string, unknown>,
  vaultLabel: string,
  add: (label: string, value: string | null) => void,
): { subject: string; intro: string } | null {
  switch (event) {
    case 'budget.threshold':
      add('Spent in this window', sol(data.spentToday));
      add('Daily limit', sol(data.dailyLimit));
      add('Remaining', sol(data.remaining));
      add('Window resets at', str(data.resetsAt));
      return {
        subject: `${str(data.threshold) ?? '?'} % of the daily limit spent: ${vaultLabel}`,
        intro: `Your vault's agent has spent ${str(data.threshold) ?? '?'} % of its daily limit in this window.`,
      };
    case 'agent.velocity':
      add('Agent signer', str(data.agentSigner));
      add('Attempts', str(data.count));
      add('Allowed', `${str(data.maxTransfers) ?? '?'} in ${str(data.windowSeconds) ?? '?'} s`);
      add('Since', str(data.since));
      return {
        subject: `Unusual transfer rate: ${vaultLabel}`,
        intro: "Your vault's agent is attempting more transfers than you set as usual.",
      };
    case 'override.expiring':
      add('Minutes left', str(data.minutesLeft));
      return {
        subject: `Approval expires in ${str(data.minutesLeft) ?? '?'} min: ${vaultLabel}`,
        intro: 'A blocked transfer is waiting for your decision and will expire soon.',
      };
    case 'override.expired':
      return {
        subject: `Approval expired: ${vaultLabel}`,
        intro: 'A blocked transfer waited for your decision and has expired; it can no longer be approved.',
      };
    default:
      return null;
  }
}

function formatShort(amountLine: string): string {
  return amountLine.replace(/ \(\d+ lamports\)$/, '');
}

const webLink = (link: string | null): string | null =>
  link !== null && /^https?:\/\//.test(link) ? link : null;

function render(
  intro: string,
  lines: Line[],
  links: { page: string | null; blink: string | null; actionable: boolean },
): { text: string; html: string } {
  const width = Math.max(...lines.map((l) => l.label.length), 0);
  const page = webLink(links.page);
  const blink = webLink(links.blink);
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
