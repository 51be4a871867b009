// The owner's console on the vault page: connect the owner's wallet (Wallet Standard, as the approval
// page does), see the policy preview of a limit or whitelist change, then sign it through PATCH /api/vaults/:id
// (a signed request, then the transaction in the wallet). Anyone else keeps the read-only page.
import { createAlertSettingsForm } from './alert-settings-form.js';
import { ApiError, api, isMissingRoute, type OwnerApi, ownerApi, type Vault } from './api.js';
import { createApiKeysList } from './api-keys-list.js';
import { demoStandardWallet, demoWalletOffer, openDemoWallet } from './demo-wallet.js';
import { h, meta } from './dom.js';
import { decodeBase64, encodeBase58 } from './encoding.js';
import { createExportDownload } from './export-download.js';
import { shortAddress } from './format.js';
import { type Step, signatureLink, stepList } from './override-view.js';
import { type ChangeRequest, createPolicyForms } from './owner-policy-forms.js';
import { type PreviewState, policyPreviewView } from './policy-preview-view.js';
import { walletPanel } from './wallet-panel.js';
import {
  chainOf,
  connect,
  isUserRejection,
  messageSignerOf,
  signAndSendTransaction,
  type Wallet,
  type WalletAccount,
  watchWallets,
} from './wallet-standard.js';

interface Notice {
  kind: 'info' | 'error' | 'success';
  text: string;
}

interface Review {
  change: ChangeRequest;
  preview: PreviewState | null;
}

function messageOf(error: unknown): string {
  if (isUserRejection(error)) return 'You declined in your wallet. Nothing changed.';
  if (error instanceof ApiError || error instanceof Error) return error.message;
  return 'Something went wrong.';
}

interface ConsoleState {
  vault: Vault | null;
  wallets: readonly Wallet[];
  wallet: Wallet | null;
  account: WalletAccount | null;
  owner: OwnerApi | null;
  connecting: boolean;
  busy: boolean;
  review: Review | null;
  steps: Step[] | null;
  /** The change sent, until a vault read shows it applied. */
  awaiting: ChangeRequest | null;
  notice: Notice | null;
}

interface Console {
  readonly input: { vault: string; cluster: string; onSent(): void };
  readonly root: HTMLElement;
  readonly s: ConsoleState;
  readonly forms: ReturnType<typeof createPolicyForms>;
  readonly alerts: ReturnType<typeof createAlertSettingsForm>;
  readonly exportDownload: ReturnType<typeof createExportDownload>;
  readonly apiKeys: ReturnType<typeof createApiKeysList>;
  render(): void;
}

/** `npm run demo` serves its owner's key to its pages; the console then offers it as a wallet. */
const DEMO_MODE = meta('vaultkeeper-demo') === 'true';

const isOwner = ({ s }: Console) =>
  s.account !== null && s.vault !== null && s.account.address === s.vault.authority;

/** Connects a Wallet Standard wallet, or the demo wallet (null, demo mode only). */
async function choose(c: Console, chosen: Wallet | null): Promise<void> {
  const { s } = c;
  s.connecting = true;
  s.notice = null;
  c.render();
  try {
    const wallet = chosen ?? demoStandardWallet(await openDemoWallet(), c.input.cluster);
    s.account = await connect(wallet);
    s.wallet = wallet;
    s.owner = ownerApi(messageSignerOf(wallet, s.account));
  } catch (error) {
    s.notice = { kind: 'error', text: messageOf(error) };
  } finally {
    s.connecting = false;
    c.render();
  }
}

/** A limit or whitelist change is replayed first; agent and pause changes go straight to signing. */
async function propose(c: Console, change: ChangeRequest | string): Promise<void> {
  const { s } = c;
  if (typeof change === 'string') {
    s.notice = { kind: 'error', text: change };
    c.render();
    return;
  }
  s.notice = null;
  s.steps = null;
  s.review = { change, preview: change.preview === undefined ? null : { status: 'loading' } };
  c.render();
  if (change.preview === undefined) return;
  let preview: PreviewState;
  try {
    preview = { status: 'ready', preview: await api.previewPolicy(c.input.vault, change.preview) };
  } catch (error) {
    preview = isMissingRoute(error)
      ? { status: 'unavailable' }
      : { status: 'failed', message: messageOf(error) };
  }
  if (s.review?.change === change) s.review.preview = preview;
  c.render();
}

/** Signs the PATCH request, then the transaction it returns; a vault read then shows it applied. */
async function sign(c: Console, change: ChangeRequest): Promise<void> {
  const { s, input } = c;
  const { wallet, account, owner } = s;
  if (wallet === null || account === null || owner === null) return;
  const steps: Step[] = [
    { label: `Sign the request in ${wallet.name}`, status: 'active' },
    { label: `Approve the transaction in ${wallet.name}`, status: 'todo' },
    { label: 'Applied on-chain', status: 'todo', detail: 'waiting for confirmation…' },
  ];
  let current = 0;
  const advance = (detail?: Node | string) => {
    Object.assign(steps[current]!, { status: 'done' }, detail === undefined ? {} : { detail });
    current += 1;
    if (steps[current]) steps[current]!.status = 'active';
    c.render();
  };
  Object.assign(s, { busy: true, review: null, steps, notice: null });
  c.render();
  try {
    const { transaction } = await owner.updateVault(input.vault, change.body);
    advance();
    if (transaction === null) throw new Error('The service built no transaction for this change.');
    const signature = await signAndSendTransaction(
      wallet,
      account,
      decodeBase64(transaction),
      chainOf(input.cluster),
    );
    advance(signatureLink(encodeBase58(signature), input.cluster));
    s.awaiting = change;
    c.forms.reset();
    input.onSent();
  } catch (error) {
    steps[current]!.status = 'failed';
    s.notice = { kind: 'error', text: messageOf(error) };
  } finally {
    s.busy = false;
    c.render();
  }
}

function reviewPanel(c: Console, review: Review): HTMLElement {
  const confirm = h(
    'button',
    {
      type: 'button',
      class: 'button button-primary',
      disabled: c.s.busy || review.preview?.status === 'loading',
      'data-testid': 'confirm-change',
    },
    'Sign and send',
  );
  confirm.addEventListener('click', () => void sign(c, review.change));
  const cancel = h('button', { type: 'button', class: 'button', 'data-testid': 'cancel-change' }, 'Cancel');
  cancel.addEventListener('click', () => {
    c.s.review = null;
    c.render();
  });
  return h(
    'div',
    { class: 'console-review', 'data-testid': 'change-review', role: 'region', 'aria-label': 'Review' },
    h('h3', { 'data-testid': 'change-title' }, review.change.title),
    review.preview === null ? null : policyPreviewView(review.preview),
    h('div', { class: 'actions' }, confirm, cancel),
  );
}

/** What the connected wallet may do: the owner gets the controls, anyone else is told whose vault it is. */
function accountParts(c: Console, vault: Vault): HTMLElement[] {
  const { s } = c;
  if (s.account === null) return [];
  if (!isOwner(c)) {
    return [
      h(
        'p',
        { class: 'notice notice-error', role: 'alert' },
        `This wallet (${shortAddress(s.account.address)}) does not own the vault: only ${vault.authority} can change it.`,
      ),
    ];
  }
  const enabled = !s.busy && s.review === null;
  return [
    c.forms.element(vault, enabled),
    s.review === null ? null : reviewPanel(c, s.review),
    s.steps === null ? null : stepList(s.steps),
    s.owner === null ? null : c.alerts.element(s.owner),
    s.owner === null ? null : c.exportDownload.element(s.owner),
    s.owner === null ? null : c.apiKeys.element(s.owner),
  ].filter((part): part is HTMLElement => part !== null);
}

function draw(c: Console): void {
  const { s, root } = c;
  const { vault } = s;
  root.replaceChildren();
  root.hidden = vault === null;
  if (vault === null) return;
  root.append(
    h(
      'div',
      { class: 'card-head' },
      h('h2', {}, 'Manage this vault'),
      h('a', { href: `/owners/${vault.authority}/approvals` }, "Owner's pending approvals"),
    ),
    ...(s.account === null
      ? [
          h(
            'p',
            { 'data-testid': 'console-entry' },
            'Connect a wallet to manage this vault: its owner changes the limits and the whitelist (with a policy preview of the last 30 days first), the agent, pauses it and sets alerts.',
          ),
        ]
      : []),
    walletPanel({
      demo: DEMO_MODE ? demoWalletOffer(s.connecting, () => void choose(c, null)) : null,
      wallets: s.wallets,
      account: s.account,
      walletName: s.wallet?.name ?? null,
      busy: s.connecting,
      onConnect: (wallet) => void choose(c, wallet),
      onDisconnect: () => {
        Object.assign(s, {
          wallet: null,
          account: null,
          owner: null,
          review: null,
          steps: null,
          notice: null,
        });
        c.render();
      },
    }),
    ...accountParts(c, vault),
  );
  if (s.notice !== null)
    root.append(
      h(
        'p',
        {
          class: `notice notice-${s.notice.kind}`,
          role: s.notice.kind === 'error' ? 'alert' : 'status',
          'data-testid': 'console-notice',
        },
        s.notice.text,
      ),
    );
}

export function createOwnerConsole(input: Console['input']) {
  const c: Console = {
    input,
    root: h('section', { class: 'card owner-console', 'data-testid': 'owner-console' }),
    s: {
      vault: null,
      wallets: [],
      wallet: null,
      account: null,
      owner: null,
      connecting: false,
      busy: false,
      review: null,
      steps: null,
      awaiting: null,
      notice: null,
    },
    forms: createPolicyForms((change) => void propose(c, change)),
    alerts: createAlertSettingsForm(input.vault, () => c.render()),
    exportDownload: createExportDownload(input.vault, () => c.render()),
    apiKeys: createApiKeysList(input.vault, () => c.render()),
    render: () => draw(c),
  };
  watchWallets((wallets) => {
    c.s.wallets = wallets;
    c.render();
  });
  return {
    element: c.root,
    /** The page read the vault again: redraw, and finish a change the chain now shows. */
    update(vault: Vault): void {
      const { s } = c;
      s.vault = vault;
      const last = s.steps?.at(-1);
      if (s.awaiting !== null && last?.status === 'active' && s.awaiting.appliedIn(vault)) {
        last.status = 'done';
        delete last.detail;
        s.notice = { kind: 'success', text: `Done: ${s.awaiting.title}.` };
        s.awaiting = null;
      }
      c.render();
    },
  };
}
