// The process helper of the tests: a wait for output ends when the process does, and stopping a child
// ends what it started in its group.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runForTest, spawnForTest, startupDeadlineMs } from '../support/child-process.js';
import { processState } from '../support/non-reaping-parent.js';
import { waitFor } from '../support/wait.js';

const gone = (pid: number) => processState(pid) === null || processState(pid) === 'Z';

describe('spawnForTest', () => {
  test('waitForOutput fails as soon as the process exits without printing it', {
    timeout: startupDeadlineMs(30_000),
  }, async (t) => {
    const child = spawnForTest(process.execPath, ['-e', 'console.log("bye")'], { t });
    // The deadline is ten minutes: only the exit can end this wait within the test's timeout.
    await assert.rejects(
      child.waitForOutput(/never printed/, 'the line', 600_000),
      /the line: the process exited first:\nbye/,
    );
  });

  test('stop ends the process and what it started in its group', async (t) => {
    const shell = spawnForTest('sh', ['-c', 'sleep 300 & echo "$!"; wait'], { t });
    const [, pid] = await shell.waitForOutput(/^(\d+)$/m, 'the grandchild started');
    assert.equal(gone(Number(pid)), false);
    await shell.stop('SIGTERM');
    await waitFor(() => gone(Number(pid)), { message: 'the grandchild ended' });
  });

  test("runForTest gives the exit code and both streams, with the run's marker in the environment", async () => {
    const run = await runForTest(
      process.execPath,
      ['-e', 'console.log(process.env.VK_TEST_FILE_TOKEN ?? "none"); console.error("err"); process.exit(3)'],
      { env: { PATH: process.env.PATH } },
    );
    assert.equal(run.code, 3);
    assert.equal(run.stdout.trim(), process.env.VK_TEST_FILE_TOKEN ?? 'none');
    assert.equal(run.stderr, 'err\n');
  });
});
