// The webhook event vocabulary: the one list the service subscribes and delivers by, and receivers narrow on.

/** Event names a subscription may ask for. */
export const WEBHOOK_EVENTS = [
  'transaction.executed',
  'transaction.blocked',
  'override.created',
  'override.approved',
  'override.executed',
  'override.rejected',
  'vault.created',
  'vault.paused',
  'vault.resumed',
  'policy.updated',
] as const;

export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

/** Sent only when a subscription's test is asked for (POST /api/webhooks/:id/test). */
export const TEST_EVENT = 'webhook.test';

/** Every `event` a delivery can carry. */
export type DeliveredEventName = WebhookEventName | typeof TEST_EVENT;

/** True when `name` is an event a subscription may ask for. */
export function isWebhookEventName(name: string): name is WebhookEventName {
  return (WEBHOOK_EVENTS as readonly string[]).includes(name);
}
