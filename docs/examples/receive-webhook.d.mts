// Types of receive-webhook.mjs, for the tests that run the example.
import type { Server } from 'node:http';
import type { VaultkeeperWebhookEvent } from '@vaultkeeper/webhooks';

export function createReceiver(
  secrets: readonly string[],
  onEvent: (event: VaultkeeperWebhookEvent) => unknown,
): Server;
