// How an override reads on its page: the facts, the state badge and the progress of a decision.
import type { Override, Vault } from './api.js';
import { h } from './dom.js';
import {
  describeBlockReason,
  explorerUrl,
  formatDateTime,
  formatDuration,
  lamportsText,
  shortAddress,
  sol,
} from './format.js';

export type OverrideState = 'pending' | 'expired' | 'approved' | 'executed' | 'rejected';

export function stateOf(override: Override, now = Date.now()): OverrideState {
  if (override.status !== 'pending') return override.status;
  return override.expired || new Date(override.expiresAt).getTime() <= now ? 'expired' : 'pending';
}

const STATE_LABELS: Record<OverrideState, string> = {
  pending: 'Awaiting your decision',
  expired: 'Expired',
  approved: 'Approved · executing',
  executed: 'Approved and executed',
  rejected: 'Rejected',
};

const STATE_EXPLANATIONS: Record<OverrideState, string> = {
  pending: 'Approve to send this transfer now, or reject it. Only the vault owner can decide.',
  expired: 'This request expired before anyone decided. The agent can try the transfer again.',
  approved: 'The approval is on-chain; the transfer is being executed.',
  executed: 'The owner approved this transfer and it was sent.',
  rejected: 'The owner rejected this transfer. Nothing was sent.',
};

function stateBadge(state: OverrideState): HTMLElement {
  return h('span', { class: `badge badge-${state}`, 'data-state': state }, STATE_LABELS[state]);
}

export function timeLeftText(override: Override, now = Date.now()): string {
  const state = stateOf(override, now);
  if (state === 'pending') return `${formatDuration(new Date(override.expiresAt).getTime() - now)} left`;
  if (state === 'expired') return `expired ${formatDateTime(override.expiresAt)}`;
  return formatDateTime(override.expiresAt);
}

function fact(label: string, ...value: (Node | string)[]): HTMLElement[] {
  return [h('dt', {}, label), h('dd', {}, ...value)];
}

export function overrideCard(input: {
  override: Override;
  vault: Vault | null;
  timeLeft: HTMLElement;
}): HTMLElement {
  const { override, vault, timeLeft } = input;
  const state = stateOf(override);
  const vaultName = vault?.name?.trim() ? vault.name : shortAddress(override.vault);
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'override-title' },
    h(
      'div',
      { class: 'card-head' },
      h('h1', { id: 'override-title' }, 'Blocked transfer'),
      stateBadge(state),
    ),
    h('p', { class: 'amount', 'data-testid': 'amount' }, sol(override.amount)),
    h('p', { class: 'muted', 'data-testid': 'state-explanation' }, STATE_EXPLANATIONS[state]),
    h(
      'dl',
      { class: 'facts' },
      ...fact(
        'Amount',
        `${sol(override.amount)} `,
        h('span', { class: 'muted' }, `(${lamportsText(override.amount)})`),
      ),
      ...fact(
        'Destination',
        h('code', { class: 'address', 'data-testid': 'destination' }, override.destination),
      ),
      ...fact(
        'Vault',
        h('a', { href: `/vaults/${encodeURIComponent(override.vault)}` }, vaultName),
        ' ',
        h('code', { class: 'address muted' }, override.vault),
      ),
      ...fact(
        'Why it was blocked',
        h('span', { 'data-testid': 'reason' }, describeBlockReason(override.blockReason)),
      ),
      ...fact('Requested', formatDateTime(override.createdAt)),
      // A decided request no longer expires: its expiry (which the chain may move when the approval
      // lands) would read as a new deadline.
      ...(state === 'pending' || state === 'expired'
        ? fact(state === 'pending' ? 'Time left' : 'Expiry', timeLeft)
        : []),
      ...(override.decidedAt === null
        ? []
        : fact(
            override.status === 'rejected' ? 'Rejected' : 'Approved',
            h('span', { 'data-testid': 'decided-at' }, formatDateTime(override.decidedAt)),
          )),
      ...fact('Override', `#${override.nonce}`),
    ),
  );
}

export type Step = { label: string; status: 'done' | 'active' | 'todo' | 'failed'; detail?: Node | string };

export function stepList(steps: readonly Step[]): HTMLElement {
  return h(
    'ol',
    { class: 'steps', 'data-testid': 'steps' },
    ...steps.map((step) =>
      h(
        'li',
        { class: `step step-${step.status}` },
        h('span', { class: 'step-label' }, step.label),
        step.detail === undefined ? null : h('span', { class: 'step-detail' }, step.detail),
      ),
    ),
  );
}

export function signatureLink(signature: string, cluster: string): HTMLElement {
  const url = explorerUrl(signature, cluster);
  const text = shortAddress(signature);
  return url === null
    ? h('code', { title: signature, 'data-testid': 'signature' }, text)
    : h('a', { href: url, rel: 'noopener noreferrer', target: '_blank', 'data-testid': 'signature' }, text);
}
