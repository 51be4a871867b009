/** Webhook event names a subscription may ask for. */
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
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** Sent only by POST /api/webhooks/:id/test. */
export const TEST_EVENT = 'webhook.test';
