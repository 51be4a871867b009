// The owner console's "Download CSV": the vault's transactions of a date range, fetched with the owner's
// signature (GET /api/exports/transactions) and saved under the name the service gives.
import { ApiError, type OwnerApi } from './api.js';
import { h } from './dom.js';
import { defaultExportRange, readExportRange } from './export-range.js';
import { isUserRejection } from './wallet-standard.js';

function errorText(error: unknown): string {
  if (isUserRejection(error)) return 'You declined in your wallet. Nothing was downloaded.';
  return error instanceof ApiError || error instanceof Error ? error.message : 'Something went wrong.';
}

/** Hands the bytes to the browser as a download. */
function save(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = h('a', { download: filename, hidden: true });
  // Our own blob: URL (h() takes only http(s) and same-origin links, which is right for API values).
  link.href = url;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function createExportDownload(vault: string, render: () => void) {
  const range = defaultExportRange(new Date());
  const from = h('input', { class: 'input', type: 'date', value: range.from, 'data-testid': 'export-from' });
  const to = h('input', { class: 'input', type: 'date', value: range.to, 'data-testid': 'export-to' });
  let busy = false;
  let notice: { kind: 'error' | 'success'; text: string } | null = null;

  const download = async (owner: OwnerApi) => {
    const query = readExportRange(from.value, to.value);
    if (typeof query === 'string') {
      notice = { kind: 'error', text: query };
      render();
      return;
    }
    busy = true;
    notice = null;
    render();
    try {
      const file = await owner.exportTransactions(vault, query);
      const blob = await new Response(file.body).blob();
      save(blob, file.filename ?? `vaultkeeper-transactions-${query.from}-${query.to}.csv`);
      notice = { kind: 'success', text: `Downloaded ${file.filename ?? 'the CSV file'}.` };
    } catch (error) {
      notice = { kind: 'error', text: errorText(error) };
    } finally {
      busy = false;
      render();
    }
  };

  return {
    element(owner: OwnerApi): HTMLElement {
      from.disabled = busy;
      to.disabled = busy;
      const button = h(
        'button',
        { type: 'button', class: 'button', disabled: busy, 'data-testid': 'export-download' },
        busy ? 'Preparing…' : 'Download CSV',
      );
      button.addEventListener('click', () => void download(owner));
      return h(
        'div',
        { class: 'console-part', 'data-testid': 'export-transactions' },
        h('h3', {}, 'Transactions for your records'),
        h(
          'p',
          { class: 'muted' },
          'Every transfer of the days chosen (UTC, both included) as a CSV file: exact SOL amounts, block times, statuses and reasons.',
        ),
        h(
          'div',
          { class: 'form-grid' },
          h('label', { class: 'field' }, h('span', { class: 'field-label' }, 'From'), from),
          h('label', { class: 'field' }, h('span', { class: 'field-label' }, 'To'), to),
          h('div', { class: 'actions' }, button),
        ),
        notice === null
          ? null
          : h(
              'p',
              { class: `notice notice-${notice.kind}`, role: notice.kind === 'error' ? 'alert' : 'status' },
              notice.text,
            ),
      );
    },
  };
}
