// The event vocabulary: the one list of names webhooks deliver and the live feed streams, and receivers narrow on.

/** Event names a subscription may ask for. */
export const WEBHOOK_EVENTS = [
  'transaction.executed',
  'transaction.blocked',
  'transaction.dropped',
  'override.created',
  'override.approved',
  'override.executed',
  'override.rejected',
  'vault.created',
  'vault.paused',
  'vault.resumed',
  'policy.updated',
  'budget.threshold',
  'agent.velocity',
  'override.expiring',
  'override.expired',
] as const;

/** The alerts among them: the service derives these from what it ingested (no program event of their own). */
export const ALERT_EVENTS = [
  'budget.threshold',
  'agent.velocity',
  'override.expiring',
  'override.expired',
] as const;

export type AlertEventName = (typeof ALERT_EVENTS)[number];

export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

/** Sent only when a subscription's test is asked for (POST /api/webhooks/:id/test). */
export const TEST_EVENT = 'webhook.test';

/** Every `event` a delivery can carry. */
export type DeliveredEventName = WebhookEventName | typeof TEST_EVENT;

/** True when `name` is an event a subscription may ask for. */
export function isWebhookEventName(name: string): name is WebhookEventName {
  return (WEBHOOK_EVENTS as readonly string[]).includes(name);
}

/**
 * Names the live feed gives events: the same words as webhooks for every event the chain emits, the
 * program's fee events, and `program.unknown` for an event the service could not decode.
 * The alerts and `transaction.dropped` (the cluster abandoned a transaction the service had applied)
 * carry no program event: their `programEvent` is null.
 * (`override.executed` and `override.rejected` are webhook-only: the first arrives on the feed as the
 * `transaction.executed` it comes with, the second happens off-chain.)
 */
export const FEED_EVENTS = [
  'transaction.executed',
  'transaction.blocked',
  'transaction.dropped',
  'override.created',
  'override.approved',
  'vault.created',
  'vault.paused',
  'vault.resumed',
  'policy.updated',
  'treasury.initialized',
  'fees.withdrawn',
  'program.unknown',
  ...ALERT_EVENTS,
] as const;

export type FeedEventName = (typeof FEED_EVENTS)[number];

/** True when `name` is a name the live feed gives events. */
export function isFeedEventName(name: string): name is FeedEventName {
  return (FEED_EVENTS as readonly string[]).includes(name);
}
