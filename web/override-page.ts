// The override approval page (/overrides/:vault/:nonce): read the blocked transfer, connect the owner's
// wallet through the Wallet Standard, then approve (sign and send) or reject (sign a message).
import { ApiError, api, type Override, type Vault } from './api.js';
import { blinkUrlOf } from './blink-links.js';
import { blinkOffer } from './blink-offer.js';
import {
  approveWithDemoWallet,
  DEMO_WALLET_NAME,
  type DemoWallet,
  demoWalletOffer,
  openDemoWallet,
  rejectWithDemoWallet,
} from './demo-wallet.js';
import { h, meta, replaceChildren, requireElement } from './dom.js';
import { buildSignMessageText, decodeBase64, encodeBase58 } from './encoding.js';
import { shortAddress } from './format.js';
import { openLiveFeed, throttle } from './live-feed.js';
import { overrideCard, type Step, signatureLink, stateOf, stepList, timeLeftText } from './override-view.js';
import { createPreviewSection } from './transaction-preview.js';
import { walletPanel } from './wallet-panel.js';
import {
  chainOf,
  connect,
  isUserRejection,
  signAndSendTransaction,
  signMessage,
  type Wallet,
  type WalletAccount,
  watchWallets,
} from './wallet-standard.js';

const FALLBACK_POLL_MS = 15_000;
const root = requireElement('#app');
const cluster = meta('vaultkeeper-cluster') ?? 'devnet';
const DEMO_MODE = meta('vaultkeeper-demo') === 'true';
const [, , vaultAddress = '', nonce = ''] = location.pathname.split('/').map(decodeURIComponent);
const address = {
  vault: vaultAddress,
  nonce,
  transfer: new URLSearchParams(location.search).get('transfer'),
};

interface Notice {
  kind: 'info' | 'error' | 'success';
  text: string;
}

const page = {
  override: null as Override | null,
  vault: null as Vault | null,
  loadError: null as string | null,
  wallets: [] as readonly Wallet[],
  wallet: null as Wallet | null,
  account: null as WalletAccount | null,
  /** The demo wallet, when chosen (demo mode only); `account` is then its account. */
  demo: null as DemoWallet | null,
  busy: null as 'connecting' | 'approving' | 'rejecting' | null,
  steps: null as Step[] | null,
  notice: null as Notice | null,
};
const timeLeft = h('span', { 'data-testid': 'time-left' });
const preview = createPreviewSection(address, () => render());

function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (isUserRejection(error)) return 'You declined in your wallet. Nothing was sent.';
  return error instanceof Error ? error.message : 'Something went wrong.';
}

async function load(): Promise<void> {
  try {
    const override = await api.getOverride(address);
    page.override = override;
    page.loadError = null;
    if (page.vault === null) page.vault = await api.getVault(override.vault).catch(() => null);
    syncSteps(override);
  } catch (error) {
    page.loadError =
      error instanceof ApiError && (error.status === 404 || error.status === 400)
        ? 'This override does not exist. Check that the link is complete.'
        : messageOf(error);
  }
  render();
}

/** Moves the approval's last step along as the chain's events are ingested. */
function syncSteps(override: Override): void {
  const last = page.steps?.at(-1);
  if (page.busy !== null || last === undefined || last.status !== 'active') return;
  if (override.status === 'executed' || override.status === 'rejected') {
    last.status = 'done';
    delete last.detail;
    page.notice =
      override.status === 'executed'
        ? { kind: 'success', text: 'Approved and executed: the transfer was sent.' }
        : { kind: 'success', text: 'Rejected: the transfer will not be sent.' };
  }
}

const refresh = throttle(load, 1_000);

function render(): void {
  const { override } = page;
  if (page.loadError !== null && override === null) {
    replaceChildren(
      root,
      h(
        'section',
        { class: 'card' },
        h('h1', {}, 'Override not available'),
        h('p', { class: 'notice notice-error' }, page.loadError),
      ),
    );
    return;
  }
  if (override === null) return;
  timeLeft.textContent = timeLeftText(override);
  const decidable = stateOf(override) === 'pending';
  replaceChildren(
    root,
    overrideCard({ override, vault: page.vault, timeLeft }),
    decidable || page.steps !== null ? decisionCard(decidable) : null,
  );
}

function decisionCard(decidable: boolean): HTMLElement {
  const owner = page.vault?.authority ?? null;
  const isOwner = page.account !== null && (owner === null || page.account.address === owner);
  const canDecide = decidable && isOwner && page.busy === null;
  return h(
    'section',
    { class: 'card', 'aria-label': 'Decision' },
    h('h2', {}, 'Your decision'),
    walletPanel({
      wallets: page.wallets,
      account: page.account,
      walletName: page.demo === null ? (page.wallet?.name ?? null) : DEMO_WALLET_NAME,
      busy: page.busy === 'connecting',
      noWallet: blinkOffer(blinkUrlOf(window.location)),
      demo: DEMO_MODE ? demoWalletOffer(page.busy === 'connecting', () => void choose(null)) : null,
      onConnect: (wallet) => void choose(wallet),
      onDisconnect: () => {
        page.wallet = null;
        page.demo = null;
        page.account = null;
        page.notice = null;
        preview.clear();
        render();
      },
    }),
    page.account !== null && !isOwner
      ? h(
          'p',
          { class: 'notice notice-error', role: 'alert' },
          `This wallet (${shortAddress(page.account.address)}) does not own the vault. Connect the owner's wallet ${owner ?? ''}.`,
        )
      : null,
    decidable && isOwner ? preview.element() : null,
    decidable
      ? h(
          'div',
          { class: 'actions' },
          button('Approve and send', 'primary', canDecide, approve, 'approve'),
          button('Reject', 'danger', canDecide, reject, 'reject'),
        )
      : null,
    page.steps === null ? null : stepList(page.steps),
    page.notice === null
      ? null
      : h(
          'p',
          {
            class: `notice notice-${page.notice.kind}`,
            role: page.notice.kind === 'error' ? 'alert' : 'status',
            'data-testid': 'notice',
          },
          page.notice.text,
        ),
  );
}

function button(label: string, kind: string, enabled: boolean, onClick: () => Promise<void>, testId: string) {
  const element = h(
    'button',
    { type: 'button', class: `button button-${kind}`, disabled: !enabled, 'data-testid': testId },
    label,
  );
  element.addEventListener('click', () => void onClick());
  return element;
}

/** Connects a Wallet Standard wallet, or the demo wallet (null, demo mode only). */
async function choose(wallet: Wallet | null): Promise<void> {
  page.busy = 'connecting';
  page.notice = null;
  render();
  try {
    if (wallet === null) {
      page.demo = await openDemoWallet();
      page.account = { address: page.demo.address, publicKey: new Uint8Array(), chains: [], features: [] };
    } else {
      page.account = await connect(wallet);
      page.wallet = wallet;
    }
    void preview.show(page.account.address);
  } catch (error) {
    page.notice = { kind: 'error', text: messageOf(error) };
  } finally {
    page.busy = null;
    render();
  }
}

async function decide(
  kind: 'approving' | 'rejecting',
  steps: Step[],
  work: (advance: (detail?: Node | string) => void) => Promise<void>,
): Promise<void> {
  page.busy = kind;
  page.notice = null;
  page.steps = steps;
  let current = 0;
  const advance = (detail?: Node | string) => {
    const step = steps[current];
    if (step) Object.assign(step, { status: 'done' }, detail === undefined ? {} : { detail });
    current += 1;
    const next = steps[current];
    if (next) next.status = 'active';
    render();
  };
  render();
  try {
    await work(advance);
  } catch (error) {
    const step = steps[current];
    if (step) step.status = 'failed';
    page.notice = { kind: 'error', text: messageOf(error) };
  } finally {
    page.busy = null;
    await load();
  }
}

function approve(): Promise<void> {
  const { wallet, account, demo } = page;
  if (demo !== null) {
    const decision = approveWithDemoWallet(demo, address, cluster);
    return decide('approving', decision.steps, decision.work);
  }
  if (wallet === null || account === null) return Promise.resolve();
  const steps: Step[] = [
    { label: 'Prepare the approval transaction', status: 'active' },
    { label: `Approve it in ${wallet.name}`, status: 'todo' },
    { label: 'Sent to the network', status: 'todo' },
    { label: 'Approved and executed on-chain', status: 'todo', detail: 'waiting for confirmation…' },
  ];
  return decide('approving', steps, async (advance) => {
    const { transaction } = await api.approve(address, account.address);
    advance();
    const signature = await signAndSendTransaction(
      wallet,
      account,
      decodeBase64(transaction),
      chainOf(cluster),
    );
    advance();
    advance(signatureLink(encodeBase58(signature), cluster));
  });
}

function reject(): Promise<void> {
  const { wallet, account, demo } = page;
  if (demo !== null) {
    const decision = rejectWithDemoWallet(demo, address);
    return decide('rejecting', decision.steps, decision.work);
  }
  if (wallet === null || account === null) return Promise.resolve();
  const steps: Step[] = [
    { label: 'Prepare the rejection', status: 'active' },
    { label: `Sign the rejection message in ${wallet.name}`, status: 'todo' },
    { label: 'Rejected', status: 'todo', detail: 'waiting for the service…' },
  ];
  return decide('rejecting', steps, async (advance) => {
    const request = await api.reject(address, account.address);
    advance();
    if (request.type === 'message') {
      const text = new TextEncoder().encode(buildSignMessageText(request.data));
      const signature = await signMessage(wallet, account, text);
      await api.confirmReject(address, {
        account: account.address,
        signature: encodeBase58(signature),
        data: request.data,
        state: request.state,
      });
    }
    advance();
  });
}

watchWallets((wallets) => {
  page.wallets = wallets;
  if (page.override !== null) render();
});
openLiveFeed(vaultAddress, {
  onEvent: (event) => {
    if (event.vault === vaultAddress) refresh();
  },
  onStatus: () => {},
});
setInterval(() => {
  const { override } = page;
  if (override === null) return;
  const before = stateOf(override);
  timeLeft.textContent = timeLeftText(override);
  if (stateOf(override) !== before) render();
}, 1_000);
setInterval(() => {
  if (page.override === null || page.override.status === 'pending' || page.override.status === 'approved')
    refresh();
}, FALLBACK_POLL_MS);
void load();
