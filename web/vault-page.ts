// The vault page (/vaults/:address): balance and daily limit use, spending chart, pending overrides,
// latest transactions, and live updates from the event stream.
import {
  type Analytics,
  ApiError,
  api,
  type Override,
  type Realtime,
  retryAfterOf,
  type Transaction,
  type Vault,
} from './api.js';
import { h, meta, replaceChildren, requireElement } from './dom.js';
import { type FeedEvent, type FeedStatus, openLiveFeed } from './live-feed.js';
import { createOwnerConsole } from './owner-console.js';
import { addToBucket, spendingChart } from './spending-chart.js';
import { activityList, pendingOverrides, transactionTable, vaultHeader, vaultStats } from './vault-view.js';

type Part = 'vault' | 'realtime' | 'transactions' | 'overrides' | 'analytics';

/** Reads after an event wait this long so a burst costs one request each (the API rate-limits per IP). */
const REFRESH_MS = 3_000;
const ANALYTICS_REFRESH_MS = 30_000;
const ACTIVITY_SIZE = 12;

const root = requireElement('#app');
const [, , address = ''] = location.pathname.split('/').map(decodeURIComponent);
const ownerConsole = createOwnerConsole({
  vault: address,
  cluster: meta('vaultkeeper-cluster') ?? 'devnet',
  // The chain's events bring the change; read the vault again soon in case the feed lags.
  onSent: () => schedule(['vault']),
});

const data = {
  vault: null as Vault | null,
  realtime: null as Realtime | null,
  transactions: [] as Transaction[],
  overrides: [] as Override[],
  analytics: null as Analytics | null,
  activity: [] as FeedEvent[],
  status: 'connecting' as FeedStatus,
};

const sections = {
  head: h('div'),
  stats: h('div'),
  chart: h('div', { 'data-testid': 'chart' }),
  overrides: h('div'),
  transactions: h('div'),
  activity: h('div'),
  notice: h('div', { role: 'status' }),
};

function card(title: string, body: HTMLElement, extra?: HTMLElement): HTMLElement {
  return h(
    'section',
    { class: 'card' },
    h('div', { class: 'card-head' }, h('h2', {}, title), extra ?? null),
    body,
  );
}

function layout(): void {
  replaceChildren(
    root,
    sections.notice,
    sections.head,
    sections.stats,
    ownerConsole.element,
    h(
      'div',
      { class: 'grid' },
      card('Spending, last 30 days', sections.chart),
      card('Waiting for approval', sections.overrides),
    ),
    card('Latest transactions', sections.transactions),
    card('Live activity', sections.activity),
  );
}

function render(parts: ReadonlySet<Part | 'activity' | 'status'>): void {
  const { vault } = data;
  if (vault === null) return;
  if (parts.has('vault') || parts.has('status'))
    replaceChildren(sections.head, vaultHeader(vault, data.status));
  if (parts.has('vault')) ownerConsole.update(vault);
  if (parts.has('vault') || parts.has('realtime'))
    replaceChildren(sections.stats, vaultStats(vault, data.realtime));
  if (parts.has('analytics') && data.analytics) {
    replaceChildren(sections.chart, spendingChart(data.analytics.spendingByPeriod));
  }
  if (parts.has('overrides')) replaceChildren(sections.overrides, pendingOverrides(data.overrides));
  if (parts.has('transactions')) replaceChildren(sections.transactions, transactionTable(data.transactions));
  if (parts.has('activity')) replaceChildren(sections.activity, activityList(data.activity));
}

const loaders: Record<Part, () => Promise<void>> = {
  vault: async () => {
    data.vault = await api.getVault(address);
  },
  realtime: async () => {
    // The chain may be unreachable (503): the page still shows what the database knows.
    data.realtime = await api.getRealtime(address).catch((error: unknown) => {
      if (error instanceof ApiError && error.status === 429) throw error;
      return null;
    });
  },
  transactions: async () => {
    data.transactions = (await api.listTransactions(address, { limit: 15 })).transactions;
  },
  overrides: async () => {
    data.overrides = (await api.listPendingOverrides(address)).overrides;
  },
  analytics: async () => {
    data.analytics = await api.getAnalytics(address);
  },
};

const dirty = new Set<Part>();
let timer: ReturnType<typeof setTimeout> | null = null;
let analyticsTimer: ReturnType<typeof setTimeout> | null = null;
let lastAnalytics = 0;

/** Loads every dirty part now; a 429 waits as long as the service asks. */
async function flush(): Promise<void> {
  timer = null;
  const parts = new Set(dirty);
  dirty.clear();
  const results = await Promise.allSettled([...parts].map((part) => loaders[part]()));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    const error = failed.reason as unknown;
    const retryAfter = error instanceof ApiError ? retryAfterOf(error) : null;
    const wait = retryAfter !== null ? retryAfter * 1000 : 10_000;
    showNotice(error instanceof ApiError ? error.message : 'Some data could not be loaded.', 'error');
    schedule([...parts], wait);
  } else {
    showNotice(null);
  }
  render(parts);
}

function schedule(parts: readonly Part[], delayMs = REFRESH_MS): void {
  for (const part of parts) dirty.add(part);
  if (timer === null) timer = setTimeout(() => void flush(), Math.max(0, delayMs));
}

/** The chart is re-read at most every 30 s (analytics has its own, smaller budget). */
function scheduleAnalytics(): void {
  if (analyticsTimer !== null) return;
  analyticsTimer = setTimeout(
    () => {
      analyticsTimer = null;
      lastAnalytics = Date.now();
      schedule(['analytics'], 0);
    },
    Math.max(0, lastAnalytics + ANALYTICS_REFRESH_MS - Date.now()),
  );
}

function showNotice(text: string | null, kind: 'error' | 'info' = 'info'): void {
  replaceChildren(sections.notice, text === null ? null : h('p', { class: `notice notice-${kind}` }, text));
}

/** Which reads an event makes stale; the activity list and the chart take the event at once. */
function onEvent(event: FeedEvent): void {
  if (event.vault !== address) return;
  data.activity = [event, ...data.activity.filter((e) => e.id !== event.id)].slice(0, ACTIVITY_SIZE);
  const parts: Part[] = ['transactions'];
  switch (event.name) {
    case 'transaction.executed':
      parts.push('realtime', 'vault', 'overrides');
      scheduleAnalytics();
      if (data.analytics && typeof event.data.amount === 'string') {
        addToBucket(data.analytics.spendingByPeriod, event.blockTime, event.data.amount);
        render(new Set(['analytics']));
      }
      break;
    case 'transaction.blocked':
    case 'override.created':
    case 'override.approved':
      parts.push('overrides', 'vault');
      break;
    default:
      parts.push('vault', 'realtime');
  }
  render(new Set(['activity']));
  schedule(parts);
}

async function start(): Promise<void> {
  try {
    await loaders.vault();
  } catch (error) {
    const missing = error instanceof ApiError && (error.status === 404 || error.status === 400);
    replaceChildren(
      root,
      h(
        'section',
        { class: 'card' },
        h('h1', {}, missing ? 'Vault not found' : 'Vault unavailable'),
        h(
          'p',
          { class: 'notice notice-error' },
          missing ? 'No vault has this address. Check the link.' : (error as Error).message,
        ),
      ),
    );
    return;
  }
  layout();
  render(new Set(['vault', 'activity']));
  openLiveFeed(address, {
    onEvent,
    onStatus: (status) => {
      // After a reconnect, events may have been missed in between: read everything again.
      if (status === 'live' && data.status === 'reconnecting')
        schedule(['vault', 'realtime', 'transactions', 'overrides'], 0);
      data.status = status;
      render(new Set(['status']));
    },
  });
  lastAnalytics = Date.now();
  schedule(['realtime', 'transactions', 'overrides', 'analytics'], 0);
}

void start();
