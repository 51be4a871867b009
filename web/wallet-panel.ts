// Choosing and showing the connected wallet.
import { h } from './dom.js';
import { isUsable, type Wallet, type WalletAccount } from './wallet-standard.js';

/** Wallet icons are data: images by the standard; anything else is not shown. */
const ICON = /^data:image\/(svg\+xml|png|webp|gif)[;,]/;

function walletIcon(wallet: Wallet): HTMLElement | null {
  if (!ICON.test(wallet.icon)) return null;
  const image = h('img', { class: 'wallet-icon', alt: '', width: 24, height: 24 });
  image.src = wallet.icon;
  return image;
}

export function walletPanel(input: {
  wallets: readonly Wallet[];
  account: WalletAccount | null;
  walletName: string | null;
  busy: boolean;
  /** Shown when this browser has no usable wallet (the approval page's Blink). */
  noWallet?: HTMLElement | null;
  /** Shown first while no wallet is connected (the demo wallet, in demo mode only). */
  demo?: HTMLElement | null;
  onConnect(wallet: Wallet): void;
  onDisconnect(): void;
}): HTMLElement {
  if (input.account !== null) {
    const change = h('button', { type: 'button', class: 'button button-link' }, 'Use another wallet');
    change.addEventListener('click', () => input.onDisconnect());
    return h(
      'div',
      { class: 'wallet wallet-connected', 'data-testid': 'connected-account' },
      h('span', { class: 'muted' }, `Connected with ${input.walletName ?? 'your wallet'}:`),
      h('code', { class: 'address' }, input.account.address),
      change,
    );
  }
  const usable = input.wallets.filter(isUsable);
  if (usable.length === 0) {
    return h(
      'div',
      { class: 'wallet' },
      input.demo ?? null,
      h(
        'p',
        { class: 'muted' },
        input.wallets.length === 0
          ? `No Solana wallet found in this browser. Open this page in a browser with a wallet that supports the Wallet Standard (Phantom, Solflare, Backpack and others)${input.noWallet ? ', or open the Blink from your wallet' : ''}.`
          : 'The wallets in this browser cannot sign and send Solana transactions for web pages.',
      ),
      input.noWallet ?? null,
    );
  }
  return h(
    'div',
    { class: 'wallet' },
    input.demo ?? null,
    h('p', { class: 'muted' }, 'Connect the wallet that owns this vault:'),
    h(
      'div',
      { class: 'wallet-list' },
      ...usable.map((wallet) => {
        const choose = h(
          'button',
          {
            type: 'button',
            class: 'button button-wallet',
            disabled: input.busy,
            'data-testid': 'connect-wallet',
          },
          walletIcon(wallet),
          input.busy ? `Connecting to ${wallet.name}…` : `Connect ${wallet.name}`,
        );
        choose.addEventListener('click', () => input.onConnect(wallet));
        return choose;
      }),
    ),
  );
}
