// The owner's policy controls on the vault page: daily limit, whitelist, agent, pause and resume. Inputs
// live as long as the page, so what the owner typed survives every redraw.
import type { UpdateVaultBody, Vault } from './api.js';
import { h } from './dom.js';
import { fromBase58 } from './encoding.js';
import { formatSol, parseSol, shortAddress } from './format.js';

const MAX_WHITELIST = 20;

/** A change the owner asked for: the PATCH body, and the policy preview's body when it is a policy change. */
export interface ChangeRequest {
  title: string;
  body: UpdateVaultBody;
  /** The proposed policy for POST …/policy-preview; absent for agent and pause changes. */
  preview?: { dailyLimit?: string; whitelist?: string[] };
  /** Whether a vault read shows the change applied. */
  appliedIn(vault: Vault): boolean;
}

export const isAddress = (text: string) => {
  try {
    return fromBase58(text)?.length === 32;
  } catch {
    return false;
  }
};

function field(label: string, control: HTMLElement): HTMLElement {
  return h('label', { class: 'field' }, h('span', { class: 'field-label' }, label), control);
}

interface Controls {
  limit: HTMLInputElement;
  add: HTMLTextAreaElement;
  agent: HTMLInputElement;
  /** Whitelisted addresses marked for removal. */
  removed: Set<string>;
}

type Proposal = ChangeRequest | string;

function limitChange({ limit }: Controls, vault: Vault): Proposal {
  const lamports = parseSol(limit.value);
  if (lamports === null || lamports === 0n)
    return 'Daily limit: an amount in SOL above 0, with at most 9 decimals (e.g. 2.5)';
  if (String(lamports) === vault.dailyLimit) return 'Daily limit: that is the current limit';
  const dailyLimit = String(lamports);
  return {
    title: `Daily limit ${formatSol(BigInt(vault.dailyLimit))} → ${formatSol(lamports)} SOL`,
    body: { dailyLimit },
    preview: { dailyLimit },
    appliedIn: (v) => v.dailyLimit === dailyLimit,
  };
}

function whitelistChange({ add, removed }: Controls, vault: Vault): Proposal {
  const added = [...new Set(add.value.split(/[\s,]+/).filter((a) => a !== ''))];
  const wrong = added.find((a) => !isAddress(a));
  if (wrong !== undefined) return `Whitelist: ${wrong} is not a Solana address`;
  const toAdd = added.filter((a) => !vault.whitelist.includes(a));
  const toRemove = vault.whitelist.filter((a) => removed.has(a));
  if (toAdd.length === 0 && toRemove.length === 0) return 'Whitelist: add an address or mark one to remove';
  const proposed = [...vault.whitelist.filter((a) => !removed.has(a)), ...toAdd];
  if (proposed.length > MAX_WHITELIST)
    return `Whitelist: at most ${MAX_WHITELIST} addresses (this would be ${proposed.length})`;
  const what = [
    toAdd.length > 0 ? `add ${toAdd.length}` : '',
    toRemove.length > 0 ? `remove ${toRemove.length}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return {
    title: `Whitelist: ${what}${proposed.length === 0 ? ' (empty: any destination)' : ''}`,
    body: { whitelist: { add: toAdd, remove: toRemove } },
    preview: { whitelist: proposed },
    appliedIn: (v) =>
      v.whitelist.length === proposed.length && proposed.every((a) => v.whitelist.includes(a)),
  };
}

function agentChange({ agent }: Controls, vault: Vault): Proposal {
  const next = agent.value.trim();
  if (!isAddress(next)) return 'Agent: a Solana address (the key your agent signs with)';
  if (next === vault.agentSigner) return 'Agent: that is the current agent';
  return {
    title: `Agent ${shortAddress(vault.agentSigner)} → ${shortAddress(next)}`,
    body: { agentSigner: next },
    appliedIn: (v) => v.agentSigner === next,
  };
}

function pauseChange(_: Controls, vault: Vault): Proposal {
  const paused = !vault.paused;
  return {
    title: paused ? 'Pause the vault' : 'Resume the vault',
    body: { paused },
    appliedIn: (v) => v.paused === paused,
  };
}

function whitelistItems(controls: Controls, vault: Vault, enabled: boolean): HTMLElement {
  if (vault.whitelist.length === 0)
    return h('p', { class: 'muted' }, 'Empty: the agent may send to any destination.');
  return h(
    'ul',
    { class: 'whitelist', 'data-testid': 'whitelist' },
    ...vault.whitelist.map((address) => {
      const box = h('input', { type: 'checkbox', 'data-testid': 'whitelist-remove', disabled: !enabled });
      box.checked = controls.removed.has(address);
      box.addEventListener('change', () => {
        if (box.checked) controls.removed.add(address);
        else controls.removed.delete(address);
      });
      return h(
        'li',
        {},
        h('label', { class: 'field-check' }, box, h('code', { class: 'address' }, address), ' remove'),
      );
    }),
  );
}

const part = (title: string, ...children: (HTMLElement | null)[]) =>
  h('div', { class: 'console-part' }, h('h3', {}, title), ...children);

const inlineForm = (...children: HTMLElement[]) => h('div', { class: 'inline-form' }, ...children);

/** The policy controls; `request` gets a change, or an error text naming what is wrong. */
export function createPolicyForms(request: (change: Proposal) => void) {
  const controls: Controls = {
    limit: h('input', {
      class: 'input',
      inputmode: 'decimal',
      autocomplete: 'off',
      'data-testid': 'limit-input',
    }),
    add: h('textarea', {
      class: 'input',
      rows: 2,
      placeholder: 'one address a line',
      'data-testid': 'whitelist-add',
    }),
    agent: h('input', { class: 'input', autocomplete: 'off', 'data-testid': 'agent-input' }),
    removed: new Set(),
  };
  let limitTouched = false;
  controls.limit.addEventListener('input', () => {
    limitTouched = true;
  });
  const button = (label: string, testId: string, enabled: boolean, kind: string, onClick: () => void) => {
    const element = h(
      'button',
      { type: 'button', class: `button button-small ${kind}`, disabled: !enabled, 'data-testid': testId },
      label,
    );
    element.addEventListener('click', onClick);
    return element;
  };
  const action = (vault: Vault, change: (c: Controls, v: Vault) => Proposal) => () =>
    request(change(controls, vault));

  return {
    /** After a change was sent: the inputs start again from what the chain will show. */
    reset(): void {
      limitTouched = false;
      controls.add.value = '';
      controls.agent.value = '';
      controls.removed.clear();
    },
    element(vault: Vault, enabled: boolean): HTMLElement {
      const { limit, add, agent } = controls;
      if (!limitTouched) limit.value = formatSol(BigInt(vault.dailyLimit));
      for (const control of [limit, add, agent]) control.disabled = !enabled;
      const primary = 'button-primary';
      return h(
        'div',
        { class: 'console-forms' },
        part(
          'Daily limit',
          inlineForm(
            field('New daily limit (SOL)', limit),
            button('Review change', 'review-limit', enabled, primary, action(vault, limitChange)),
          ),
        ),
        part(
          `Whitelist (${vault.whitelist.length} of ${MAX_WHITELIST})`,
          whitelistItems(controls, vault, enabled),
          inlineForm(
            field('Add destinations', add),
            button('Review change', 'review-whitelist', enabled, primary, action(vault, whitelistChange)),
          ),
        ),
        part(
          'Agent',
          inlineForm(
            field('New agent key', agent),
            button('Change agent', 'change-agent', enabled, '', action(vault, agentChange)),
          ),
        ),
        part(
          vault.paused ? 'Paused' : 'Running',
          h(
            'p',
            { class: 'muted' },
            vault.paused
              ? 'Nothing leaves the vault, approved transfers included, until you resume it.'
              : 'Pausing stops every transfer at once, approved ones included.',
          ),
          vault.paused
            ? button('Resume the vault', 'resume', enabled, primary, action(vault, pauseChange))
            : button('Pause the vault', 'pause', enabled, 'button-danger', action(vault, pauseChange)),
        ),
      );
    },
  };
}
