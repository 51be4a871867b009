// scripts/test.mjs itself: a file that leaves a process running, or never ends, is named, killed and
// fails the run; a test whose child goes through the process helper leaves nothing behind.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runForTest } from '../support/child-process.js';
import { processState } from '../support/non-reaping-parent.js';
import { waitFor } from '../support/wait.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vk-runner-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The runner on one fixture; the pid of the child the fixture started. */
async function runFixture(name: string, timeoutS = 600) {
  const pidFile = join(dir, `${name}.pid`);
  const run = await runForTest(
    process.execPath,
    ['scripts/test.mjs', `test/tools/fixtures/${name}.fixture.ts`],
    {
      env: { ...process.env, VK_FIXTURE_PID_FILE: pidFile, VK_TEST_FILE_TIMEOUT_S: String(timeoutS) },
    },
  );
  const pid = Number(await readFile(pidFile, 'utf8'));
  assert.ok(pid > 0, run.stdout);
  return { ...run, pid };
}

/** Gone, or a zombie waiting for whoever adopted it: either way it runs no more. */
const dead = (pid: number) =>
  waitFor(() => processState(pid) === null || processState(pid) === 'Z', { message: `process ${pid} ended` });

describe('the test runner', { concurrency: true }, () => {
  test('names a process a file left running, kills it, and fails the run', async () => {
    const run = await runFixture('leaves-a-child');
    assert.equal(run.code, 1, run.stdout);
    assert.match(
      run.stdout,
      new RegExp(
        `left running after the file ended \\(killed\\): pid ${run.pid}: \\S+ -e .* vk-fixture-sleeper`,
      ),
    );
    assert.match(run.stdout, /tests: 0 passed, 1 failed, 0 skipped; files: 1, 1 failed/);
    await dead(run.pid);
  });

  test('kills a file that outlives its timeout, names what it started, and fails the run', async () => {
    // The runner lengthens the timeout by the load, as the helper does start-up deadlines.
    const run = await runFixture('hangs', 4);
    assert.equal(run.code, 1, run.stdout);
    assert.match(run.stdout, /timed out after \d+ s \(VK_TEST_FILE_TIMEOUT_S=4\): killed/);
    assert.match(
      run.stdout,
      new RegExp(`running at the timeout \\(killed\\): pid ${run.pid}: .*vk-fixture-sleeper`),
    );
    await dead(run.pid);
  });

  test('a failing test whose child came from spawnForTest ends, and leaves nothing running', async () => {
    const run = await runFixture('helper-child');
    assert.equal(run.code, 1, run.stdout);
    assert.match(run.stdout, /✖ fails while its child runs/);
    assert.doesNotMatch(run.stdout, /left running|timed out/);
    // The closing block says why, where a CI log's tail shows it.
    const closing = run.stdout.slice(run.stdout.lastIndexOf('\ntests: '));
    assert.match(
      closing,
      /✖ fails while its child runs \(\S*helper-child\.fixture\.ts:\d+:\d+\)\n\s+failed while its child runs\n/,
    );
    await dead(run.pid);
  });
});
