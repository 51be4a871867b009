// `vaultkeeper listen` and the owner commands against a real service process on the fake validator: the
// events of the key's wallet forwarded to a local receiver that verifies them with @vaultkeeper/webhooks
// and standardwebhooks, a dropped stream resumed without loss or duplicate, and a key never printed.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { verifyWebhook } from '@vaultkeeper/webhooks';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { startTcpProxy, type TcpProxy } from '../../dev/support/tcp-proxy.js';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import { createWebhookReceiver, type WebhookReceiver } from '../../dev/support/webhook-receiver.js';
import { type FakeValidator, startFakeValidator } from '../../dev/validator/index.js';
import { runForTest, spawnForTest, type TestChild } from '../support/child-process.js';
import { createTestStorage, type TestStorage } from '../support/database.js';
import { type ServiceProcess, startService } from '../support/service-process.js';
import { waitFor } from '../support/wait.js';

const CLI = ['--import', 'tsx', 'src/cli/main.ts'];
const POSTGRES = /^postgres(ql)?:/.test(process.env.DATABASE_URL ?? '');

let storage: TestStorage | undefined;
let fake: FakeValidator;
let service: ServiceProcess;
let proxy: TcpProxy;
let owner: TestWallet;
let apiKey: string;
let vault: Address;
/** PUBLIC_BASE_URL as the service's start line prints it: its host is the Domain signatures name. */
let publicBaseUrl: string;

before(async () => {
  fake = await startFakeValidator();
  if (POSTGRES) storage = await createTestStorage();
  service = await startService({
    ...(storage?.config.kind === 'postgres'
      ? { DATABASE_URL: storage.config.url }
      : { DATABASE_URL: 'memory://' }),
    REDIS_URL: '',
    SOLANA_CLUSTER: 'devnet',
    SOLANA_RPC_URL: fake.rpcUrl,
    SOLANA_WS_URL: fake.wsUrl,
    RATE_LIMIT_ENABLED: 'false',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    // A failed delivery waits an hour: only `recover` sends it again within the test.
    WEBHOOK_RETRY_SCHEDULE: '3600,3600',
  });
  const started = await waitFor(() => service.output.find((line) => line.includes('vaultkeeper started')), {
    timeoutMs: 60_000,
    message: 'the start line',
  });
  publicBaseUrl = JSON.parse(started).publicBaseUrl;
  proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(service.baseUrl!).port) });
  owner = createTestWallet();
  ({ vault } = await fake.createVault({
    authority: owner.address as Address,
    dailyLimit: 10n ** 12n,
    name: 'Listened',
  }));
  await fake.deposit(vault, 10n ** 11n);
  // A wallet signature creates the key; the Domain is the one the start line printed.
  const body = { name: 'listen test' };
  const path = '/api/api-keys';
  const domain = new URL(publicBaseUrl).host;
  const response = await fetch(`${service.baseUrl}${path}`, {
    method: 'POST',
    headers: {
      ...owner.authHeaders({ request: { method: 'POST', path, body, domain } }),
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
  assert.equal(response.status, 201, await response.clone().text());
  apiKey = ((await response.json()) as { key: string }).key;
});

after(async () => {
  await proxy?.close();
  await service?.stop();
  await fake?.close();
  await storage?.close();
});

const apiUrl = () => `http://127.0.0.1:${proxy.port}`;

interface Verified {
  id: string;
  event: string;
  feedId: number;
}

/** A receiver that verifies every request with both libraries and records what verified. */
async function verifyingReceiver(secret: () => string) {
  const verified: Verified[] = [];
  const refused: string[] = [];
  const receiver: WebhookReceiver = await createWebhookReceiver({
    responder: async (request) => {
      try {
        const event = await verifyWebhook({
          secret: secret(),
          rawBody: request.body,
          headers: request.headers,
        });
        const vaultkeeperOnly = await verifyWebhook({
          secret: secret(),
          rawBody: request.body,
          headers: { 'x-vaultkeeper-signature': String(request.headers['x-vaultkeeper-signature']) },
          scheme: 'vaultkeeper',
        });
        new StandardWebhook(secret()).verify(request.body, request.headers as Record<string, string>);
        assert.equal(vaultkeeperOnly.id, event.id);
        verified.push({
          id: event.id,
          event: event.event,
          feedId: (event.data as unknown as { id: number }).id,
        });
        return { status: 200 };
      } catch (error) {
        refused.push(String(error));
        return { status: 401 };
      }
    },
  });
  return { receiver, verified, refused };
}

interface Listener {
  child: TestChild;
  stdout: string[];
  stderr: string[];
  secret: () => string;
}

const lines = (text: string) => text.split('\n').filter(Boolean);

function startListen(args: string[], t: { after(fn: () => unknown): void }): Listener {
  const child = spawnForTest(process.execPath, [...CLI, 'listen', '--api-url', apiUrl(), ...args], {
    env: { ...process.env, VAULTKEEPER_API_KEY: apiKey },
    t,
  });
  const listener: Listener = {
    child,
    get stdout() {
      return lines(child.stdout);
    },
    get stderr() {
      return lines(child.stderr);
    },
    secret: () => {
      const line = listener.stderr.find((l) => l.startsWith('Webhook signing secret: '));
      return line === undefined ? '' : line.split(' ')[3]!;
    },
  };
  return listener;
}

async function writeTranscript(listener: Listener, verified: Verified[]) {
  const redact = (line: string) => line.replace(/whsec_\S+/g, 'whsec_[redacted]');
  const lines = [
    '$ vaultkeeper listen --forward-to <receiver>   (stderr)',
    ...listener.stderr.map(redact),
    '(stdout)',
    ...listener.stdout,
    '(the receiver, verifying each request with @vaultkeeper/webhooks and standardwebhooks)',
    ...verified.map((v) => `verified ${v.event} ${v.id} (feed id ${v.feedId})`),
  ];
  await mkdir('test-artifacts', { recursive: true });
  await writeFile(join('test-artifacts', 'listen-transcript.txt'), `${lines.join('\n')}\n`);
}

describe('vaultkeeper listen', () => {
  test("forwards the wallet's events signed as deliveries, and resumes a dropped stream without loss or duplicate", async (t) => {
    let listener: Listener | undefined;
    const { receiver, verified, refused } = await verifyingReceiver(() => listener!.secret());
    listener = startListen(['--forward-to', receiver.url], t);
    try {
      await waitFor(
        () =>
          listener!.secret().startsWith('whsec_') && listener!.stderr.some((l) => l.startsWith('Forwarding')),
        {
          timeoutMs: 60_000,
          message: 'listen ready',
        },
      );
      // Another wallet's vault: its events are not this key's to forward.
      const stranger = await fake.createVault({ dailyLimit: 10n ** 12n, name: 'Not mine' });
      await fake.deposit(stranger.vault, 10n ** 11n);
      await fake.execute(stranger.vault, { amount: 1_000 });
      await fake.execute(vault, { amount: 1_000 });
      await fake.execute(vault, { amount: 2_000 });
      await fake.pause(vault);
      await waitFor(() => verified.length >= 3, { timeoutMs: 60_000, message: 'three events forwarded' });

      // The stream drops; events go on meanwhile; listen reconnects and resumes after the last it read.
      await proxy.cut();
      await waitFor(() => listener!.stderr.some((l) => l.startsWith('stream dropped')), {
        timeoutMs: 30_000,
        message: 'the drop noticed',
      });
      await fake.resume(vault);
      await fake.execute(vault, { amount: 3_000 });
      await proxy.restore();
      await waitFor(() => verified.length >= 5, {
        timeoutMs: 60_000,
        message: 'the missed events forwarded',
      });

      assert.deepEqual(refused, []);
      assert.deepEqual(
        verified.map((v) => v.event),
        [
          'transaction.executed',
          'transaction.executed',
          'vault.paused',
          'vault.resumed',
          'transaction.executed',
        ],
      );
      const ids = verified.map((v) => v.feedId);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
        'in feed order',
      );
      assert.equal(new Set(verified.map((v) => v.id)).size, 5, 'no duplicate');
      // listen prints a forward's line once the receiver's answer is back, just after the receiver saw it.
      await waitFor(() => listener!.stdout.length >= 5, {
        timeoutMs: 30_000,
        message: 'listen printed each forward',
      });
      assert.deepEqual(
        listener.stdout.slice(0, 5),
        verified.map((v) => `${v.event}  ${v.id}  → 200`),
      );
      // The session as a developer sees it, kept beside the browser screenshots (secret redacted).
      await writeTranscript(listener, verified);
      const printed = [...listener.stdout, ...listener.stderr].join('\n');
      assert.ok(!printed.includes(apiKey.slice(3)), 'the API key is never printed');
      const request = receiver.requests[0]!;
      assert.equal(request.path, new URL(receiver.url).pathname);
      assert.equal(request.headers['x-vaultkeeper-event'], 'transaction.executed');
    } finally {
      assert.equal((await listener.child.stop('SIGINT')).code, 0);
      await receiver.close();
    }
  });

  test('a wrong key is refused with its reason and exit 1, a vault of another wallet too', async (t) => {
    const wrong = await runForTest(
      process.execPath,
      [...CLI, 'listen', '--forward-to', 'http://127.0.0.1:9/', '--api-url', apiUrl()],
      { env: { ...process.env, VAULTKEEPER_API_KEY: `vk_${'A'.repeat(43)}` } },
    );
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /401 UNAUTHORIZED \(invalid_key\)/);
    const other = await fake.createVault({ dailyLimit: 10n, name: 'Other' });
    await waitFor(async () => (await fetch(`${service.baseUrl}/api/vaults/${other.vault}`)).ok, {
      timeoutMs: 30_000,
    });
    const listener = startListen(['--forward-to', 'http://127.0.0.1:9/', '--vault', other.vault], t);
    assert.equal((await listener.child.exited).code, 1);
    assert.match(listener.stderr.join('\n'), /is not one of .*'s vaults/);
  });
});

describe('vaultkeeper webhooks create, test, recover and delete', () => {
  const run = async (args: string[], env: Record<string, string> = {}) => {
    const done = await runForTest(process.execPath, [...CLI, ...args, '--api-url', apiUrl()], {
      env: { ...process.env, VAULTKEEPER_API_KEY: apiKey, ...env },
    });
    return { code: done.code ?? 1, stdout: done.stdout, stderr: done.stderr };
  };

  test("cover a subscription's life through the API with the key", async () => {
    const receiver = await createWebhookReceiver();
    try {
      const created = await run([
        'webhooks',
        'create',
        '--url',
        `${receiver.url}/hooks`,
        '--events',
        'vault.paused,vault.resumed',
        '--json',
      ]);
      assert.equal(created.code, 0, created.stderr);
      const subscription = JSON.parse(created.stdout) as { id: string; secret: string; events: string[] };
      assert.match(subscription.secret, /^whsec_/);
      assert.deepEqual(subscription.events, ['vault.paused', 'vault.resumed']);
      const tested = await run(['webhooks', 'test', '--webhook', subscription.id]);
      assert.equal(tested.code, 0, tested.stderr);
      assert.match(tested.stdout, /^queued webhook\.test delivery \S+ to /);
      await waitFor(() => receiver.requests.length >= 1, { timeoutMs: 30_000, message: 'the test delivery' });
      const event = await verifyWebhook({
        secret: subscription.secret,
        rawBody: receiver.requests[0]!.body,
        headers: receiver.requests[0]!.headers,
      });
      assert.equal(event.event, 'webhook.test');

      // The receiver fails the next test event: it waits an hour for its retry, listed as failing;
      // recover sends it again now.
      receiver.respond((_, index) =>
        index === 1 ? { status: 503, body: 'down' } : { status: 200, body: 'ok' },
      );
      assert.equal((await run(['webhooks', 'test', '--webhook', subscription.id])).code, 0);
      const failing = await waitFor(
        async () => {
          const answer = await fetch(
            `${apiUrl()}/api/webhooks/${subscription.id}/deliveries?status=failing`,
            {
              headers: { authorization: `Bearer ${apiKey}` },
            },
          );
          const { deliveries } = (await answer.json()) as { deliveries: { id: string; lastError: string }[] };
          return deliveries.length === 1 ? deliveries[0] : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200, message: 'the failed test delivery' },
      );
      assert.equal(failing.lastError, 'http_503');
      const recovered = await run([
        'webhooks',
        'recover',
        '--webhook',
        subscription.id,
        '--since',
        '1h',
        '--json',
      ]);
      assert.equal(recovered.code, 0, recovered.stderr);
      assert.equal(JSON.parse(recovered.stdout).requeued, 1);
      await waitFor(() => receiver.requests.length >= 3, {
        timeoutMs: 30_000,
        message: 'the recovered delivery',
      });
      assert.equal(receiver.requests[2]!.headers['webhook-id'], failing.id);
      const tooOld = await run(['webhooks', 'recover', '--webhook', subscription.id, '--since', '15d']);
      assert.equal(tooOld.code, 1);
      assert.match(tooOld.stderr, /400 VALIDATION_ERROR: since: must be within the last 14 days/);

      const deleted = await run(['webhooks', 'delete', '--webhook', subscription.id]);
      assert.equal(deleted.stdout.trim(), `deleted ${subscription.id}`);
      const again = await run(['webhooks', 'delete', '--webhook', subscription.id]);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /404 WEBHOOK_NOT_FOUND/);
      const noKey = await run(['webhooks', 'test', '--webhook', subscription.id], {
        VAULTKEEPER_API_KEY: '',
      });
      assert.equal(noKey.code, 2);
      assert.match(noKey.stderr, /needs an API key/);
      assert.ok(!(created.stderr + tested.stdout + deleted.stdout).includes(apiKey.slice(3)));
    } finally {
      await receiver.close();
    }
  });

  test('create takes --format: a chat URL comes back masked; an unknown format is a usage error', async () => {
    const created = await run([
      'webhooks',
      'create',
      '--url',
      'https://hooks.slack.com/services/T0001/B0001/cliSecretPart9876',
      '--events',
      'vault.paused',
      '--format',
      'slack',
      '--json',
    ]);
    assert.equal(created.code, 0, created.stderr);
    const subscription = JSON.parse(created.stdout) as { format: string; url: string };
    assert.deepEqual([subscription.format, subscription.url], ['slack', 'https://hooks.slack.com/…9876']);
    assert.doesNotMatch(created.stdout + created.stderr, /cliSecretPart/);
    const refused = await run([
      'webhooks',
      'create',
      '--url',
      'https://x.example.com/h',
      '--events',
      'vault.paused',
      '--format',
      'teams',
    ]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--format must be one of json, slack, discord, telegram/);
  });
});
