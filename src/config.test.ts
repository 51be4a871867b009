import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, configWarnings, DEFAULT_PROGRAM_ID, loadConfig } from './config.js';
import { deriveWsUrl } from './lib/config-values.js';

describe('loadConfig', () => {
  test('applies every documented default when the environment is empty', () => {
    const config = loadConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.host, '0.0.0.0');
    assert.deepEqual(config.database, { kind: 'pglite', dataDir: './data' });
    const postgres = loadConfig({ DATABASE_URL: 'postgres://db/vk' }).database;
    assert.deepEqual(postgres, { kind: 'postgres', url: 'postgres://db/vk', poolSize: 10 });
    assert.equal(config.redisUrl, null);
    assert.equal(config.cluster, 'devnet');
    assert.equal(config.rpcUrl, 'https://api.devnet.solana.com');
    assert.equal(config.wsUrl, 'wss://api.devnet.solana.com');
    assert.equal(config.programId, DEFAULT_PROGRAM_ID);
    assert.equal(config.publicBaseUrl, 'http://localhost:3000');
    assert.deepEqual(config.roles, ['api', 'ingestor', 'worker']);
    assert.equal(config.trustProxy, false);
    assert.equal(config.authMaxAgeSeconds, 300);
    assert.equal(config.authRequireRequestBinding, true);
    assert.equal(config.webhookAllowPrivateUrls, false);
    assert.deepEqual(config.webhookRetrySchedule, [5, 300, 1800, 7200, 18000, 36000, 36000]);
    assert.equal(config.webhookTimeoutMs, 10_000);
    assert.equal(config.smtpUrl, null);
    assert.equal(config.logLevel, 'info');
    assert.deepEqual(config.backfill, { mode: 'all' });
    assert.deepEqual(config.priorityFee, { mode: { kind: 'auto' }, percentile: 75, maxLamports: 1_000_000n });
    assert.equal(config.demo, null, 'the demo wallet is off unless asked for');
    assert.equal(config.sseMaxStreams, 1_000);
    assert.equal(config.approvalMaxConfirms, 32);
    assert.equal(config.approvalMaxSimulations, 16);
    assert.ok(Object.isFrozen(config));
  });

  test('DEMO_MODE needs the demo owner key file, and is refused on mainnet-beta', () => {
    const key = { DEMO_OWNER_KEYPAIR: 'data/demo/owner-keypair.json' };
    assert.deepEqual(loadConfig({ DEMO_MODE: 'true', SOLANA_CLUSTER: 'localnet', ...key }).demo, {
      ownerKeypairFile: 'data/demo/owner-keypair.json',
    });
    assert.equal(loadConfig({ DEMO_MODE: 'false' }).demo, null);
    // The demo listens on this machine only: 127.0.0.1 unless HOST names another loopback address.
    assert.equal(loadConfig({ DEMO_MODE: 'true', SOLANA_CLUSTER: 'localnet', ...key }).host, '127.0.0.1');
    assert.equal(loadConfig({ DEMO_MODE: 'true', HOST: '::1', ...key }).host, '::1');
    assert.equal(loadConfig({}).host, '0.0.0.0');
    for (const host of ['0.0.0.0', '::', '192.168.1.4']) {
      assert.throws(
        () => loadConfig({ DEMO_MODE: 'true', HOST: host, ...key }),
        /DEMO_MODE listens on this machine only: HOST must be 127\.0\.0\.1, ::1 or localhost/,
      );
    }
    for (const [env, problem] of [
      [
        { DEMO_MODE: 'true', SOLANA_CLUSTER: 'mainnet-beta', ...key },
        /^DEMO_MODE cannot be on with SOLANA_CLUSTER=mainnet-beta/,
      ],
      [{ DEMO_MODE: 'true' }, /^DEMO_MODE=true needs DEMO_OWNER_KEYPAIR/],
      [key, /^DEMO_OWNER_KEYPAIR needs DEMO_MODE=true/],
      [{ DEMO_MODE: 'maybe' }, /^DEMO_MODE must be true or false/],
    ] as const) {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => error instanceof ConfigError && problem.test(error.problems.join('\n')),
        JSON.stringify(env),
      );
    }
  });

  test('PRIORITY_FEE is auto, off or a fixed micro-lamport price; percentile and cap are bounded', () => {
    assert.deepEqual(loadConfig({ PRIORITY_FEE: 'off' }).priorityFee.mode, { kind: 'off' });
    assert.deepEqual(loadConfig({ PRIORITY_FEE: 'AUTO' }).priorityFee.mode, { kind: 'auto' });
    assert.deepEqual(loadConfig({ PRIORITY_FEE: '2500' }).priorityFee.mode, {
      kind: 'fixed',
      microLamports: 2500n,
    });
    const set = loadConfig({ PRIORITY_FEE_PERCENTILE: '50', PRIORITY_FEE_MAX_LAMPORTS: '0' }).priorityFee;
    assert.equal(set.percentile, 50);
    assert.equal(set.maxLamports, 0n);
    for (const env of [
      { PRIORITY_FEE: 'fast' },
      { PRIORITY_FEE: '-1' },
      { PRIORITY_FEE_PERCENTILE: '0' },
      { PRIORITY_FEE_PERCENTILE: '101' },
    ]) {
      assert.throws(() => loadConfig(env), ConfigError, JSON.stringify(env));
    }
  });

  test('reads each variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://user:pw@db:5432/vk',
      DATABASE_POOL_SIZE: '6',
      REDIS_URL: 'redis://cache:6379',
      SOLANA_CLUSTER: 'mainnet-beta',
      SOLANA_RPC_URL: 'https://rpc.example.com',
      VAULT_PROGRAM_ID: '11111111111111111111111111111111',
      PUBLIC_BASE_URL: 'https://vk.example.com/',
      ROLES: 'api,worker',
      TRUST_PROXY: 'true',
      AUTH_MAX_AGE_SECONDS: '120',
      WEBHOOK_ALLOW_PRIVATE_URLS: '1',
      WEBHOOK_RETRY_SCHEDULE: '1,2.5,10',
      WEBHOOK_TIMEOUT_MS: '2000',
      SMTP_URL: 'smtp://mail:25',
      EMAIL_FROM: 'alerts@example.com',
      LOG_LEVEL: 'debug',
      BACKFILL: '500',
      APPROVAL_MAX_CONFIRMS: '8',
      APPROVAL_MAX_SIMULATIONS: '4',
    });
    assert.equal(config.port, 8080);
    assert.equal(config.approvalMaxConfirms, 8);
    assert.equal(config.approvalMaxSimulations, 4);
    assert.deepEqual(config.database, {
      kind: 'postgres',
      url: 'postgres://user:pw@db:5432/vk',
      poolSize: 6,
    });
    assert.equal(config.redisUrl, 'redis://cache:6379');
    assert.equal(config.wsUrl, 'wss://rpc.example.com');
    assert.equal(config.publicBaseUrl, 'https://vk.example.com');
    assert.deepEqual(config.roles, ['api', 'worker']);
    assert.equal(config.trustProxy, true);
    assert.deepEqual(config.webhookRetrySchedule, [1, 2.5, 10]);
    assert.deepEqual(config.backfill, { mode: 'count', count: 500 });
    assert.equal(config.smtpUrl, 'smtp://mail:25');
  });

  test('WEBHOOK_SECRETS_KEY takes the base64 of 32 bytes, with previous keys for rotation', () => {
    const key = Buffer.alloc(32, 7);
    const old = Buffer.alloc(32, 9);
    assert.equal(loadConfig({}).webhookSecretsKeys, null);
    assert.deepEqual(
      loadConfig({
        WEBHOOK_SECRETS_KEY: key.toString('base64'),
        WEBHOOK_SECRETS_KEY_PREVIOUS: old.toString('base64url'),
      }).webhookSecretsKeys,
      { current: key, previous: [old] },
    );
    for (const env of [
      { WEBHOOK_SECRETS_KEY: Buffer.alloc(16).toString('base64') },
      { WEBHOOK_SECRETS_KEY: 'not base64 at all!' },
      { WEBHOOK_SECRETS_KEY: key.toString('base64'), WEBHOOK_SECRETS_KEY_PREVIOUS: 'short' },
      { WEBHOOK_SECRETS_KEY_PREVIOUS: old.toString('base64') },
    ]) {
      assert.throws(() => loadConfig(env), /WEBHOOK_SECRETS_KEY/, JSON.stringify(env));
    }
  });

  test('memory:// selects in-memory PGlite and DATA_DIR moves the embedded files', () => {
    assert.deepEqual(loadConfig({ DATABASE_URL: 'memory://' }).database, { kind: 'memory' });
    assert.deepEqual(loadConfig({ DATA_DIR: '/var/lib/vk' }).database, {
      kind: 'pglite',
      dataDir: '/var/lib/vk',
    });
  });

  test('LIVE_ACCOUNTS is on by default with bounded memory; its variables are read and bad ones named', () => {
    assert.deepEqual(loadConfig({}).liveAccounts, { enabled: true, maxVaults: 500, idleSeconds: 600 });
    const set = { LIVE_ACCOUNTS: 'false', LIVE_ACCOUNTS_MAX_VAULTS: '20', LIVE_ACCOUNTS_IDLE_SECONDS: '30' };
    assert.deepEqual(loadConfig(set).liveAccounts, { enabled: false, maxVaults: 20, idleSeconds: 30 });
    const bad = {
      LIVE_ACCOUNTS: 'sometimes',
      LIVE_ACCOUNTS_MAX_VAULTS: '0',
      LIVE_ACCOUNTS_IDLE_SECONDS: 'forever',
    };
    assert.throws(
      () => loadConfig(bad),
      (error: unknown) =>
        error instanceof ConfigError &&
        Object.keys(bad).every((name) => error.problems.some((p) => p.startsWith(name))),
    );
  });

  test('lists every bad variable in one error', () => {
    const bad = {
      PORT: 'eighty',
      DATABASE_URL: 'mysql://x',
      DATABASE_POOL_SIZE: '2',
      REDIS_URL: 'http://nope',
      SOLANA_CLUSTER: 'moonnet',
      VAULT_PROGRAM_ID: 'not-an-address',
      ROLES: 'api,cook',
      TRUST_PROXY: 'maybe',
      WEBHOOK_RETRY_SCHEDULE: '5,soon',
      WEBHOOK_TIMEOUT_MS: '-1',
      LOG_LEVEL: 'loud',
      BACKFILL: 'some',
      SMTP_URL: 'ftp://mail',
      PRIORITY_FEE: 'fast',
      PRIORITY_FEE_PERCENTILE: '0',
      PRIORITY_FEE_MAX_LAMPORTS: 'lots',
      APPROVAL_MAX_CONFIRMS: '0',
      APPROVAL_MAX_SIMULATIONS: 'many',
      METRICS_TOKEN: 'short',
    };
    assert.throws(
      () => loadConfig(bad),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        for (const name of Object.keys(bad)) {
          assert.ok(
            error.problems.some((p) => p.startsWith(name)),
            `${name} missing from ${error.message}`,
          );
        }
        assert.equal(error.problems.length, Object.keys(bad).length);
        return true;
      },
    );
  });

  test('warns when a proxy hop count meets a public bind; addresses or a private bind are quiet', () => {
    const warnings = (env: Record<string, string>) =>
      configWarnings(loadConfig({ DATABASE_URL: 'memory://', ...env }));
    for (const host of ['0.0.0.0', '::']) {
      for (const trust of ['1', 'true']) {
        const [warning, ...rest] = warnings({ HOST: host, TRUST_PROXY: trust });
        assert.equal(rest.length, 0);
        assert.match(
          warning ?? '',
          new RegExp(
            `TRUST_PROXY=${trust} believes X-Forwarded-For from any peer, and HOST=${host.replace('.', '\\.')}`,
          ),
        );
        assert.match(warning ?? '', /Set TRUST_PROXY to the proxies' addresses or CIDRs/);
      }
    }
    assert.deepEqual(warnings({ HOST: '0.0.0.0', TRUST_PROXY: '10.0.0.0/8' }), []);
    assert.deepEqual(warnings({ HOST: '127.0.0.1', TRUST_PROXY: '1' }), []);
    assert.deepEqual(warnings({ HOST: '0.0.0.0' }), []);
  });

  test('warns when AUTH_REQUIRE_REQUEST_BINDING=false accepts unbound signatures', () => {
    const warnings = (env: Record<string, string>) =>
      configWarnings(loadConfig({ DATABASE_URL: 'memory://', HOST: '127.0.0.1', ...env }));
    const [warning, ...rest] = warnings({
      AUTH_REQUIRE_REQUEST_BINDING: 'false',
      AUTH_MAX_AGE_SECONDS: '120',
    });
    assert.equal(rest.length, 0);
    assert.match(
      warning ?? '',
      /^AUTH_REQUIRE_REQUEST_BINDING=false accepts wallet signatures that do not name/,
    );
    assert.match(warning ?? '', /any one request of that wallet for 120 s/);
    assert.deepEqual(warnings({}), []);
    assert.deepEqual(warnings({ AUTH_REQUIRE_REQUEST_BINDING: 'true' }), []);
  });

  test('METRICS_TOKEN is kept when long enough, refused when short or with spaces', () => {
    const token = 'a'.repeat(24);
    assert.equal(loadConfig({ DATABASE_URL: 'memory://', METRICS_TOKEN: token }).metricsToken, token);
    assert.equal(loadConfig({ DATABASE_URL: 'memory://' }).metricsToken, null);
    assert.throws(() => loadConfig({ METRICS_TOKEN: `${token} b` }), /METRICS_TOKEN must be 24 to 512/);
  });

  test('derives the WebSocket URL from the RPC URL, port + 1 when a port is given', () => {
    assert.equal(deriveWsUrl('http://127.0.0.1:8899'), 'ws://127.0.0.1:8900');
    assert.equal(deriveWsUrl('https://api.devnet.solana.com'), 'wss://api.devnet.solana.com');
  });
});

describe('several RPC endpoints', () => {
  test('SOLANA_RPC_URL and SOLANA_WS_URL are lists paired by position; a missing WS URL is derived', () => {
    const config = loadConfig({
      DATABASE_URL: 'memory://',
      SOLANA_RPC_URL: 'https://a.example.com/k1, http://127.0.0.1:8899',
      SOLANA_WS_URL: 'wss://a-ws.example.com/k1',
    });
    assert.deepEqual(config.rpcEndpoints, [
      { rpcUrl: 'https://a.example.com/k1', wsUrl: 'wss://a-ws.example.com/k1' },
      { rpcUrl: 'http://127.0.0.1:8899', wsUrl: 'ws://127.0.0.1:8900' },
    ]);
    assert.equal(config.rpcUrl, 'https://a.example.com/k1');
  });

  test('a bad entry is named without echoing any URL (they carry API keys)', () => {
    assert.throws(
      () =>
        loadConfig({
          DATABASE_URL: 'memory://',
          SOLANA_RPC_URL: 'https://a.example.com/SECRETKEY,ftp://b.example.com/OTHERKEY',
          SOLANA_WS_URL: 'wss://a.example.com/1,wss://b.example.com/2,wss://c.example.com/3',
        }),
      (error: Error) =>
        /SOLANA_RPC_URL/.test(error.message) &&
        !/SECRETKEY|OTHERKEY/.test(error.message) &&
        /SOLANA_WS_URL lists more URLs/.test(error.message),
    );
  });
});
