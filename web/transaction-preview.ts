// What the owner signs, shown before they sign: the approve transaction's instructions, compute units,
// fees and its simulated effect on the payer, the vault, the destination and the treasury — or, when
// the simulation fails, why, in words. Reads GET /api/overrides/:vault/:nonce/preview.
import { api, type OverrideAddress, type TransactionPreview } from './api.js';
import { approvalCosts, rentExplanation } from './approval-costs.js';
import { h } from './dom.js';
import { lamportsText, shortAddress, sol } from './format.js';

type State =
  | { kind: 'idle' }
  | { kind: 'loading'; account: string }
  | { kind: 'ready'; account: string; preview: TransactionPreview }
  | { kind: 'failed'; account: string; message: string };

const ROLE_LABELS: Record<string, string> = {
  payer: 'Your wallet (pays fees and any rent)',
  vault: 'Vault',
  destination: 'Destination',
  treasury: 'Protocol treasury',
};

const INSTRUCTION_LABELS: Record<string, string> = {
  SetComputeUnitLimit: 'Set the compute unit limit',
  SetComputeUnitPrice: 'Set the priority fee price',
  create_override: 'Create the on-chain override',
  approve_override: 'Approve the override',
  execute_approved_override: 'Send the transfer',
};

/** The preview section: `show(account)` (re)loads it for a wallet; `element()` renders the current state. */
export function createPreviewSection(at: OverrideAddress, onChange: () => void) {
  let state: State = { kind: 'idle' };
  return {
    async show(account: string): Promise<void> {
      state = { kind: 'loading', account };
      onChange();
      try {
        state = { kind: 'ready', account, preview: await api.previewApproval(at, account) };
      } catch (error) {
        state = { kind: 'failed', account, message: error instanceof Error ? error.message : String(error) };
      }
      onChange();
    },
    clear(): void {
      state = { kind: 'idle' };
    },
    element(): HTMLElement | null {
      return renderPreview(state);
    },
  };
}

function renderPreview(state: State): HTMLElement | null {
  if (state.kind === 'idle') return null;
  const section = (...children: (Node | null)[]) =>
    h(
      'section',
      { class: 'preview', 'aria-label': 'What you sign', 'data-testid': 'preview', 'data-state': state.kind },
      h('h3', {}, 'What you sign'),
      ...children,
    );
  if (state.kind === 'loading') return section(h('p', { class: 'muted' }, 'Simulating the transaction…'));
  if (state.kind === 'failed') return section(h('p', { class: 'notice notice-error' }, state.message));
  const { preview } = state;
  if (preview.simulationError !== null) {
    return section(
      h(
        'p',
        { class: 'notice notice-error', role: 'alert', 'data-testid': 'preview-error' },
        `Approving now would fail, so nothing will be sent for you to sign. ${preview.simulationError.message}`,
      ),
      instructionList(preview),
    );
  }
  const note = rentExplanation(approvalCosts(preview), sol);
  return section(
    instructionList(preview),
    costList(preview),
    note === null ? null : h('p', { class: 'muted', 'data-testid': 'preview-rent-note' }, note),
    balanceTable(preview),
  );
}

function instructionList(preview: TransactionPreview): HTMLElement {
  return h(
    'ol',
    { class: 'preview-instructions', 'data-testid': 'preview-instructions' },
    ...preview.instructions.map((name) =>
      h('li', {}, INSTRUCTION_LABELS[name] ?? name, ' ', h('code', {}, name)),
    ),
  );
}

function costList(preview: TransactionPreview): HTMLElement {
  const { fees, rent, total } = approvalCosts(preview);
  const row = (label: string, value: string, testId: string) =>
    h('div', {}, h('dt', {}, label), h('dd', { 'data-testid': testId }, value));
  return h(
    'dl',
    { class: 'preview-costs' },
    row('Compute units', (preview.computeUnits ?? 0).toLocaleString('en-US'), 'preview-units'),
    row('Network fee', sol(preview.networkFeeLamports), 'preview-network-fee'),
    row('Priority fee', sol(preview.priorityFeeLamports), 'preview-priority-fee'),
    row('You pay in fees', `${sol(fees)} (${lamportsText(fees)})`, 'preview-total-fee'),
    rent === 0n
      ? null
      : row('Override account rent (not refunded)', `${sol(rent)} (${lamportsText(rent)})`, 'preview-rent'),
    rent === 0n
      ? null
      : row('Your wallet pays in all', `${sol(total)} (${lamportsText(total)})`, 'preview-total'),
  );
}

function balanceTable(preview: TransactionPreview): HTMLElement {
  const signed = (delta: string) => (delta.startsWith('-') ? `−${sol(delta.slice(1))}` : `+${sol(delta)}`);
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'table', 'data-testid': 'preview-balances' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', {}, 'Account'),
          h('th', { class: 'num' }, 'Change'),
          h('th', { class: 'num' }, 'After'),
        ),
      ),
      h(
        'tbody',
        {},
        ...preview.balanceChanges.map((b) =>
          h(
            'tr',
            { 'data-role': b.role },
            h(
              'td',
              {},
              ROLE_LABELS[b.role] ?? b.role,
              h('br'),
              h('code', { title: b.address }, shortAddress(b.address)),
            ),
            h('td', { class: 'num', 'data-testid': `delta-${b.role}` }, signed(b.delta)),
            h('td', { class: 'num', title: `now ${sol(b.before)}` }, sol(b.after)),
          ),
        ),
      ),
    ),
  );
}
