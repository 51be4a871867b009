// Start-up failures say what happened and what to do: a busy port before any role starts, a database
// that refuses (no retry), one that is unreachable (bounded retries), an RPC whose WebSocket is down.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { runIngestor } from '../../src/chain/ingestor.js';
import { createLogger } from '../../src/lib/logger.js';
import { StartError } from '../../src/lib/start-error.js';
import { openDatabaseAtStart } from '../../src/storage/database-start.js';
import { createLogCapture } from '../support/app.js';
import { startupDeadlineMs } from '../support/child-process.js';
import { startFakePostgres } from '../support/fake-postgres.js';
import { startService } from '../support/service-process.js';
import { useTestApps } from '../support/test-apps.js';
import { waitFor } from '../support/wait.js';

const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432';

async function postgresIsUp(): Promise<boolean> {
  const client = new pg.Client({
    connectionString: `${LOCAL_POSTGRES}/postgres`,
    connectionTimeoutMillis: 2_000,
  });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/** Runs the service until it exits on its own (a deadline turns a hang into a failure). */
async function startFails(env: Record<string, string>): Promise<{ code: number | null; text: string }> {
  const service = await startService({ REDIS_URL: '', ...env }, { waitForListen: false });
  const deadline = setTimeout(() => void service.stop('SIGKILL'), startupDeadlineMs(60_000));
  const { code } = await service.exited;
  clearTimeout(deadline);
  return { code, text: service.output.join('\n') };
}

const NO_STACK = /\n\s+at /;

/** A port nothing listens on (connections are refused at once). */
async function findClosedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('start-up failures', () => {
  let busy: Server;
  let busyPort: number;
  before(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    busyPort = (busy.address() as { port: number }).port;
  });
  after(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  test('a busy port stops the start before any role runs, naming the port, without a stack', async () => {
    const { code, text } = await startFails({
      PORT: String(busyPort),
      DATABASE_URL: 'memory://',
      ROLES: 'api,ingestor,worker',
    });
    assert.equal(code, 1);
    assert.match(
      text,
      new RegExp(`port ${busyPort} on 127\\.0\\.0\\.1 is already in use by another process`),
    );
    assert.match(text, /→ stop that process, or set PORT to a free port/);
    assert.doesNotMatch(text, NO_STACK);
    assert.doesNotMatch(text, /EADDRINUSE/);
    assert.doesNotMatch(text, /ingestor lock held/, 'no role started');
  });

  test('a database that does not exist stops the start at once, naming host and database', async (t) => {
    if (!(await postgresIsUp())) return t.skip('PostgreSQL is not at 127.0.0.1:5432');
    const { code, text } = await startFails({
      DATABASE_URL: `${LOCAL_POSTGRES}/vk_no_such_db`,
      ROLES: 'api',
    });
    assert.equal(code, 1);
    assert.match(
      text,
      /PostgreSQL at 127\.0\.0\.1:5432, database vk_no_such_db: database "vk_no_such_db" does not exist/,
    );
    assert.match(text, /→ create it \(`createdb -h 127\.0\.0\.1 vk_no_such_db`\)/);
    assert.doesNotMatch(text, /retrying/);
    assert.doesNotMatch(text, NO_STACK);
  });

  test('a role that does not exist stops it too, naming the role', async (t) => {
    if (!(await postgresIsUp())) return t.skip('PostgreSQL is not at 127.0.0.1:5432');
    const { code, text } = await startFails({
      DATABASE_URL: 'postgres://vk_no_such_role@127.0.0.1:5432/test',
      ROLES: 'api',
    });
    assert.equal(code, 1);
    assert.match(
      text,
      /PostgreSQL at 127\.0\.0\.1:5432, database test: role "vk_no_such_role" does not exist/,
    );
    assert.match(text, /→ create the role vk_no_such_role/);
    assert.doesNotMatch(text, /retrying/);
  });

  test('a wrong password stops it at once, never printing the password', async () => {
    const fake = await startFakePostgres();
    try {
      const { code, text } = await startFails({
        DATABASE_URL: `postgres://vk:hunter2-secret@127.0.0.1:${fake.port}/vaults`,
        ROLES: 'api',
      });
      assert.equal(code, 1);
      assert.match(
        text,
        new RegExp(
          `PostgreSQL at 127\\.0\\.0\\.1:${fake.port}, database vaults: password authentication failed`,
        ),
      );
      assert.match(text, /→ check the user and password in DATABASE_URL \(user vk\)/);
      assert.doesNotMatch(text, /hunter2-secret/);
      assert.doesNotMatch(text, /retrying/);
    } finally {
      await fake.close();
    }
  });

  test('an unreachable database host is retried a bounded number of times, each retry saying so', async () => {
    const logs = createLogCapture();
    const logger = createLogger({ level: 'info', destination: logs.stream });
    const closedPort = await findClosedPort();
    const error = await openDatabaseAtStart(
      { kind: 'postgres', url: `postgres://postgres@127.0.0.1:${closedPort}/test` },
      { logger, signal: new AbortController().signal, attempts: 3, baseDelayMs: 5 },
    ).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(error instanceof StartError);
    assert.match(
      error.message,
      new RegExp(
        `PostgreSQL at 127\\.0\\.0\\.1:${closedPort} \\(database test\\) did not answer after 3 attempts`,
      ),
    );
    assert.match(error.hint, /check that PostgreSQL runs/);
    const retries = logs.lines.filter((l) => l.includes('database unavailable at start'));
    assert.equal(retries.length, 2);
    assert.match(retries[0]!, /attempt 1 of 3/);
    assert.match(retries[1]!, /attempt 2 of 3/);
  });
});

describe('an RPC that cannot be reached', () => {
  const world = useTestApps();

  test('feed errors name the WebSocket URL, backfill warnings the RPC; health reads connecting, then disconnected', async () => {
    const port = await findClosedPort();
    const logs = createLogCapture();
    const deps = world.createDeps({
      logs,
      env: { SOLANA_RPC_URL: `http://127.0.0.1:${port}`, SOLANA_WS_URL: `ws://127.0.0.1:${port}/feed` },
    });
    const chain = deps.chainStatus;
    const controller = new AbortController();
    // Health reads `connecting` only for the grace period from the session's start: on a loaded machine
    // the first read came after 1.5 s and never saw it (two runs at a load of 20 on two cores), so the
    // grace grows with the load as start-up deadlines do.
    const feedGraceMs = startupDeadlineMs(1_500);
    const task = runIngestor(deps, controller.signal, { heartbeatMs: 50, feedGraceMs });
    try {
      const connecting = await waitFor(async () => {
        const c = await chain.get();
        return c.status === 'connecting' ? c : null;
      });
      assert.equal(connecting.lagSeconds, null, 'no lag before a first connection');
      const feed = await waitFor(() => logs.lines.find((l) => l.includes('log subscription to')));
      assert.match(feed, new RegExp(`log subscription to ws://127\\.0\\.0\\.1:${port} failed; reconnecting`));
      const backfill = await waitFor(() => logs.lines.find((l) => l.includes('backfill failed')));
      assert.match(backfill, new RegExp(`backfill failed \\(RPC http://127\\.0\\.0\\.1:${port}: `));
      assert.equal(JSON.parse(backfill).level, 'warn', 'a warning while it retries');
      const down = await waitFor(async () => {
        const c = await chain.get();
        return c.status === 'disconnected' ? c : null;
      });
      assert.equal(down.lagSeconds, null);
    } finally {
      controller.abort();
      await task;
    }
  });
});
