// The Wallet Standard handshake of the owner pages (web/wallet-standard.ts over @wallet-standard/app),
// both ways, on a window of events alone: a wallet that loaded first answers the app's ready event, one
// that loads later announces itself.
import assert from 'node:assert/strict';
import { test } from 'node:test';

const wallet = (name: string) => ({
  version: '1.0.0' as const,
  name,
  icon: 'data:image/svg+xml,<svg/>' as const,
  chains: ['solana:devnet'] as const,
  accounts: [],
  features: {},
});

test('wallets registered before and after the page loads are reported, and an unregistered one leaves', async () => {
  const window = new EventTarget();
  Object.assign(globalThis, { window });
  const early = wallet('Early');
  let unregisterEarly = () => {};
  window.addEventListener('wallet-standard:app-ready', (event) => {
    unregisterEarly = (event as CustomEvent<{ register(w: unknown): () => void }>).detail.register(early);
  });
  const { watchWallets } = await import('../../web/wallet-standard.js');
  const seen: string[][] = [];
  const stop = watchWallets((wallets) => seen.push(wallets.map((w) => w.name)));
  assert.deepEqual(seen.at(-1), ['Early']);

  const late = wallet('Late');
  window.dispatchEvent(
    new CustomEvent('wallet-standard:register-wallet', {
      detail: ({ register }: { register(w: unknown): () => void }) => register(late),
    }),
  );
  assert.deepEqual(seen.at(-1), ['Early', 'Late']);
  unregisterEarly();
  assert.deepEqual(seen.at(-1), ['Late']);
  stop();
  const count = seen.length;
  window.dispatchEvent(
    new CustomEvent('wallet-standard:register-wallet', {
      detail: ({ register }: { register(w: unknown): () => void }) => register(wallet('After')),
    }),
  );
  assert.equal(seen.length, count, 'no report after stop');
});
