// The policy preview of a policy change: the vault's recent transfers replayed under the proposed policy, shown
// before the owner signs (POST /api/vaults/:address/policy-preview).
import type { PolicyPreview, PolicyPreviewChange } from './api.js';
import { h } from './dom.js';
import { describeBlockReason, formatDateTime, shortAddress, sol } from './format.js';

export type PreviewState =
  | { status: 'loading' }
  | { status: 'ready'; preview: PolicyPreview }
  | { status: 'unavailable' }
  | { status: 'failed'; message: string };

const OUTCOMES: Readonly<Record<string, string>> = { executed: 'Sent', blocked: 'Blocked' };

function outcome(status: string, reason: string | null): HTMLElement {
  const blocked = status === 'blocked';
  return h(
    'span',
    { class: 'outcome' },
    h(
      'span',
      { class: `badge ${blocked ? 'badge-rejected' : 'badge-executed'}` },
      OUTCOMES[status] ?? status,
    ),
    blocked ? h('span', { class: 'muted outcome-reason' }, describeBlockReason(reason)) : null,
  );
}

function changeRow(change: PolicyPreviewChange): HTMLElement {
  return h(
    'tr',
    { 'data-signature': change.signature, 'data-would': change.would },
    h('td', { class: 'time' }, formatDateTime(change.timestamp)),
    h(
      'td',
      { class: 'was-would' },
      outcome(change.was, change.wasReason),
      h('span', { class: 'arrow', 'aria-label': 'would be' }, ' → '),
      outcome(change.would, change.wouldReason),
    ),
    h('td', { class: 'num' }, sol(change.amount)),
    h('td', { class: 'dest' }, h('code', { title: change.destination }, shortAddress(change.destination))),
    h(
      'td',
      { class: 'sig' },
      change.signature === null
        ? ''
        : h('code', { class: 'muted', title: change.signature }, shortAddress(change.signature)),
    ),
  );
}

function summaryText(preview: PolicyPreview): string {
  const s = preview.summary;
  const period = `${formatDateTime(preview.period.start)} – ${formatDateTime(preview.period.end)}`;
  const parts = [
    `${s.attempts} transfer attempts replayed (${period}).`,
    `${s.newlyBlocked} would now be blocked (${sol(s.newlyBlockedVolume)}),`,
    `${s.newlyAllowed} would now go through (${sol(s.newlyAllowedVolume)}).`,
    `Under the new policy: ${s.executedUnderProposal} sent, ${s.blockedUnderProposal} blocked.`,
  ];
  return parts.join(' ');
}

function changesTable(preview: PolicyPreview): HTMLElement {
  if (preview.changes.length === 0) {
    return h(
      'p',
      { class: 'notice notice-success', 'data-testid': 'preview-no-changes' },
      'No transfer in this period would have ended differently.',
    );
  }
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'table preview-table', 'data-testid': 'preview-changes' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', {}, 'Time'),
          h('th', {}, 'Was → would be'),
          h('th', { class: 'num' }, 'Amount'),
          h('th', {}, 'Destination'),
          h('th', {}, 'Signature'),
        ),
      ),
      h('tbody', {}, ...preview.changes.map(changeRow)),
    ),
  );
}

/** The policy preview section: a summary, the changed transfers (oldest first), and the truncation note. */
export function policyPreviewView(state: PreviewState): HTMLElement {
  const body = (): (HTMLElement | string)[] => {
    switch (state.status) {
      case 'loading':
        return [h('p', { class: 'muted' }, 'Replaying the last 30 days of transfers under the new policy…')];
      case 'unavailable':
        return [
          h(
            'p',
            { class: 'notice', 'data-testid': 'preview-unavailable' },
            'This service cannot replay a policy change yet: you can still sign it, without the policy preview.',
          ),
        ];
      case 'failed':
        return [
          h(
            'p',
            { class: 'notice notice-error', role: 'alert' },
            `The policy preview failed: ${state.message}`,
          ),
        ];
      case 'ready': {
        const { preview } = state;
        return [
          h('p', { 'data-testid': 'preview-summary' }, summaryText(preview)),
          changesTable(preview),
          preview.truncated
            ? h(
                'p',
                { class: 'muted', 'data-testid': 'preview-truncated' },
                `Only the first ${preview.changes.length} changed transfers are listed; more would change.`,
              )
            : '',
        ];
      }
    }
  };
  return h(
    'div',
    { class: 'policy-preview', 'data-testid': 'policy-preview', 'data-status': state.status },
    h('h3', {}, 'What this change would have done'),
    ...body(),
  );
}
