// The owner's pending approvals (/owners/:address/approvals): every open request across the owner's vaults
// (GET /api/overrides?owner=&status=pending), newest first, each linking to its approval page.
import { ApiError, api, type Override, retryAfterOf } from './api.js';
import { pathOf } from './blink-links.js';
import { h, replaceChildren, requireElement } from './dom.js';
import { describeBlockReason, formatDateTime, formatDuration, shortAddress, sol } from './format.js';

/** Open requests expire within the hour: read the list again this often (and on return to the tab). */
const REFRESH_MS = 20_000;

const root = requireElement('#app');
const [, , owner = ''] = location.pathname.split('/').map(decodeURIComponent);

const state = {
  overrides: [] as Override[],
  total: 0,
  pages: 0,
  page: 1,
  loaded: false,
  loading: false,
  error: null as string | null,
};

const timeLeft = (o: Override, now: number) => new Date(o.expiresAt).getTime() - now;
/** The countdowns on screen, ticked without redrawing the list. */
let clocks: [HTMLElement, Override][] = [];

function item(o: Override, now: number): HTMLElement {
  const review = h(
    'a',
    {
      class: 'button button-primary button-small',
      // Its approval page on this host (later requests of a nonce carry ?transfer=).
      href: pathOf(o.approvalUrl),
      'data-testid': 'review',
    },
    'Review',
  );
  return h(
    'li',
    { class: 'approval-item', 'data-vault': o.vault, 'data-nonce': o.nonce },
    h('span', { class: 'override-amount' }, sol(o.amount)),
    review,
    h(
      'p',
      {},
      'to ',
      h('code', { title: o.destination }, shortAddress(o.destination)),
      ' from vault ',
      h('a', { href: `/vaults/${o.vault}` }, h('code', { title: o.vault }, shortAddress(o.vault))),
    ),
    h(
      'p',
      { class: 'muted' },
      `${describeBlockReason(o.blockReason)} · requested ${formatDateTime(o.createdAt)} · `,
      clock(o, now),
    ),
  );
}

function clock(o: Override, now: number): HTMLElement {
  const element = h('span', { 'data-testid': 'time-left' }, `${formatDuration(timeLeft(o, now))} left`);
  clocks.push([element, o]);
  return element;
}

function render(): void {
  const now = Date.now();
  clocks = [];
  const open = state.overrides.filter((o) => timeLeft(o, now) > 0);
  const more = state.page < state.pages;
  const loadMore = h(
    'button',
    { type: 'button', class: 'button', disabled: state.loading, 'data-testid': 'load-more' },
    'Show more',
  );
  loadMore.addEventListener('click', () => void load(state.page + 1));
  replaceChildren(
    root,
    h(
      'section',
      { class: 'card' },
      h(
        'div',
        { class: 'card-head' },
        h('h1', {}, 'Pending approvals'),
        state.loaded
          ? h('span', { class: 'badge badge-pending', 'data-testid': 'pending-count' }, String(state.total))
          : null,
      ),
      h(
        'p',
        { class: 'muted' },
        'Blocked transfers waiting for the owner ',
        h('code', { class: 'address' }, owner),
        ', across all their vaults. Each expires an hour after it was requested.',
      ),
      state.error === null ? null : h('p', { class: 'notice notice-error', role: 'alert' }, state.error),
      !state.loaded
        ? h('p', { class: 'loading' }, 'Loading…')
        : open.length === 0
          ? h('p', { class: 'muted', 'data-testid': 'no-approvals' }, 'Nothing waits for your approval.')
          : h('ul', { class: 'approval-list', 'data-testid': 'approvals' }, ...open.map((o) => item(o, now))),
      more ? h('div', { class: 'actions' }, loadMore) : null,
    ),
  );
}

/** Page 1 replaces the list; a later page adds to it. */
async function load(page = 1): Promise<void> {
  state.loading = true;
  try {
    const list = await api.listOwnerPending(owner, page);
    state.overrides = page === 1 ? list.overrides : [...state.overrides, ...list.overrides];
    state.total = list.pagination.total;
    state.pages = list.pagination.pages;
    state.page = page;
    state.error = null;
  } catch (error) {
    const invalid = error instanceof ApiError && error.status === 400;
    const wait = error instanceof ApiError ? retryAfterOf(error) : null;
    state.error = invalid
      ? 'This is not a wallet address. Check the link.'
      : `${error instanceof Error ? error.message : 'The list could not be loaded.'}${wait === null ? '' : ` Trying again in ${wait} s.`}`;
  } finally {
    state.loading = false;
    state.loaded = true;
    render();
  }
}

setInterval(() => {
  if (state.page === 1 && !state.loading) void load(1);
}, REFRESH_MS);
// The time left counts down; a request that expires leaves the list.
setInterval(() => {
  const now = Date.now();
  if (clocks.some(([, o]) => timeLeft(o, now) <= 0)) return render();
  for (const [element, o] of clocks) element.textContent = `${formatDuration(timeLeft(o, now))} left`;
}, 1_000);
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') void load(1);
});
void load(1);
