// One process per embedded data directory: a second service or a CLI command stops at once, naming
// the directory and the holder; the kernel frees the lock of a killed process, even one its parent has
// not reaped yet (a zombie), and what the lock file says never lets a second holder in.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { acquireDataDirLock, LOCK_FILE } from '../../src/storage/data-dir-lock.js';
import { createDatabase } from '../../src/storage/database.js';
import { runForTest, startupDeadlineMs } from '../support/child-process.js';
import { killToZombie, spawnUnderNonReapingParent } from '../support/non-reaping-parent.js';
import { type ServiceProcess, startService } from '../support/service-process.js';
import { waitFor } from '../support/wait.js';

const POSTGRES = /^postgres(ql)?:/.test(process.env.DATABASE_URL ?? '');

/** The CLI as a process: exit code and both streams. */
async function cli(args: string[], env: Record<string, string>) {
  const run = await runForTest(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', ...env },
  });
  return { code: run.code, stdout: run.stdout, stderr: run.stderr };
}

/** Every file and directory under `dir`. */
const listTree = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? [path, ...listTree(path)] : [path];
  });

const holderPid = (dataDir: string) =>
  (JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as { pid: number }).pid;

describe('the embedded data directory', { skip: POSTGRES && 'the embedded default only' }, () => {
  let dataDir: string;
  let first: ServiceProcess;
  const env = () => ({ DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', ROLES: 'api' });

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'vk-lock-'));
    first = await startService(env());
  });
  after(async () => {
    await first.stop('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  test('a second service stops at once, naming the directory, the holder and what to do', async () => {
    const second = await startService(env(), { waitForListen: false });
    // Before the fix it started and listened: a deadline, so that fails instead of hanging.
    const stopped = setTimeout(() => void second.stop('SIGKILL'), startupDeadlineMs(60_000));
    const { code } = await second.exited;
    clearTimeout(stopped);
    assert.equal(code, 1);
    const text = second.output.join('\n');
    assert.match(text, new RegExp(`in ${dataDir} is in use by process ${first.child.pid}`));
    assert.match(text, /stop that service first, or act through its API/);
    assert.doesNotMatch(text, /\n\s+at /, 'no stack trace');
    // The first one is untouched.
    assert.equal((await fetch(`${first.baseUrl}/api/health`)).status, 200);
    assert.equal(holderPid(dataDir), first.child.pid);
  });

  test('a CLI command that needs the database stops too; doctor says the service holds it', async () => {
    const list = await cli(['webhooks', 'list'], env());
    assert.equal(list.code, 1);
    assert.match(list.stderr, new RegExp(`in ${dataDir} is in use by process ${first.child.pid}`));
    assert.match(list.stderr, /→ stop that service first, or act through its API \(an API key/);
    const migrate = await cli(['migrate'], env());
    assert.equal(migrate.code, 1);
    assert.match(migrate.stderr, new RegExp(`in use by process ${first.child.pid}`));
    const doctor = await cli(['doctor'], env());
    assert.match(
      doctor.stdout,
      new RegExp(`ok\\s+database pglite ${dataDir}: in use by process ${first.child.pid}`),
    );
  });

  test('in-process, a second open of the same directory is refused while the first is open', async () => {
    const other = await mkdtemp(join(tmpdir(), 'vk-lock-'));
    try {
      // Left readable by an older version or a copy: tightened at start.
      chmodSync(other, 0o755);
      writeFileSync(join(other, 'notes.txt'), 'x', { mode: 0o666 });
      chmodSync(join(other, 'notes.txt'), 0o666);
      const storage = await createDatabase({ kind: 'pglite', dataDir: other });
      try {
        await assert.rejects(createDatabase({ kind: 'pglite', dataDir: other }), /in use by process/);
      } finally {
        await storage.close();
      }
      assert.equal(existsSync(join(other, LOCK_FILE)), false, 'released on close');
      // Everything in it, PGlite's files and WAL included, is its owner's only.
      assert.equal(statSync(other).mode & 0o777, 0o700);
      const readable = listTree(other).filter((path) => (statSync(path).mode & 0o077) !== 0);
      assert.deepEqual(readable, []);
      assert.ok(
        listTree(other).some((path) => path.includes('pg_wal')),
        'PGlite wrote its files',
      );
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  test('the lock of a killed process is taken over, and released when the service stops', async () => {
    const killed = first.child.pid;
    await first.stop('SIGKILL');
    assert.equal(holderPid(dataDir), killed, 'SIGKILL leaves the lock file behind');
    const next = await startService(env());
    try {
      assert.equal(holderPid(dataDir), next.child.pid);
      assert.equal((await fetch(`${next.baseUrl}/api/health`)).status, 200);
    } finally {
      const { code } = await next.stop('SIGTERM');
      assert.equal(code, 0);
    }
    assert.equal(existsSync(join(dataDir, LOCK_FILE)), false);
  });
});

const HOLDER = fileURLToPath(new URL('../support/data-dir-lock-holder.ts', import.meta.url));
const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

/** The lock holder fixture under a parent that never reaps it; resolves with its pid once it holds the lock. */
async function holdUnderNonReapingParent(dir: string) {
  const holder = spawnUnderNonReapingParent(process.execPath, ['--import', 'tsx', HOLDER, dir]);
  const line = await waitFor(() => holder.output.find((l) => /^locked \d+$/.test(l)), {
    timeoutMs: 60_000,
    message: `lock holder started (${holder.output.join(' | ')})`,
  });
  return { ...holder, pid: Number(line.split(' ')[1]) };
}

describe('the data directory lock, decided by the kernel', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vk-lock-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('a holder SIGKILLed and left a zombie by its parent frees the lock at once, 20 times in a row', async () => {
    for (let round = 0; round < 20; round += 1) {
      const holder = await holdUnderNonReapingParent(dir);
      try {
        assert.throws(() => acquireDataDirLock(dir), new RegExp(`in use by process ${holder.pid}\\b`));
        // The zombie still answers kill(pid, 0): the pid-file check kept refusing here.
        await killToZombie(holder.pid);
        const lock = acquireDataDirLock(dir);
        const recorded = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as { pid: number };
        assert.equal(recorded.pid, process.pid, `round ${round}`);
        lock.release();
      } finally {
        await holder.stop();
      }
    }
  });

  test('a lock file naming this pid, or a free pid on another host, never lets a second holder in', async () => {
    const holder = await holdUnderNonReapingParent(dir);
    try {
      // A container restarted as pid 1 again, or a volume shared by two hosts: the file is only a label.
      const since = '2000-01-01T00:00:00.000Z';
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: process.pid, host: hostname(), since }));
      assert.throws(
        () => acquireDataDirLock(dir),
        new RegExp(`in use by process ${process.pid} \\(since ${since}\\)`),
      );
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: 4_194_999, host: 'elsewhere', since }));
      assert.throws(() => acquireDataDirLock(dir), /in use by process 4194999 on elsewhere \(since/);
      // A second process, too.
      const second = await runForTest(process.execPath, ['--import', 'tsx', HOLDER, dir]);
      assert.equal(second.code, 1);
      assert.match(second.stderr, /in use by process 4194999 on elsewhere/);
    } finally {
      await holder.stop();
    }
  });
});

describe('a service killed with SIGKILL', { skip: POSTGRES && 'the embedded default only' }, () => {
  test('starts again at once on its data directory while the killed one is an unreaped zombie', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'vk-lock-'));
    const env = {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      REDIS_URL: '',
      ROLES: 'api',
    };
    const killed = spawnUnderNonReapingParent(process.execPath, ['--import', 'tsx', MAIN], env);
    try {
      await waitFor(() => killed.output.some((l) => /Server listening at/.test(l)), {
        timeoutMs: 90_000,
        message: 'first service listening',
      });
      await killToZombie(holderPid(dataDir));
      const next = await startService({ DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', ROLES: 'api' });
      try {
        assert.equal((await fetch(`${next.baseUrl}/api/health`)).status, 200);
        assert.equal(holderPid(dataDir), next.child.pid);
      } finally {
        assert.equal((await next.stop('SIGTERM')).code, 0);
      }
    } finally {
      await killed.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
