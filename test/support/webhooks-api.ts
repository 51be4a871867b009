// The subscription API under test, over useTestApps: the file's database (emptied before each test), an
// app that allows private URLs and e-mail, a strict app that does not, fresh owner and stranger wallets per test.
import assert from 'node:assert/strict';
import { afterEach, before } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import type { Storage } from '../../src/storage/database.js';
import { createLogCapture, type LogCapture } from './app.js';
import { useTestApps } from './test-apps.js';

/** A parsed JSON body, read field by field by the tests. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response JSON field by field
export type JsonBody = any;

export interface WebhookApiHarness {
  readonly storage: { readonly storage: Storage };
  readonly app: FastifyInstance;
  /** No private URLs, no SMTP: the production defaults. */
  readonly strictApp: FastifyInstance;
  readonly logs: LogCapture;
  readonly owner: TestWallet;
  readonly stranger: TestWallet;
  call(
    method: string,
    url: string,
    wallet: TestWallet | null,
    body?: unknown,
    target?: FastifyInstance,
  ): Promise<{ status: number; body: JsonBody; headers: LightMyRequestResponse['headers'] }>;
  /** POST /api/webhooks that must succeed (https receiver, transaction.blocked unless overridden). */
  subscribe(wallet: TestWallet, body?: Record<string, unknown>): Promise<JsonBody>;
}

/** Registers the file's before/after hooks and returns the harness they fill in. */
export function useWebhookApi(): WebhookApiHarness {
  const state = {} as { -readonly [K in keyof WebhookApiHarness]: WebhookApiHarness[K] };
  const world = useTestApps();
  state.logs = createLogCapture();
  Object.defineProperty(state, 'storage', { get: () => ({ storage: world.storage }) });
  before(async () => {
    const env = {
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      SMTP_URL: 'smtp://127.0.0.1:2525',
      RATE_LIMIT_ENABLED: 'false',
    };
    state.app = (await world.startForFile({ env, logs: state.logs })).app;
    state.strictApp = (await world.startForFile({ env: { RATE_LIMIT_ENABLED: 'false' } })).app;
  });
  afterEach(() => {
    state.owner = createTestWallet();
    state.stranger = createTestWallet();
  });
  state.owner = createTestWallet();
  state.stranger = createTestWallet();
  state.call = async (method, url, wallet, body, target) => {
    const response = await (target ?? state.app).inject({
      method: method as 'GET',
      url,
      headers: wallet === null ? {} : wallet.authHeaders({ request: { method, path: url, body } }),
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
    return {
      status: response.statusCode,
      body: response.body === '' ? null : response.json(),
      headers: response.headers,
    };
  };
  state.subscribe = async (wallet, body = {}) => {
    const created = await state.call('POST', '/api/webhooks', wallet, {
      url: 'https://hooks.example.com/vk',
      events: ['transaction.blocked'],
      ...body,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body;
  };
  return state;
}
