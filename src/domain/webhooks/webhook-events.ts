// The webhook event vocabulary is the one the receivers' package defines.
export { TEST_EVENT, WEBHOOK_EVENTS, type WebhookEventName as WebhookEvent } from '@vaultkeeper/webhooks';
