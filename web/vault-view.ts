// The sections of the vault page, each built from API data.
import type { Override, Realtime, Transaction, Vault } from './api.js';
import { approvalPathOf, pathOf } from './blink-links.js';
import { h } from './dom.js';
import {
  describeBlockReason,
  formatAgo,
  formatDateTime,
  formatDuration,
  formatTime,
  shortAddress,
  sol,
} from './format.js';
import type { FeedEvent, FeedStatus } from './live-feed.js';

export function vaultHeader(vault: Vault, status: FeedStatus): HTMLElement {
  const live = { live: 'Live', connecting: 'Connecting…', reconnecting: 'Reconnecting…' }[status];
  return h(
    'section',
    { class: 'card vault-head' },
    h(
      'div',
      { class: 'card-head' },
      h('h1', { 'data-testid': 'vault-name' }, vault.name.trim() === '' ? 'Unnamed vault' : vault.name),
      h(
        'span',
        {
          class: `badge ${vault.paused ? 'badge-rejected' : 'badge-executed'}`,
          'data-testid': 'vault-state',
        },
        vault.paused ? 'Paused' : 'Active',
      ),
      h('span', { class: 'badge badge-neutral' }, `${vault.tier} tier`),
      h('span', { class: `live live-${status}`, 'data-testid': 'live-status', role: 'status' }, live),
    ),
    h(
      'dl',
      { class: 'facts facts-compact' },
      h('dt', {}, 'Vault'),
      h('dd', {}, h('code', { class: 'address' }, vault.address)),
      h('dt', {}, 'Deposit address'),
      h('dd', {}, h('code', { class: 'address' }, vault.depositAddress)),
      h('dt', {}, 'Owner'),
      h('dd', {}, h('code', { class: 'address' }, vault.authority)),
      h('dt', {}, 'Agent'),
      h('dd', {}, vault.agentSigner === '' ? '—' : h('code', { class: 'address' }, vault.agentSigner)),
      h('dt', {}, 'Whitelist'),
      h('dd', {}, vault.whitelistCount === 0 ? 'any destination' : `${vault.whitelistCount} destinations`),
    ),
  );
}

function stat(label: string, value: Node | string, note?: Node | string, testId?: string): HTMLElement {
  return h(
    'div',
    { class: 'stat', 'data-testid': testId },
    h('span', { class: 'stat-label' }, label),
    h('span', { class: 'stat-value' }, value),
    note === undefined ? null : h('span', { class: 'stat-note muted' }, note),
  );
}

export function vaultStats(vault: Vault, realtime: Realtime | null): HTMLElement {
  const spent = realtime?.spentToday ?? vault.spentToday;
  const limit = realtime?.dailyLimit ?? vault.dailyLimit;
  const pct =
    realtime?.utilizationPct ??
    (BigInt(limit) === 0n ? 0 : Number((BigInt(spent) * 10_000n) / BigInt(limit)) / 100);
  const meter = h('div', {
    class: `meter${pct >= 90 ? ' meter-high' : ''}`,
    role: 'meter',
    'aria-valuemin': 0,
    'aria-valuemax': 100,
    'aria-valuenow': pct.toFixed(2),
  });
  const fill = h('div', { class: 'meter-fill' });
  // CSSOM writes are allowed under the page's style-src 'self' policy (unlike style attributes).
  fill.style.width = `${Math.min(100, pct)}%`;
  meter.appendChild(fill);
  return h(
    'section',
    { class: 'stats' },
    stat(
      'Balance',
      realtime === null ? '—' : sol(realtime.balance),
      realtime === null ? 'chain unavailable' : 'held at the deposit address',
      'balance',
    ),
    stat(
      'Spent today',
      sol(spent),
      h('span', {}, `of ${sol(limit)} daily limit (${pct.toFixed(1)}%)`, meter),
      'spent-today',
    ),
    stat(
      'Transfers today',
      String(realtime?.transactionsToday ?? '—'),
      realtime?.lastTransaction ? `last ${formatAgo(realtime.lastTransaction)}` : undefined,
    ),
    stat(
      'All-time volume',
      sol(vault.stats.totalVolume),
      `${vault.stats.transactionCount} transactions, ${vault.stats.blockedCount} blocked`,
      'total-volume',
    ),
  );
}

const STATUS_LABELS = { executed: 'Executed', blocked: 'Blocked', pending: 'Pending' } as const;
const STATUS_BADGES = {
  executed: 'badge-executed',
  blocked: 'badge-rejected',
  pending: 'badge-pending',
} as const;

export function transactionTable(transactions: readonly Transaction[]): HTMLElement {
  if (transactions.length === 0) return h('p', { class: 'muted' }, 'No transactions yet.');
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'table', 'data-testid': 'transactions' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', {}, 'Time'),
          h('th', {}, 'Status'),
          h('th', { class: 'num' }, 'Amount'),
          h('th', {}, 'Destination'),
          h('th', {}, 'Note'),
        ),
      ),
      h(
        'tbody',
        {},
        ...transactions.map((t) =>
          h(
            'tr',
            { 'data-id': t.id, 'data-status': t.status },
            h('td', {}, formatDateTime(t.timestamp)),
            h('td', {}, h('span', { class: `badge ${STATUS_BADGES[t.status]}` }, STATUS_LABELS[t.status])),
            h('td', { class: 'num' }, sol(t.amount)),
            h('td', {}, h('code', { title: t.destination }, shortAddress(t.destination))),
            h('td', {}, transactionNote(t)),
          ),
        ),
      ),
    ),
  );
}

/** A blocked transfer that asked for an approval links to its approval page. */
function blockedNote(t: Transaction): Node | string {
  const reason = describeBlockReason(t.blockReason);
  const path = t.blinkUrl === undefined ? null : approvalPathOf(t.blinkUrl);
  if (path === null) return reason;
  return h('span', {}, `${reason} · `, h('a', { href: path, 'data-testid': 'approval-link' }, 'Approval'));
}

function transactionNote(t: Transaction): Node | string {
  if (t.status === 'blocked') return blockedNote(t);
  if (t.status === 'pending') return 'approved override, executing';
  return t.feeCollected && BigInt(t.feeCollected) > 0n ? `fee ${sol(t.feeCollected)}` : '';
}

export function pendingOverrides(overrides: readonly Override[], now = Date.now()): HTMLElement {
  const open = overrides.filter((o) => !o.expired && new Date(o.expiresAt).getTime() > now);
  if (open.length === 0)
    return h('p', { class: 'muted', 'data-testid': 'no-overrides' }, 'Nothing waits for your approval.');
  return h(
    'ul',
    { class: 'override-list', 'data-testid': 'pending-overrides' },
    ...open.map((o) =>
      h(
        'li',
        {},
        h('span', { class: 'override-amount' }, sol(o.amount)),
        h(
          'span',
          { class: 'muted' },
          ` to ${shortAddress(o.destination)} · ${formatDuration(new Date(o.expiresAt).getTime() - now)} left`,
        ),
        h(
          'a',
          {
            class: 'button button-primary button-small',
            // Its own approval page on this host (later requests of a nonce carry ?transfer=).
            href: pathOf(o.approvalUrl),
          },
          'Review',
        ),
      ),
    ),
  );
}

const str = (value: unknown) => (typeof value === 'string' ? value : '');

/** A policy change names what changed: the program tells the limit, the whitelist and the agent apart. */
function describePolicyChange(event: FeedEvent): string {
  if (event.programEvent === 'WhitelistUpdated') return 'Whitelist updated';
  if (event.programEvent === 'AgentSignerUpdated') return 'Agent signer updated';
  return `Policy updated: daily limit ${sol(str(event.data.dailyLimit) || '0')}`;
}

/** One line per ingested event, as it arrives. */
function describeEvent(event: FeedEvent): string {
  const d = event.data;
  switch (event.name) {
    case 'transaction.executed':
      return `Sent ${sol(str(d.amount) || '0')} to ${shortAddress(str(d.destination))}`;
    case 'transaction.blocked':
      return `Blocked ${sol(str(d.amount) || '0')} to ${shortAddress(str(d.destination))}: ${describeBlockReason(str(d.reason))}`;
    case 'override.created':
      return `Override #${str(d.nonce)} requested for ${sol(str(d.amount) || '0')}`;
    case 'override.approved':
      return `Override #${str(d.nonce)} approved`;
    case 'vault.paused':
      return 'Vault paused';
    case 'vault.resumed':
      return 'Vault resumed';
    case 'policy.updated':
      return describePolicyChange(event);
    case 'vault.created':
      return 'Vault created';
    default:
      return event.name;
  }
}

export function activityList(events: readonly FeedEvent[]): HTMLElement {
  if (events.length === 0) return h('p', { class: 'muted' }, 'Events appear here as the chain reports them.');
  return h(
    'ul',
    { class: 'activity', 'data-testid': 'activity' },
    ...events.map((e) =>
      h(
        'li',
        { 'data-event': e.name },
        h('time', { class: 'muted' }, e.blockTime ? formatTime(e.blockTime) : ''),
        ' ',
        describeEvent(e),
      ),
    ),
  );
}
