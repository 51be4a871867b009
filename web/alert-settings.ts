// Reading the alert settings form (pure: no DOM), with the bounds the API enforces.
import type { AlertSettings } from '@vaultkeeper/client';

/** What the form holds, as the PUT body; a string names the first field that is wrong. */
export function readAlertForm(values: {
  thresholds: string;
  velocityOn: boolean;
  windowSeconds: string;
  maxTransfers: string;
  expiryWarningMinutes: string;
}): AlertSettings | string {
  const thresholds = values.thresholds
    .split(/[\s,;%]+/)
    .filter((part) => part !== '')
    .map(Number);
  if (thresholds.some((t) => !Number.isInteger(t) || t < 1 || t > 100) || thresholds.length > 5)
    return 'Budget thresholds: up to 5 whole percentages from 1 to 100, e.g. 80, 100';
  if (new Set(thresholds).size !== thresholds.length) return 'Budget thresholds: each percentage once';
  const whole = (text: string, min: number, max: number) => {
    const n = Number(text);
    return text.trim() !== '' && Number.isInteger(n) && n >= min && n <= max ? n : null;
  };
  const minutes = whole(values.expiryWarningMinutes, 1, 59);
  if (minutes === null) return 'Expiry warning: whole minutes from 1 to 59';
  if (!values.velocityOn)
    return { budgetThresholds: thresholds, velocity: null, expiryWarningMinutes: minutes };
  const windowSeconds = whole(values.windowSeconds, 60, 86_400);
  if (windowSeconds === null) return 'Velocity window: whole seconds from 60 to 86400';
  const maxTransfers = whole(values.maxTransfers, 1, 10_000);
  if (maxTransfers === null) return 'Velocity limit: a whole number of transfers from 1 to 10000';
  return {
    budgetThresholds: thresholds,
    velocity: { windowSeconds, maxTransfers },
    expiryWarningMinutes: minutes,
  };
}
