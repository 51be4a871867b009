// Chat destinations end to end: subscriptions in each platform's format delivered to local stand-ins
// that check the platform's schema, the URL sealed at rest, masked in every response and absent from
// every log line, a 429's wait honoured, and bad formats refused.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import { enqueueWebhookEvent } from '../../src/domain/webhooks/outbox.js';
import { runDeliveryWorker } from '../../src/jobs/worker.js';
import { webhookAttempts, webhookDeliveries, webhooks } from '../../src/storage/schema/index.js';
import { createLogCapture, type LogCapture } from '../support/app.js';
import { discordUnescaped, renderDiscord, renderTelegram } from '../support/chat-platforms.js';
import { type ChatPlatform, type ChatReceiver, createChatReceiver } from '../support/chat-receiver.js';
import { createVault, randomAddress } from '../support/factories.js';
import { useTestApps } from '../support/test-apps.js';
import { waitFor } from '../support/wait.js';
import { WORKER_ENV } from '../support/webhooks.js';

const KEY_1 = Buffer.alloc(32, 7).toString('base64');
const KEY_2 = Buffer.alloc(32, 8).toString('base64');
const BASE = 'https://vk.example.com';
/** The Domain line of signed messages: PUBLIC_BASE_URL's host. */
const DOMAIN = new URL(BASE).host;
/** What each stand-in's URL holds beyond its host: none of it may leave in a response or a log line. */
const SECRET_PARTS = [
  'xoxSecretPart1234',
  'dscSecretToken5678',
  'AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw',
  'bot123456789',
];

let app: FastifyInstance;
const logs: LogCapture = createLogCapture();
const cleanups: (() => Promise<unknown>)[] = [];

// Registered before the world's hooks: workers and receivers stop before their caches close.
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  logs.lines.length = 0;
});
const world = useTestApps({
  fileApp: {
    env: {
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      RATE_LIMIT_ENABLED: 'false',
      PUBLIC_BASE_URL: BASE,
      WEBHOOK_SECRETS_KEY: KEY_1,
    },
    logs,
    setUp: async (fileApp) => {
      app = fileApp;
    },
  },
});

const db = () => world.db;

async function call(method: string, url: string, wallet: TestWallet, body?: unknown) {
  const response = await app.inject({
    method: method as 'POST',
    url,
    headers: wallet.authHeaders({ request: { method, path: url, body, domain: DOMAIN } }),
    ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
  });
  return { status: response.statusCode, text: response.body, json: () => response.json() };
}

async function chatReceiver(platform: ChatPlatform): Promise<ChatReceiver> {
  const created = await createChatReceiver(platform);
  cleanups.push(() => created.receiver.close());
  return created;
}

/** The worker as main runs it, logging into `logs`. */
function startWorker(env: Record<string, string> = {}): void {
  const deps = world.createDeps({ env: { ...WORKER_ENV, WEBHOOK_SECRETS_KEY: KEY_1, ...env }, logs });
  const controller = new AbortController();
  const done = runDeliveryWorker(deps, controller.signal, { pollIntervalMs: 25 });
  cleanups.push(async () => {
    controller.abort();
    await done;
  });
}

/** A vault name that would be markup, a mention and a link on some platform. */
const HOSTILE_NAME = '*bold* <@here> [x](http://evil.example) `c` _i_ ~s~ &amp;';

/** An owner, their vault, and a subscription created through the API. */
async function subscribe(url: string, format?: string, name?: string) {
  const owner = createTestWallet();
  const vault = await createVault(db(), {
    authority: owner.address,
    ...(name === undefined ? {} : { name }),
  });
  const events = ['override.created', 'vault.paused', 'transaction.blocked'];
  const created = await call('POST', '/api/webhooks', owner, {
    url,
    events,
    vault: vault.address,
    ...(format === undefined ? {} : { format }),
  });
  assert.equal(created.status, 201, created.text);
  return { owner, vault, created, webhook: created.json() };
}

function overrideData(vault: string) {
  return {
    id: randomUUID(),
    vault,
    nonce: '7',
    destination: randomAddress(),
    amount: '1500000000',
    blockReason: 'exceeded_daily_limit',
    status: 'pending',
    expiresAt: new Date(Date.now() + 3600_000).toISOString(),
    blinkUrl: `${BASE}/api/actions/${vault}/7`,
    approvalUrl: `${BASE}/overrides/${vault}/7`,
  };
}

async function emit(vault: { id: string; authority: string }, event: string, data: Record<string, unknown>) {
  await db().transaction((tx) =>
    enqueueWebhookEvent(tx, {
      event: event as 'override.created',
      vaultId: vault.id,
      authority: vault.authority,
      timestamp: new Date().toISOString(),
      data,
      dedupeKey: randomUUID(),
    }),
  );
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const settled = (count: number, status = 'succeeded') =>
  waitFor(
    async () => {
      const rows = await db().select().from(webhookDeliveries);
      return rows.length === count && rows.every((r) => r.status === status) ? rows : null;
    },
    { timeoutMs: 15_000, message: `${count} deliveries ${status}` },
  );

const assertNoSecret = (text: string, where: string) => {
  for (const part of SECRET_PARTS)
    assert.ok(!text.includes(part), `${where} shows ${part}: ${text.slice(0, 300)}`);
};

describe('chat formats', () => {
  test('an override reaches Slack, Discord and Telegram as each platform’s own body with a button', async () => {
    const platforms = ['slack', 'discord', 'telegram'] as const;
    const receivers = await Promise.all(platforms.map(chatReceiver));
    startWorker();
    const subs: Awaited<ReturnType<typeof subscribe>>[] = [];
    for (const [i, platform] of platforms.entries()) {
      const sub = await subscribe(receivers[i]!.url, platform, HOSTILE_NAME);
      assert.equal(sub.webhook.format, platform);
      subs.push(sub);
      await emit(sub.vault, 'override.created', overrideData(sub.vault.address));
      await emit(sub.vault, 'vault.paused', {
        vault: sub.vault.address,
        name: '<b>&',
        address: sub.vault.address,
      });
    }
    await settled(6);
    for (const [i, platform] of platforms.entries()) {
      const receiver = receivers[i]!;
      assert.deepEqual(receiver.problems, [], platform);
      // Delivery is at least once: a message whose answer came after the worker's timeout (a loaded
      // machine) is sent again, the same body; each message counts once.
      const accepted = [...new Map(receiver.accepted.map((body) => [JSON.stringify(body), body])).values()];
      assert.equal(accepted.length, 2, platform);
      const approval = `${BASE}/overrides/${subs[i]!.vault.address}/7`;
      // Deliveries of one subscription may arrive in either order: the override's is the one with its link.
      const isRequest = (body: unknown) => JSON.stringify(body).includes('/overrides/');
      // biome-ignore lint/suspicious/noExplicitAny: the platform's JSON, read field by field
      const [request, paused] = [accepted.find(isRequest), accepted.find((b) => !isRequest(b))] as any[];
      assert.ok(request !== undefined && paused !== undefined, platform);
      // biome-ignore lint/suspicious/noExplicitAny: Slack's blocks, found by type
      const block = (body: any, type: string) => body.blocks.find((b: { type: string }) => b.type === type);
      const shown =
        platform === 'slack'
          ? [block(request, 'actions').elements[0].url, block(paused, 'header').text.text]
          : platform === 'discord'
            ? [request.components[0].components[0].url, renderDiscord(paused.embeds[0].title)]
            : [request.reply_markup.inline_keyboard[0][0].url, renderTelegram(paused.text)];
      assert.equal(shown[0], approval, platform);
      assert.match(shown[1], /Vault paused: <b>&/, platform);
      // The override's payload has only the address: the worker names the vault, as typed, beside it.
      const short = `${subs[i]!.vault.address.slice(0, 4)}…${subs[i]!.vault.address.slice(-4)}`;
      const label = `${HOSTILE_NAME} (${short})`;
      if (platform === 'slack') {
        assert.equal(block(request, 'header').text.text, `Override 7 created: ${label}`);
        assert.equal(block(request, 'context').elements[0].text, `Vault: ${label}`);
        assert.equal(block(request, 'section').text.verbatim, true);
        assert.ok(!block(request, 'section').text.text.includes('*bold*'), 'the name stays out of mrkdwn');
      } else if (platform === 'discord') {
        assert.equal(renderDiscord(request.embeds[0].title), `Override 7 created: ${label}`);
        assert.deepEqual(discordUnescaped(request.embeds[0].title), []);
        assert.deepEqual(request.allowed_mentions, { parse: [] });
      } else {
        assert.match(
          renderTelegram(request.text),
          new RegExp(`^Override 7 created: ${escapeRegExp(label)}\n`),
        );
        assert.doesNotMatch(request.text, /<a |<code>\*|<i>/);
      }
      if (platform === 'telegram') assert.equal(request.chat_id, '-1001234567890');
    }
  });

  test('a platform that refuses the body fails the attempt like any receiver', async () => {
    const receiver = await chatReceiver('slack');
    // Sent as telegram (a URL of that shape on the Slack stand-in's port): the Slack schema refuses it.
    const url = new URL(receiver.url);
    const telegramUrl = `${url.origin}/bot123456789:${'A'.repeat(35)}/sendMessage?chat_id=42`;
    startWorker({ WEBHOOK_RETRY_SCHEDULE: '0.05' });
    const sub = await subscribe(telegramUrl, 'telegram');
    await emit(sub.vault, 'vault.paused', { vault: sub.vault.address });
    const [delivery] = await settled(1, 'failed');
    const attempts = await db()
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.deliveryId, delivery!.id));
    assert.deepEqual(
      attempts.map((a) => a.statusCode),
      [400, 400],
    );
    assert.ok(receiver.problems.length > 0);
  });
});

describe('the destination URL is a secret', () => {
  test('sealed at rest, masked in create, list, get, update and rotate answers, never in a log line', async () => {
    const receiver = await chatReceiver('slack');
    const { owner, webhook, created } = await subscribe(receiver.url, 'slack');
    const masked = `http://127.0.0.1:${receiver.receiver.port}/…abcd`;
    const answers = [
      created,
      await call('GET', '/api/webhooks', owner),
      await call('GET', `/api/webhooks/${webhook.id}`, owner),
      await call('PATCH', `/api/webhooks/${webhook.id}`, owner, {
        events: ['vault.paused', 'override.created'],
      }),
      await call('PATCH', `/api/webhooks/${webhook.id}`, owner, { url: receiver.url, format: 'slack' }),
      await call('POST', `/api/webhooks/${webhook.id}/rotate-secret`, owner),
    ];
    for (const [i, answer] of answers.entries()) {
      assert.ok(answer.status < 300, answer.text);
      assertNoSecret(answer.text, `answer ${i}`);
      const body = answer.json();
      assert.equal((body.webhooks?.[0] ?? body).url, masked, `answer ${i}`);
      assert.equal((body.webhooks?.[0] ?? body).format, 'slack', `answer ${i}`);
    }
    const [row] = await db().select().from(webhooks).where(eq(webhooks.id, webhook.id));
    assert.equal(row!.url, masked);
    assert.match(row!.sealedUrl!, /^enc:v1:/);
    assertNoSecret(JSON.stringify(row), 'the stored row');

    // A success and a failure (the receiver down) go through the worker; neither leaves the URL in a log.
    startWorker({ WEBHOOK_RETRY_SCHEDULE: '0.05' });
    const vaultRow = { id: row!.vaultId!, authority: row!.owner };
    await emit(vaultRow, 'vault.paused', { vault: 'x' });
    await settled(1);
    await receiver.receiver.stop();
    await emit(vaultRow, 'vault.paused', { vault: 'y' });
    await waitFor(async () =>
      (await db().select().from(webhookDeliveries)).some((d) => d.status === 'failed'),
    );
    const deliveries = await call('GET', `/api/webhooks/${webhook.id}/deliveries`, owner);
    assertNoSecret(deliveries.text, 'the deliveries');
    assert.ok(logs.lines.some((line) => line.includes('delivery attempt failed')));
    for (const line of logs.lines) assertNoSecret(line, 'a log line');
  });

  test('a URL of a known platform is detected, kept masked, and its format changes only with a matching URL', async () => {
    const owner = createTestWallet();
    const slackUrl = 'https://hooks.slack.com/services/T0001/B0001/xoxSecretPart1234abcd';
    const created = await call('POST', '/api/webhooks', owner, { url: slackUrl, events: ['vault.paused'] });
    assert.equal(created.status, 201, created.text);
    const webhook = created.json();
    assert.equal(webhook.format, 'slack');
    assert.equal(webhook.url, 'https://hooks.slack.com/…abcd');
    const path = `/api/webhooks/${webhook.id}`;

    const contradicting = await call('PATCH', path, owner, { format: 'discord' });
    assert.equal(contradicting.status, 400);
    assert.equal(contradicting.json().details.issues[0].path, 'body.format');
    const toJson = await call('PATCH', path, owner, { format: 'json' });
    assert.equal(toJson.status, 400);
    assert.equal(toJson.json().details.issues[0].path, 'body.url');
    for (const answer of [contradicting, toJson]) assertNoSecret(answer.text, 'an error');

    const discordUrl = 'https://discord.com/api/webhooks/1234567890/dscSecretToken5678wxyz';
    const moved = await call('PATCH', path, owner, { url: discordUrl });
    assert.equal(moved.status, 200, moved.text);
    assert.deepEqual([moved.json().format, moved.json().url], ['discord', 'https://discord.com/…wxyz']);
    const plain = await call('PATCH', path, owner, {
      url: 'https://receiver.example.com/hook',
      format: 'json',
    });
    assert.deepEqual([plain.json().format, plain.json().url], ['json', 'https://receiver.example.com/hook']);
    const [row] = await db().select().from(webhooks).where(eq(webhooks.id, webhook.id));
    assert.equal(row!.sealedUrl, null);
    for (const line of logs.lines) assertNoSecret(line, 'a log line');
  });

  test('bad formats are refused naming the field and change nothing', async () => {
    const owner = createTestWallet();
    const refusals: [Record<string, unknown>, string][] = [
      [{ url: 'https://hooks.slack.com/services/T/B/xoxSecretPart1234', format: 'teams' }, 'format'],
      [{ url: 'https://hooks.slack.com/services/T/B/xoxSecretPart1234', format: 'discord' }, 'body.format'],
      [{ url: 'https://discord.com/api/webhooks/1/dscSecretToken5678', format: 'json' }, 'body.format'],
      [
        { url: 'https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage' },
        'body.format',
      ],
      [
        {
          url: 'https://chat.example.com/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/send',
          format: 'telegram',
        },
        'body.format',
      ],
    ];
    for (const [body, field] of refusals) {
      const answer = await call('POST', '/api/webhooks', owner, { events: ['vault.paused'], ...body });
      assert.equal(answer.status, 400, answer.text);
      const error = answer.json();
      assert.equal(error.code, 'VALIDATION_ERROR');
      assert.ok(
        error.details.issues.some((issue: { path: string }) => issue.path.endsWith(field)),
        answer.text,
      );
      assertNoSecret(answer.text, 'an error');
    }
    assert.equal((await db().select().from(webhooks)).length, 0);
    for (const line of logs.lines) assertNoSecret(line, 'a log line');
  });

  test('sealed URLs are sealed again under a new key and still delivered', async () => {
    const receiver = await chatReceiver('discord');
    const { webhook, vault } = await subscribe(receiver.url, 'discord');
    const before = (await db().select().from(webhooks).where(eq(webhooks.id, webhook.id)))[0]!.sealedUrl!;
    startWorker({ WEBHOOK_SECRETS_KEY: KEY_2, WEBHOOK_SECRETS_KEY_PREVIOUS: KEY_1 });
    const after = await waitFor(async () => {
      const [row] = await db().select().from(webhooks).where(eq(webhooks.id, webhook.id));
      return row!.sealedUrl !== before ? row!.sealedUrl : null;
    });
    assert.match(after!, /^enc:v1:/);
    await emit(vault, 'vault.paused', { vault: vault.address });
    await settled(1);
    assert.deepEqual(receiver.problems, []);
  });
});

describe('rate limits', () => {
  test('a 429’s retry_after (Discord, Telegram bodies) or Retry-After (Slack) is waited out in full', async () => {
    const waits = { slack: 1000, discord: 1500, telegram: 2000 } as const;
    const receivers = await Promise.all((['slack', 'discord', 'telegram'] as const).map(chatReceiver));
    const limited: Record<
      ChatPlatform,
      (index: number) => { status: number; headers?: Record<string, string>; body?: string } | null
    > = {
      slack: (i) => (i === 0 ? { status: 429, headers: { 'retry-after': '1' }, body: 'rate_limited' } : null),
      discord: (i) =>
        i === 0
          ? {
              status: 429,
              body: '{"message":"You are being rate limited.","retry_after":1.5,"global":false}',
            }
          : null,
      telegram: (i) =>
        i === 0
          ? {
              status: 429,
              body: '{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 2","parameters":{"retry_after":2}}',
            }
          : null,
    };
    // The schedule alone would retry after 50 ms (at most 100 ms with a Retry-After).
    startWorker({ WEBHOOK_RETRY_SCHEDULE: '0.05,0.05' });
    for (const receiver of receivers) {
      const platform = (['slack', 'discord', 'telegram'] as const)[receivers.indexOf(receiver)]!;
      receiver.override((_, index) => limited[platform](index));
      const sub = await subscribe(receiver.url, platform);
      await emit(sub.vault, 'override.created', overrideData(sub.vault.address));
    }
    await settled(3);
    for (const [i, platform] of (['slack', 'discord', 'telegram'] as const).entries()) {
      const requests = receivers[i]!.receiver.requests;
      assert.equal(requests.length, 2, platform);
      const gap = requests[1]!.receivedAt - requests[0]!.receivedAt;
      assert.ok(gap >= waits[platform], `${platform} retried after ${gap} ms, asked ${waits[platform]}`);
      assert.deepEqual(receivers[i]!.problems, [], platform);
    }
  });
});
