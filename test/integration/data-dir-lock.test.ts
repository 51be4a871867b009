// One process per embedded data directory: a second service or a CLI command stops at once, naming
// the directory and the holder; a lock left by a killed process is taken over.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { LOCK_FILE } from '../../src/storage/data-dir-lock.js';
import { createDatabase } from '../../src/storage/database.js';
import { type ServiceProcess, startService } from '../support/service-process.js';

const run = promisify(execFile);
const POSTGRES = /^postgres(ql)?:/.test(process.env.DATABASE_URL ?? '');

/** The CLI as a process: exit code and both streams. */
async function cli(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

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
    const stopped = setTimeout(() => void second.stop('SIGKILL'), 60_000);
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
      const storage = await createDatabase({ kind: 'pglite', dataDir: other });
      try {
        await assert.rejects(createDatabase({ kind: 'pglite', dataDir: other }), /in use by process/);
      } finally {
        await storage.close();
      }
      assert.equal(existsSync(join(other, LOCK_FILE)), false, 'released on close');
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
