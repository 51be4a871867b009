// The owner's alert settings on the vault page (GET/PUT /api/vaults/:address/alerts): budget thresholds,
// agent velocity and the approval expiry warning. Hidden where the service has no such route.

import { readAlertForm } from './alert-settings.js';
import { type AlertSettings, ApiError, isMissingRoute, type OwnerApi } from './api.js';
import { h } from './dom.js';
import { isUserRejection } from './wallet-standard.js';

type Availability = 'available' | 'missing';

const input = (testId: string, attributes: Record<string, string | number> = {}) =>
  h('input', { class: 'input', 'data-testid': testId, ...attributes });

function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  return h(
    'label',
    { class: 'field' },
    h('span', { class: 'field-label' }, label),
    control,
    hint === undefined ? null : h('span', { class: 'field-hint muted' }, hint),
  );
}

function createControls() {
  return {
    thresholds: input('alert-thresholds', { inputmode: 'numeric', autocomplete: 'off' }),
    velocityOn: input('alert-velocity-on', { type: 'checkbox' }),
    windowSeconds: input('alert-window', { type: 'number', min: 60, max: 86_400 }),
    maxTransfers: input('alert-max-transfers', { type: 'number', min: 1, max: 10_000 }),
    expiryWarningMinutes: input('alert-expiry-minutes', { type: 'number', min: 1, max: 59 }),
  };
}
type Controls = ReturnType<typeof createControls>;

function fillControls(controls: Controls, value: AlertSettings): void {
  controls.thresholds.value = value.budgetThresholds.join(', ');
  controls.velocityOn.checked = value.velocity !== null;
  controls.windowSeconds.value = String(value.velocity?.windowSeconds ?? 60);
  controls.maxTransfers.value = String(value.velocity?.maxTransfers ?? 30);
  controls.expiryWarningMinutes.value = String(value.expiryWarningMinutes);
}

function settingsForm(controls: Controls, save: HTMLElement): HTMLElement {
  return h(
    'div',
    { class: 'form-grid' },
    field('Budget thresholds (% of the daily limit)', controls.thresholds, 'empty: no budget alerts'),
    field('Expiry warning (minutes before)', controls.expiryWarningMinutes),
    h('label', { class: 'field field-check' }, controls.velocityOn, 'Warn on a burst of transfers'),
    field('Burst window (seconds)', controls.windowSeconds),
    field('More transfers than', controls.maxTransfers),
    h('div', { class: 'actions' }, save),
  );
}

function errorText(error: unknown): string {
  if (isUserRejection(error)) return 'You declined in your wallet. Nothing changed.';
  return error instanceof ApiError || error instanceof Error ? error.message : 'Something went wrong.';
}

function readControls(controls: Controls) {
  return readAlertForm({
    thresholds: controls.thresholds.value,
    velocityOn: controls.velocityOn.checked,
    windowSeconds: controls.windowSeconds.value,
    maxTransfers: controls.maxTransfers.value,
    expiryWarningMinutes: controls.expiryWarningMinutes.value,
  });
}

/** The alert settings section; `render` redraws the console around it. */
export function createAlertSettingsForm(vault: string, render: () => void) {
  // Shown until a read finds the service has no such route (an unsigned probe would log a 401).
  let availability: Availability = 'available';
  let settings: AlertSettings | null = null;
  let busy = false;
  let notice: { kind: 'error' | 'success'; text: string } | null = null;
  const controls = createControls();
  const fill = (value: AlertSettings) => {
    settings = value;
    fillControls(controls, value);
  };

  const run = async (work: () => Promise<void>) => {
    busy = true;
    notice = null;
    render();
    try {
      await work();
    } catch (error) {
      if (isMissingRoute(error)) availability = 'missing';
      notice = { kind: 'error', text: errorText(error) };
    } finally {
      busy = false;
      render();
    }
  };

  const load = (owner: OwnerApi) =>
    run(async () => {
      fill(await owner.getAlerts(vault));
    });

  const save = (owner: OwnerApi) => {
    const body = readControls(controls);
    if (typeof body === 'string') {
      notice = { kind: 'error', text: body };
      render();
      return Promise.resolve();
    }
    return run(async () => {
      fill(await owner.updateAlerts(vault, body));
      notice = { kind: 'success', text: 'Alert settings saved.' };
    });
  };

  const button = (label: string, testId: string, onClick: () => void, primary = false) => {
    const element = h(
      'button',
      {
        type: 'button',
        class: `button${primary ? ' button-primary' : ''}`,
        disabled: busy,
        'data-testid': testId,
      },
      label,
    );
    element.addEventListener('click', onClick);
    return element;
  };

  return {
    element(owner: OwnerApi): HTMLElement | null {
      if (availability !== 'available') return null;
      for (const control of Object.values(controls)) control.disabled = busy;
      return h(
        'div',
        { class: 'console-part', 'data-testid': 'alert-settings' },
        h('h3', {}, 'Alerts'),
        h(
          'p',
          { class: 'muted' },
          'Hear before a block: when the agent crosses a share of its daily limit, sends unusually many transfers, or an approval is about to expire.',
        ),
        settings === null
          ? button('Show alert settings', 'load-alerts', () => void load(owner))
          : settingsForm(
              controls,
              button('Save alert settings', 'save-alerts', () => void save(owner), true),
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
