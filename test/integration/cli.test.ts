// The `vaultkeeper` command as a process, on the backend the suite runs on (PGlite in a data directory,
// or PostgreSQL when DATABASE_URL is set): exit codes, lines and --json output of every command.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { eq, inArray } from 'drizzle-orm';
import { startRpcProxy } from '../../dev/support/rpc-proxy.js';
import { type FakeValidator, startFakeValidator } from '../../dev/validator/index.js';
import { knownMigrations } from '../../src/cli/migrations.js';
import { createDatabase, type Storage } from '../../src/storage/database.js';
import { dailyMetrics, transactions, webhookDeliveries, webhooks } from '../../src/storage/schema/index.js';
import { runForTest, spawnForTest } from '../support/child-process.js';
import { createTestStorage, type TestStorage } from '../support/database.js';
import { randomAddress } from '../support/factories.js';
import { createSmtpSink, type SmtpSink } from '../support/smtp-sink.js';

const CLI = ['--import', 'tsx', 'src/cli/main.ts'];
const POSTGRES = /^postgres(ql)?:/.test(process.env.DATABASE_URL ?? '');

/** One database the CLI and the test take turns on (PGlite allows one process at a time). */
interface Backend {
  env: Record<string, string>;
  /** Runs `work` on the database while no CLI process holds it. */
  use<T>(work: (storage: Storage) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

async function createBackend(): Promise<Backend> {
  if (POSTGRES) {
    const test: TestStorage = await createTestStorage();
    const url = test.config.kind === 'postgres' ? test.config.url : '';
    return { env: { DATABASE_URL: url }, use: (work) => work(test.storage), close: () => test.close() };
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'vk-cli-'));
  return {
    env: { DATA_DIR: dataDir },
    async use(work) {
      const storage = await createDatabase({ kind: 'pglite', dataDir });
      try {
        return await work(storage);
      } finally {
        await storage.close();
      }
    },
    close: () => rm(dataDir, { recursive: true, force: true }),
  };
}

let backend: Backend;
let fake: FakeValidator;
beforeEach(async () => {
  backend = await createBackend();
  fake = await startFakeValidator();
});
afterEach(async () => {
  await fake.close();
  await backend.close();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI as an operator runs it; the environment holds only what the test gives (plus PATH and HOME). */
async function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const base: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_OPTIONS: process.env.NODE_OPTIONS ?? '',
    SOLANA_CLUSTER: 'devnet',
    SOLANA_RPC_URL: fake.rpcUrl,
    SOLANA_WS_URL: fake.wsUrl,
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
  };
  const run = await runForTest(process.execPath, [...CLI, ...args], {
    env: { ...base, ...backend.env, ...env },
  });
  return { code: run.code ?? 1, stdout: run.stdout, stderr: run.stderr };
}

const json = (run: Run) => {
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
};

describe('vaultkeeper command line', () => {
  test('--version and -v print the package version', async () => {
    const { version } = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const run = await cli([flag]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, `vaultkeeper ${version}\n`);
    }
  });

  test('-h and --help everywhere: globally, per group and per command, and help <command>', async () => {
    // Every spelling is checked in src/cli/commands.test.ts; here, one of each as a process.
    for (const args of [['-h']]) {
      const run = await cli(args);
      assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stdout, /^Usage: vaultkeeper <command>/);
      assert.match(run.stdout, /listen --forward-to <url>/);
    }
    for (const args of [['webhooks', '--help']]) {
      const run = await cli(args);
      assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stdout, /^Usage: vaultkeeper webhooks <list\|create\|test\|delete\|recover>/);
    }
    for (const args of [['help', 'webhooks', 'list']]) {
      const run = await cli(args);
      assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stdout, /^Usage: vaultkeeper webhooks list \[--owner <address>\]/);
      assert.match(run.stdout, /--owner <address> +only this wallet's subscriptions/);
    }
    const listen = await cli(['listen', '--help']);
    assert.match(listen.stdout, /--forward-to <url>/);
    assert.match(listen.stdout, /Last-Event-ID/);
  });

  test('a wrong command line exits 2 with one line saying why, a hint, and a suggestion for a typo', async () => {
    // The whole grammar is checked in src/cli/commands.test.ts; here, what a process prints and exits.
    const cases: [string[], RegExp][] = [
      [[], /^vaultkeeper: no command given\n {2}→ see `vaultkeeper --help`\n$/],
      [['lisen'], /unknown command "lisen" \(did you mean "listen"\?\)/],
      [
        ['webhooks', 'list', '--ownr', randomAddress()],
        /unknown option "--ownr" for "webhooks list" \(did you mean "--owner"\?\)/,
      ],
      [['webhooks', 'list', '--owner', 'xyz'], /--owner must be a base58 address \(32 bytes\), got "xyz"/],
      [['deliveries', 'list', '--webhook', 'nope'], /--webhook must be a subscription id \(uuid\)/],
    ];
    for (const [args, message] of cases) {
      const run = await cli(args, { VAULTKEEPER_API_KEY: `vk_${'A'.repeat(43)}` });
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, message, args.join(' '));
      const lines = run.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 2, `one line and a hint: ${run.stderr}`);
      assert.match(lines[1]!, /^ {2}→ /);
      assert.equal(run.stdout, '');
    }
    const misconfigured = await cli(['migrate'], { SOLANA_CLUSTER: 'moonnet' });
    assert.equal(misconfigured.code, 3, misconfigured.stderr);
    assert.match(misconfigured.stderr, /SOLANA_CLUSTER/);
  });

  test('migrate applies every migration once and says so', async () => {
    const known = knownMigrations();
    const first = json(await cli(['migrate', '--json']));
    assert.equal(first.total, known);
    assert.equal(first.known, known);
    // PostgreSQL's test database was migrated when it was made; a PGlite directory starts empty.
    assert.equal(first.applied, POSTGRES ? 0 : known);
    const again = await cli(['migrate']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, new RegExp(`: 0 migrations applied now, ${known} of ${known} in all`));
  });

  test('migrate on memory:// prints what docs/CLI.md shows', async () => {
    const readme = await readFile('docs/CLI.md', 'utf8');
    const shown = /\| `migrate` +\|.*on `memory:\/\/`: `([^`]+)`/.exec(readme)?.[1];
    assert.ok(shown, 'docs/CLI.md shows the output of migrate on memory://');
    const run = await cli(['migrate'], { DATABASE_URL: 'memory://' });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `${shown}\n`);
  });

  test('the exit codes docs/CLI.md documents are the ones the command uses', async () => {
    const readme = await readFile('docs/CLI.md', 'utf8');
    assert.match(readme, /`doctor` [^\n]*exits `3` when the configuration is invalid/);
    assert.match(
      readme,
      /Exit codes: `0` done, `1` a check or the work failed[\s\S]{0,120}?`2` a wrong command line, `3` an invalid configuration/,
    );
    const doctor = await cli(['doctor'], { PORT: 'abc' });
    assert.equal(doctor.code, 3, doctor.stdout + doctor.stderr);
    assert.match(doctor.stdout, /^FAIL config +PORT/m);
  });
});

describe('vaultkeeper doctor', () => {
  let smtp: SmtpSink;
  before(async () => {
    smtp = await createSmtpSink();
  });
  after(async () => {
    await smtp.close();
  });

  test('one passing line per check, and --json', async () => {
    await cli(['migrate']);
    const run = await cli(['doctor'], { SMTP_URL: smtp.url });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.deepEqual(
      lines.map((l) => l.split(/\s+/).slice(0, 2).join(' ')),
      ['ok config', 'ok database', 'ok redis', 'ok rpc', 'ok program', 'ok smtp'],
    );
    assert.match(run.stdout, /program +\S+ is deployed on devnet/);
    const report = json(await cli(['doctor', '--json'], { SMTP_URL: smtp.url }));
    assert.equal(report.ok, true);
    assert.equal(report.checks.length, 6);
  });

  test('failures name what to do, exit 1, and never print an RPC URL path or query', async () => {
    const secretRpc = 'http://127.0.0.1:9/rpc-key-1234?api-key=sekrit';
    const run = await cli(['doctor'], { SOLANA_RPC_URL: secretRpc, SOLANA_WS_URL: 'ws://127.0.0.1:9/' });
    assert.equal(run.code, 1, run.stdout);
    // PostgreSQL's test database is migrated when made; a fresh PGlite directory is not.
    const database = POSTGRES
      ? /^ok {3}database postgres 127\.0\.0\.1:\d+, /m
      : /^FAIL database .*→ .*vaultkeeper migrate/m;
    assert.match(run.stdout, database);
    assert.match(run.stdout, /^FAIL rpc .*→ check entry 1 of SOLANA_RPC_URL \(127\.0\.0\.1:9\)/m);
    assert.match(run.stdout, /^FAIL program /m);
    assert.doesNotMatch(run.stdout + run.stderr, /rpc-key-1234|sekrit/);
    // Every endpoint is checked; the program through the first that answers.
    const two = await cli(['doctor', '--json'], {
      SOLANA_RPC_URL: `${secretRpc},${fake.rpcUrl}`,
      SOLANA_WS_URL: `ws://127.0.0.1:9/,${fake.wsUrl}`,
    });
    const checks = JSON.parse(two.stdout).checks as { check: string; ok: boolean }[];
    assert.deepEqual(
      checks.filter((c) => c.check.startsWith('rpc')).map((c) => [c.check, c.ok]),
      [
        ['rpc 1', false],
        ['rpc 2', true],
      ],
    );
    assert.doesNotMatch(two.stdout + two.stderr, /rpc-key-1234|sekrit/);
    const wrongProgram = await cli(['doctor', '--json'], { VAULT_PROGRAM_ID: randomAddress() });
    assert.equal(wrongProgram.code, 1);
    const program = JSON.parse(wrongProgram.stdout).checks.find(
      (c: { check: string }) => c.check === 'program',
    );
    assert.match(program.detail, /has no account on devnet/);
    assert.match(program.fix, /VAULT_PROGRAM_ID|PROGRAM_ID/);
  });
});

describe('vaultkeeper backfill and metrics rebuild', () => {
  test('backfill from a date or a signature applies the history after it; metrics rebuild recomputes those days', async () => {
    const owner = randomAddress() as Address;
    const created = await fake.createVault({
      authority: owner,
      dailyLimit: 10_000_000_000n,
      name: 'Backfilled',
    });
    await fake.deposit(created.vault, 50_000_000_000n);
    const executed = [];
    for (let i = 1; i <= 3; i += 1)
      executed.push(await fake.execute(created.vault, { amount: i * 1_000_000_000 }));

    const fromSignature = json(await cli(['backfill', '--since', executed[0]!.signature, '--json']));
    assert.equal(fromSignature.applied, 2, JSON.stringify(fromSignature));
    const stored = await backend.use((s) => s.db.select().from(transactions));
    assert.deepEqual(
      new Set(stored.map((t) => t.signature)),
      new Set(executed.slice(1).map((e) => e.signature)),
    );

    const all = await cli(['backfill', '--since', '2000-01-01']);
    assert.equal(all.code, 0, all.stderr);
    assert.match(all.stdout, /^backfill: \d+ signatures listed, \d+ applied \(after the first\)$/m);
    assert.equal((await backend.use((s) => s.db.select().from(transactions))).length, 3);

    const day = new Date(fake.ledger().at(-1)!.blockTime * 1000).toISOString().slice(0, 10);
    await backend.use((s) => s.db.delete(dailyMetrics));
    const rebuilt = json(await cli(['metrics', 'rebuild', '--from', day, '--to', day, '--json']));
    assert.ok(rebuilt.rows > 0, JSON.stringify(rebuilt));
    const rows = await backend.use((s) => s.db.select().from(dailyMetrics));
    assert.ok(rows.length > 0, 'daily metrics written again');

    assert.equal((await cli(['backfill'])).code, 2);
    assert.equal((await cli(['backfill', '--since', 'yesterday'])).code, 2);
    assert.equal((await cli(['metrics', 'rebuild', '--from', '2026-13-40'])).code, 2);
  });

  test('backfill --since <date> retries a failed signature listing as the ingestor does', async () => {
    const created = await fake.createVault({
      authority: randomAddress() as Address,
      dailyLimit: 10_000_000_000n,
      name: 'Retried',
    });
    await fake.deposit(created.vault, 5_000_000_000n);
    await fake.execute(created.vault, { amount: 1_000_000_000 });
    // In front of the validator: the first getSignaturesForAddress answers a JSON-RPC error.
    const proxy = await startRpcProxy(fake);
    proxy.failNext('getSignaturesForAddress');
    try {
      const run = await cli(['backfill', '--since', '2000-01-01', '--json'], {
        SOLANA_RPC_URL: proxy.httpBase,
      });
      assert.equal(run.code, 0, run.stderr);
      const listings = proxy.calls('getSignaturesForAddress');
      assert.ok(listings >= 2, `listed ${listings} times`);
      const stored = await backend.use((s) => s.db.select().from(transactions));
      assert.equal(stored.length, 1);
    } finally {
      await proxy.close();
    }
  });
});

describe('vaultkeeper webhooks and deliveries', () => {
  async function seedDeliveries() {
    const secret = `whsec_${Buffer.from(randomUUID()).toString('base64')}`;
    return backend.use(async (s) => {
      const [mine, other] = await s.db
        .insert(webhooks)
        .values([
          { owner: randomAddress(), url: 'https://hooks.example.com/a', events: ['vault.paused'], secret },
          { owner: randomAddress(), url: 'https://hooks.example.com/b', events: ['vault.resumed'], secret },
        ])
        .returning();
      const payload = (id: string) =>
        JSON.stringify({ id, event: 'vault.paused', timestamp: new Date().toISOString(), data: {} });
      const rows = ['failed', 'failed', 'succeeded'].map((status) => {
        const id = randomUUID();
        return {
          id,
          webhookId: mine!.id,
          event: 'vault.paused',
          payload: payload(id),
          status: status as 'failed' | 'succeeded',
          attemptCount: 3,
          lastStatusCode: status === 'failed' ? 500 : 200,
          completedAt: new Date(),
        };
      });
      await s.db.insert(webhookDeliveries).values(rows);
      return { mine: mine!, other: other!, secret, rows };
    });
  }

  test('webhooks list shows every subscription but never a secret', async () => {
    const { mine, other, secret } = await seedDeliveries();
    const run = await cli(['webhooks', 'list']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      new RegExp(`^${mine.id} ${mine.owner} https://hooks.example.com/a \\[vault.paused\\] active$`, 'm'),
    );
    assert.match(run.stdout, new RegExp(`^${other.id} `, 'm'));
    const listed = json(await cli(['webhooks', 'list', '--owner', other.owner, '--json']));
    assert.deepEqual(
      listed.webhooks.map((w: { id: string }) => w.id),
      [other.id],
    );
    assert.doesNotMatch(run.stdout + JSON.stringify(listed), new RegExp(secret.slice(6, 20)));
  });

  test('deliveries list and retry, all, --failed or --failing; unknown or missing ids are refused', async () => {
    const { mine, rows } = await seedDeliveries();
    const failedIds: string[] = rows.filter((r) => r.status === 'failed').map((r) => r.id);
    const listed = json(await cli(['deliveries', 'list', '--webhook', mine.id, '--json']));
    assert.equal(listed.deliveries.length, 3);
    const failed = await cli(['deliveries', 'list', '--webhook', mine.id, '--failed']);
    assert.equal(failed.code, 0, failed.stderr);
    assert.deepEqual(
      failed.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(' ')[0])
        .sort(),
      [...failedIds].sort(),
    );

    const retried = json(await cli(['deliveries', 'retry', '--webhook', mine.id, '--failed', '--json']));
    assert.deepEqual([...retried.retried].sort(), [...failedIds].sort());
    const after = await backend.use((s) =>
      s.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, mine.id)),
    );
    for (const row of after) {
      assert.equal(row.status, failedIds.includes(row.id) ? 'pending' : 'succeeded', row.id);
    }

    // --failing: the last attempt failed, still retrying (pending with an error) or exhausted.
    const retrying = randomUUID();
    await backend.use((s) =>
      s.db.insert(webhookDeliveries).values({
        id: retrying,
        webhookId: mine.id,
        event: 'vault.paused',
        payload: JSON.stringify({
          id: retrying,
          event: 'vault.paused',
          timestamp: new Date().toISOString(),
          data: {},
        }),
        attemptCount: 1,
        nextAttemptAt: new Date(Date.now() + 3_600_000),
        lastError: 'http_503',
        lastStatusCode: 503,
      }),
    );
    await backend.use((s) =>
      s.db
        .update(webhookDeliveries)
        .set({ status: 'failed' })
        .where(inArray(webhookDeliveries.id, failedIds)),
    );
    const failing = json(await cli(['deliveries', 'list', '--webhook', mine.id, '--failing', '--json']));
    assert.deepEqual(
      failing.deliveries.map((d: { id: string }) => d.id).sort(),
      [...failedIds, retrying].sort(),
    );
    const onlyFailed = json(await cli(['deliveries', 'list', '--webhook', mine.id, '--failed', '--json']));
    assert.deepEqual(onlyFailed.deliveries.map((d: { id: string }) => d.id).sort(), [...failedIds].sort());
    const both = await cli(['deliveries', 'list', '--webhook', mine.id, '--failed', '--failing']);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--failed and --failing exclude each other/);

    const unknown = await cli(['deliveries', 'retry', '--webhook', randomUUID()]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no subscription .*\n {2}→ list them with `vaultkeeper webhooks list`/);
    assert.equal((await cli(['deliveries', 'list'])).code, 2);
    assert.equal((await cli(['deliveries', 'list', '--webhook', 'not-a-uuid'])).code, 2);
  });
});

describe('vaultkeeper start and the package bin', () => {
  test('start runs the service until SIGTERM, then exits 0', async (t) => {
    await cli(['migrate']);
    const { DATABASE_URL: _unset, ...inherited } = process.env;
    const child = spawnForTest(process.execPath, [...CLI, 'start'], {
      env: {
        ...inherited,
        ...backend.env,
        ROLES: 'api',
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        SOLANA_RPC_URL: fake.rpcUrl,
        SOLANA_WS_URL: fake.wsUrl,
      },
      t,
    });
    const [, url] = await child.waitForOutput(
      /Server listening at (http:\/\/127\.0\.0\.1:\d+)/,
      'the service listens',
    );
    assert.equal((await fetch(`${url}/api/health`)).status < 600, true);
    assert.equal((await child.stop('SIGTERM')).code, 0, child.output);
  });

  test('bin/vaultkeeper.mjs runs the compiled command (building dist/ when stale)', async () => {
    const run = await runForTest(process.execPath, ['bin/vaultkeeper.mjs', '--help'], {
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Usage: vaultkeeper <command>/);
  });
});
