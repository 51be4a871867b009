// npm run test:upgrade: the previous release (the commit release/previous names) writes a data set
// through its API and the fake validator; this version then starts on the same embedded data directory,
// and again on the same PostgreSQL database (DATABASE_URL's server; skipped without one), finds every
// resource as the old one answered it (fields it adds aside), and delivers a new program event to the old
// subscriptions exactly once. CONTRIBUTING.md, Upgrades.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createTestWallet } from '../../dev/support/wallet.js';
import { createWebhookReceiver, type WebhookReceiver } from '../../dev/support/webhook-receiver.js';
import { type FakeValidator, startFakeValidator } from '../../dev/validator/index.js';
import { runForTest, spawnForTest, type TestChild } from '../support/child-process.js';
import { adminQuery } from '../support/database.js';
import { freePort } from '../support/ports.js';
import { waitFor } from '../support/wait.js';
import { assertKept, call, type DataSet, readResources, writeDataSet } from './data-set.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const SOL = 1_000_000_000n;
const ADMIN_URL = process.env.DATABASE_URL;
const scratch = mkdtempSync(join(tmpdir(), 'vk-upgrade-'));

/** The commit release/previous names: its first line that is not a comment. */
export function readPreviousRelease(text: string): string {
  const sha = text
    .split('\n')
    .map((line) => line.trim())
    .find((line) => line !== '' && !line.startsWith('#'));
  if (sha === undefined || !/^[0-9a-f]{40}$/.test(sha)) {
    throw new Error(`release/previous must name a full commit (40 hex digits), not ${JSON.stringify(sha)}`);
  }
  return sha;
}

/**
 * The previous release's tree in a directory of its own (git archive), on this checkout's
 * node_modules: the old code runs on today's dependency versions, which installs nothing.
 */
async function checkOutPreviousRelease(): Promise<string> {
  const sha = readPreviousRelease(readFileSync(join(ROOT, 'release/previous'), 'utf8'));
  const dir = join(scratch, `previous-${sha.slice(0, 12)}`);
  const archived = await runForTest(
    'sh',
    ['-c', `mkdir -p "$1" && git archive "$2" | tar -x -C "$1"`, 'sh', dir, sha],
    {
      cwd: ROOT,
    },
  );
  assert.equal(
    archived.code,
    0,
    `git archive ${sha} (a shallow clone needs \`git fetch\` of it): ${archived.stderr}`,
  );
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

interface Service {
  readonly child: TestChild;
  readonly baseUrl: string;
}

/** Starts src/main.ts of the tree at `root` and waits until it is ready. */
async function startService(root: string, port: number, env: Record<string, string>): Promise<Service> {
  // The backend is the test's choice alone: nothing of this process's database or cache settings.
  const { DATABASE_URL: _d, REDIS_URL: _r, DATA_DIR: _e, ...inherited } = process.env;
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawnForTest(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts')], {
    cwd: root,
    env: {
      ...inherited,
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_BASE_URL: baseUrl,
      LOG_LEVEL: 'warn',
      SOLANA_CLUSTER: 'localnet',
      RATE_LIMIT_ENABLED: 'false',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1',
      WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
      ...env,
    },
  });
  await waitFor(
    async () => {
      if (!child.running()) throw new Error(`the service at ${root} exited: ${child.output}`);
      return (await fetch(`${baseUrl}/readyz`)).status === 200;
    },
    { timeoutMs: 180_000, intervalMs: 250, message: `the service at ${root} ready` },
  ).catch(async (error: unknown) => {
    await child.stop('SIGKILL');
    throw new Error(`${(error as Error).message}\n${child.output}`);
  });
  return { child, baseUrl };
}

async function stopService(service: Service): Promise<void> {
  const exit = await service.child.stop('SIGTERM');
  assert.equal(exit.code, 0, `the service stopped with ${JSON.stringify(exit)}:\n${service.child.output}`);
}

/** The receiver's requests for one subscription path whose body names `signature`, by webhook-id. */
const deliveriesOf = (receiver: WebhookReceiver, path: string, signature: string) =>
  new Set(
    receiver.requests
      .filter((r) => r.path.endsWith(path) && r.body.includes(signature))
      .map((r) => String(r.headers['webhook-id'])),
  );

async function upgrade(previous: string, backend: Record<string, string>) {
  const started = performance.now();
  const fake: FakeValidator = await startFakeValidator();
  let upgraded = false;
  const receiver = await createWebhookReceiver({
    responder: (request) => ({
      status: !upgraded && request.path.endsWith('/failing') ? 500 : 200,
      body: 'ok',
    }),
  });
  try {
    const port = await freePort();
    const chain = { SOLANA_RPC_URL: fake.rpcUrl, SOLANA_WS_URL: fake.wsUrl };
    const old = await startService(previous, port, { ...backend, ...chain });
    const data: DataSet = await writeDataSet(old.baseUrl, fake, createTestWallet(), receiver);
    const before = await readResources(old.baseUrl, data);
    await stopService(old);
    const oldDone = performance.now();

    upgraded = true;
    const requestsBefore = receiver.requests.length;
    const current = await startService(ROOT, port, { ...backend, ...chain });
    try {
      const after = await readResources(current.baseUrl, data);
      const added = assertKept(before, after);
      const { signature } = await fake.execute(data.vaults[0]!, { amount: SOL / 10n });
      for (const [name, id] of Object.entries(data.webhooks)) {
        const found = await waitFor(
          async () => {
            const { deliveries } = (await call(
              current.baseUrl,
              data.owner,
              `/api/webhooks/${id}/deliveries?limit=100`,
            )) as {
              deliveries: { status: string; payload: unknown }[];
            };
            const mine = deliveries.filter((d) => JSON.stringify(d.payload).includes(signature));
            return mine.length > 0 && mine.every((d) => d.status === 'succeeded') ? mine : null;
          },
          {
            timeoutMs: 60_000,
            intervalMs: 250,
            message: `the new event delivered to the ${name} subscription`,
          },
        );
        assert.equal(found.length, 1, `${name}: one delivery of the new event`);
        assert.equal(deliveriesOf(receiver, `/${name}`, signature).size, 1, `${name}: received once`);
      }
      // After the upgrade the receivers heard of the new event only: nothing old was sent again.
      const since = receiver.requests.slice(requestsBefore);
      assert.ok(
        since.every((r) => r.body.includes(signature)),
        'only the new event after the upgrade',
      );
      await stopService(current);
      const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
      return {
        resources: before.size,
        added: [...new Set(added.map((field) => field.replace(/\[\d+\]/g, '[]')))],
        oldPhase: seconds(oldDone - started),
        total: seconds(performance.now() - started),
      };
    } finally {
      if (current.child.running()) await current.child.stop('SIGKILL');
    }
  } finally {
    await receiver.close();
    await fake.close();
  }
}

describe('upgrade from the previous release', () => {
  let previous: string;
  before(async () => {
    previous = await checkOutPreviousRelease();
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  test('on the embedded database: every resource kept, the old subscriptions get a new event once', async (t) => {
    const report = await upgrade(previous, { DATA_DIR: join(scratch, 'data') });
    t.diagnostic(JSON.stringify(report));
  });

  test('on PostgreSQL: the same', async (t) => {
    if (ADMIN_URL === undefined || !/^postgres(ql)?:/.test(ADMIN_URL)) {
      t.skip('DATABASE_URL names no PostgreSQL server');
      return;
    }
    const name = `vk_upgrade_${process.pid}`;
    await adminQuery(ADMIN_URL, `create database ${name}`);
    try {
      const url = new URL(ADMIN_URL);
      url.pathname = `/${name}`;
      const report = await upgrade(previous, { DATABASE_URL: url.toString() });
      t.diagnostic(JSON.stringify(report));
    } finally {
      await adminQuery(ADMIN_URL, `drop database if exists ${name} with (force)`);
    }
  });
});
