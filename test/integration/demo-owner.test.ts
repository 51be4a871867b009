// The demo saves its owner's access (wallet key and an API key) where a visitor can use it, and in demo
// mode (only) the service hands that key to the approval page's demo wallet.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { getBase58Decoder } from '@solana/kit';
import type { FastifyInstance } from 'fastify';
import { createOwner } from '../../dev/demo/owner.js';
import { ownerAccessLines, saveOwnerAccess, saveOwnerKeypair } from '../../dev/demo/owner-access.js';
import { type FakeValidator, startFakeValidator } from '../../dev/validator/index.js';
import { LOCAL_GENESIS_HASH } from '../../dev/validator/rpc.js';
import { ConfigError } from '../../src/config.js';
import { createLogCapture } from '../support/app.js';
import { runForTest, startupDeadlineMs } from '../support/child-process.js';
import { startService } from '../support/service-process.js';
import { useTestApps } from '../support/test-apps.js';

// The file's database (kept between tests, as the demo keeps it) and the app the demo owner signs against.
const world = useTestApps({ emptyEachTest: false });
let app: FastifyInstance;
let baseUrl: string;
let dir: string;

/** The CLI as a process, as the demo's printed commands run: exit code and both streams. */
async function runCli(args: string[], env: NodeJS.ProcessEnv) {
  const run = await runForTest(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { env });
  return { code: run.code, stdout: run.stdout, stderr: run.stderr };
}

before(async () => {
  // Signed requests name the host the service expects: the demo sets PUBLIC_BASE_URL to its own URL.
  ({ app, url: baseUrl } = await world.listenForFile({ ownBaseUrl: true }));
  dir = await mkdtemp(join(tmpdir(), 'vk-demo-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the demo owner', () => {
  test('its wallet key and an API key are saved for the visitor, who can then read its webhooks', async () => {
    const owner = createOwner(baseUrl, 'http://127.0.0.1:1');
    const access = await saveOwnerAccess(owner, baseUrl, dir, 'whsec_bGlzdGVuLXNlY3JldA==');

    const secret = Uint8Array.from(JSON.parse(await readFile(access.keypairFile, 'utf8')) as number[]);
    assert.equal(secret.length, 64, 'solana-keygen format: seed and public key');
    assert.equal(getBase58Decoder().decode(secret.subarray(32)), owner.address);
    assert.equal((await stat(access.keypairFile)).mode & 0o777, 0o600);

    const env = Object.fromEntries(
      (await readFile(access.envFile, 'utf8'))
        .split('\n')
        .filter((line) => /^[A-Z_]+=/.test(line))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    assert.equal(env.VAULTKEEPER_URL, baseUrl);
    assert.equal(env.VAULTKEEPER_API_URL, undefined, 'one name, the one the CLI reads');
    assert.match(env.VAULTKEEPER_API_KEY ?? '', /^vk_/);
    // The printed example, run as written: the owner's webhooks through the API key.
    const res = await fetch(`${env.VAULTKEEPER_URL}/api/webhooks`, {
      headers: { authorization: `Bearer ${env.VAULTKEEPER_API_KEY}` },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(((await res.json()) as { webhooks: unknown[] }).webhooks, []);

    const lines = ownerAccessLines(owner, access, baseUrl, {
      listenUrl: 'http://127.0.0.1:4000/listen',
      webhookId: null,
    }).join('\n');
    assert.ok(lines.includes(access.keypairFile) && lines.includes(access.envFile));
    assert.match(
      lines,
      /curl -s -H "Authorization: Bearer \$VAULTKEEPER_API_KEY" \$VAULTKEEPER_URL\/api\/webhooks/,
    );
    // listen signs with the secret the demo's receiver knows (saved in owner.env, never printed).
    assert.match(
      lines,
      /npx vaultkeeper listen --forward-to http:\/\/127\.0\.0\.1:4000\/listen --secret "\$VAULTKEEPER_LISTEN_SECRET"/,
    );
    assert.equal(env.VAULTKEEPER_LISTEN_SECRET, 'whsec_bGlzdGVuLXNlY3JldA==');
    assert.ok(!lines.includes('whsec_bGlzdGVuLXNlY3JldA=='), 'the listen secret is not printed');
    assert.match(lines, new RegExp(`${baseUrl}/owners/${owner.address}/approvals`));
    assert.ok(!lines.includes(access.apiKey), 'the key itself is not printed');
    // The printed CLI command, with owner.env sourced: it asks the service and says so.
    const shell = { ...process.env, DATABASE_URL: '', REDIS_URL: '', DATA_DIR: join(dir, 'no-such-data') };
    const list = await runCli(['webhooks', 'list'], { ...shell, ...env });
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /no subscriptions/);
    assert.match(list.stderr, new RegExp(`acting through the service at ${baseUrl}`));
    // Without it, the CLI names the data directory it opens instead of opening one silently.
    const local = await runCli(['webhooks', 'list'], shell);
    assert.match(
      local.stderr,
      new RegExp(`acting on the embedded database in ${join(dir, 'no-such-data')} \\(DATA_DIR\\)`),
    );
  });
});

describe('the demo wallet route (DEMO_MODE only)', () => {
  // The demo's own ledger: the demo wallet is handed out only while the RPC serves a local genesis.
  let local: FakeValidator;
  before(async () => {
    local = await startFakeValidator({ genesisHash: LOCAL_GENESIS_HASH });
  });
  after(() => local.close());
  const demoEnv = (keypairFile: string) => ({
    DEMO_MODE: 'true',
    DEMO_OWNER_KEYPAIR: keypairFile,
    SOLANA_CLUSTER: 'localnet',
    SOLANA_RPC_URL: local.rpcUrl,
    SOLANA_WS_URL: local.wsUrl,
  });

  test("in demo mode it serves the owner's key, uncached, to the page, and no log line carries it", async () => {
    const owner = createOwner(baseUrl, 'http://127.0.0.1:1');
    const keypairFile = saveOwnerKeypair(owner, dir);
    const logs = createLogCapture();
    const demo = await world.start({ env: demoEnv(keypairFile), logs });
    // DNS rebinding: a page on another site reaches 127.0.0.1 under its own name, which Host carries.
    for (const host of ['evil.example', 'evil.example:3000', 'localhost.evil.example', '10.0.0.5:3000']) {
      const refused = await demo.app.inject({ url: '/api/demo/wallet', headers: { host } });
      assert.equal(refused.statusCode, 403, host);
      assert.equal(refused.json().code, 'FORBIDDEN');
      assert.doesNotMatch(refused.body, /secretKey/);
    }
    for (const host of ['127.0.0.1:3000', '[::1]:3000', 'LOCALHOST']) {
      const served = await demo.app.inject({ url: '/api/demo/wallet', headers: { host } });
      assert.equal(served.statusCode, 200, host);
    }
    const res = await demo.app.inject('/api/demo/wallet');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.deepEqual(res.json(), {
      address: owner.address,
      secretKey: [...owner.wallet.secretKey],
      rpcUrl: local.rpcUrl,
      cluster: 'localnet',
    });
    // The approval and vault pages know it is a demo and may send to the demo's RPC; the others may not.
    for (const path of [`/overrides/${owner.address}/1`, `/vaults/${owner.address}`]) {
      const page = await demo.app.inject(path);
      assert.match(page.body, /<meta name="vaultkeeper-demo" content="true">/, path);
      assert.match(
        page.headers['content-security-policy'] as string,
        new RegExp(`connect-src 'self' ${local.rpcUrl.replaceAll('.', '\\.')};`),
        path,
      );
    }
    const approvalsPage = await demo.app.inject(`/owners/${owner.address}/approvals`);
    assert.match(approvalsPage.headers['content-security-policy'] as string, /connect-src 'self';/);

    const seed = Buffer.from(owner.wallet.secretKey.subarray(0, 32));
    const forms = [
      JSON.stringify([...owner.wallet.secretKey]),
      [...owner.wallet.secretKey].join(','),
      seed.toString('base64'),
      seed.toString('hex'),
      getBase58Decoder().decode(owner.wallet.secretKey),
    ];
    assert.ok(logs.lines.length > 0, 'the capture saw the log');
    for (const form of forms) assert.ok(!logs.lines.some((l) => l.includes(form)), 'key in a log line');
  });

  test('outside demo mode the route does not exist and the approval page has no demo wallet', async () => {
    const res = await app.inject('/api/demo/wallet');
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().code, 'NOT_FOUND');
    for (const path of ['/overrides/x/1', '/vaults/x']) {
      const page = await app.inject(path);
      assert.match(page.body, /<meta name="vaultkeeper-demo" content="false">/, path);
      assert.match(page.headers['content-security-policy'] as string, /connect-src 'self';/, path);
    }
    const document = (await app.inject('/api/openapi.json')).json() as { paths: Record<string, unknown> };
    assert.ok(!Object.keys(document.paths).some((path) => path.startsWith('/api/demo')));
  });

  test('the service in demo mode does not start against a mainnet genesis', async () => {
    const mainnet = await startFakeValidator({ genesisHash: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d' });
    const owner = createOwner(baseUrl, mainnet.rpcUrl);
    try {
      const service = await startService(
        {
          ...demoEnv(saveOwnerKeypair(owner, dir)),
          SOLANA_RPC_URL: mainnet.rpcUrl,
          DATABASE_URL: 'memory://',
          REDIS_URL: '',
        },
        { waitForListen: false },
      );
      const deadline = setTimeout(() => void service.stop('SIGKILL'), startupDeadlineMs(90_000));
      const { code } = await service.exited;
      clearTimeout(deadline);
      assert.equal(code, 1);
      assert.match(
        service.output.join('\n'),
        /DEMO_MODE refused: the RPC at 127\.0\.0\.1:\d+ serves mainnet-beta/,
      );
      assert.doesNotMatch(service.output.join('\n'), /Server listening/);
    } finally {
      await mainnet.close();
    }
  });

  test('DEMO_MODE is refused on mainnet-beta, and a bad key file stops the start naming the file only', async () => {
    await assert.rejects(
      world.start({ env: { ...demoEnv('x'), SOLANA_CLUSTER: 'mainnet-beta' } }),
      (error: unknown) => error instanceof ConfigError && /mainnet-beta/.test(error.message),
    );
    const bad = join(dir, 'not-a-key.json');
    await writeFile(bad, '"secret-looking text"\n');
    await assert.rejects(world.start({ env: demoEnv(bad) }), (error: Error) => {
      assert.match(error.message, /DEMO_OWNER_KEYPAIR .*not-a-key\.json is not a solana-keygen key file/);
      assert.ok(!error.message.includes('secret-looking'), 'the content is not echoed');
      return true;
    });
  });
});
