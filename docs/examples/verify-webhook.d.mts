// Types of verify-webhook.mjs, for the tests that run the example.
import type { IncomingHttpHeaders, Server } from 'node:http';

export function verifyStandardWebhook(
  rawBody: string,
  headers: IncomingHttpHeaders | Record<string, string>,
  secret: string,
  nowSeconds?: number,
): boolean;
export function verifyVaultkeeperSignature(
  rawBody: string,
  headers: IncomingHttpHeaders | Record<string, string>,
  secret: string,
): boolean;
export function createWebhookServer(
  secret: string,
  onEvent: (event: {
    id: string;
    event: string;
    timestamp: string;
    data: Record<string, unknown>;
  }) => unknown,
): Server;
