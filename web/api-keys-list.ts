// The owner console's API keys: the wallet's keys (GET /api/api-keys, one signature) with their scopes,
// vaults, last use and expiry, so an owner sees what a script's key may still do.

import { ApiError, type OwnerApi } from './api.js';
import { describeApiKey } from './api-key-rows.js';
import { h } from './dom.js';
import { isUserRejection } from './wallet-standard.js';

type Listed = Awaited<ReturnType<OwnerApi['listApiKeys']>>['apiKeys'];

function errorText(error: unknown): string {
  if (isUserRejection(error)) return 'You declined in your wallet. Nothing was read.';
  return error instanceof ApiError || error instanceof Error ? error.message : 'Something went wrong.';
}

function table(keys: Listed, vault: string): HTMLElement {
  if (keys.length === 0) return h('p', { class: 'muted' }, 'This wallet has no API keys.');
  const head = ['Name', 'Key', 'Scopes', 'Vaults', 'Last used', 'Expires'];
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'table', 'data-testid': 'api-keys-table' },
      h('thead', {}, h('tr', {}, ...head.map((label) => h('th', {}, label)))),
      h(
        'tbody',
        {},
        ...keys.map((key) => {
          const row = describeApiKey(key, vault);
          return h(
            'tr',
            {},
            h('td', {}, row.name),
            h('td', { class: 'address' }, row.prefix),
            h('td', {}, row.scopes),
            h('td', {}, row.vaults),
            h('td', {}, row.lastUsed),
            h('td', row.warn ? { class: 'expiry-warn' } : {}, row.expiry),
          );
        }),
      ),
    ),
  );
}

export function createApiKeysList(vault: string, render: () => void) {
  let keys: Listed | null = null;
  let busy = false;
  let error: string | null = null;

  const load = async (owner: OwnerApi) => {
    busy = true;
    error = null;
    render();
    try {
      keys = (await owner.listApiKeys()).apiKeys;
    } catch (caught) {
      error = errorText(caught);
    } finally {
      busy = false;
      render();
    }
  };

  return {
    element(owner: OwnerApi): HTMLElement {
      const button = h(
        'button',
        { type: 'button', class: 'button', disabled: busy, 'data-testid': 'api-keys-show' },
        busy ? 'Reading…' : keys === null ? 'Show API keys' : 'Read again',
      );
      button.addEventListener('click', () => void load(owner));
      return h(
        'div',
        { class: 'console-part', 'data-testid': 'api-keys' },
        h('h3', {}, 'API keys'),
        h(
          'p',
          { class: 'muted' },
          'The keys this wallet made for scripts and servers: what each may do, on which vaults, and until when. The keys themselves are never shown again.',
        ),
        keys === null ? null : table(keys, vault),
        error === null ? null : h('p', { class: 'notice notice-error', role: 'alert' }, error),
        h('div', { class: 'actions' }, button),
      );
    },
  };
}
