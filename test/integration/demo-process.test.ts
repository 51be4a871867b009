// `npm run demo` as a first-time user runs it: every command it prints, and the demo snippet of
// CONTRIBUTING.md, run as printed in a shell against it; `listen` reaches the demo's receiver, which
// verifies its signatures; SIGTERM to npm stops everything it started.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runForTest, spawnForTest, type TestChild } from '../support/child-process.js';
import { freePort } from '../support/ports.js';
import { waitFor } from '../support/wait.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// A user's shell: none of the test runner's NODE_OPTIONS (its source condition would make the compiled
// CLI import the packages' TypeScript sources).
const SHELL_ENV = {
  ...process.env,
  DATABASE_URL: '',
  REDIS_URL: '',
  NODE_OPTIONS: (process.env.NODE_OPTIONS ?? '').replace('--conditions=vaultkeeper-source', '').trim(),
};

/** True while something accepts connections on the port. */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** Runs a shell script from the checkout's directory, as a user pastes it; exit code and output. */
async function runShell(script: string): Promise<{ code: number | null; output: string }> {
  const run = await runForTest('/bin/sh', ['-c', script], { cwd: ROOT, env: SHELL_ENV });
  return { code: run.code, output: `${run.stdout}${run.stderr}` };
}

/** The fenced shell snippet of CONTRIBUTING's demo section that uses the demo owner's access. */
function contributingSnippet(): string {
  const text = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8');
  const section = text.slice(text.indexOf('## Demo without a cluster'));
  const block = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].find((m) => m[1]!.includes('owner.env'));
  assert.ok(block, 'CONTRIBUTING has the demo owner snippet');
  return block[1]!;
}

test('the demo: its printed commands and CONTRIBUTING’s run as printed; SIGTERM to npm stops everything', async (t) => {
  const port = await freePort();
  const demo = spawnForTest('npm', ['run', 'demo', '--', '--port', String(port), '--history-days', '0'], {
    cwd: ROOT,
    env: SHELL_ENV,
    t,
  });
  await demo.waitForOutput(/Act as the demo owner/, 'the demo printed its owner commands', 240_000);
  await demo.waitForOutput(/webhook subscription \S+/, 'the demo subscribed its receiver', 60_000);
  const printed = demo.output;
  const rpcPort = Number(/simulated validator at http:\/\/127\.0\.0\.1:(\d+)/.exec(printed)?.[1]);
  assert.match(
    printed,
    new RegExp(`Pending approvals of this owner: http://127\\.0\\.0\\.1:${port}/owners/\\w+/approvals`),
  );
  const block = printed.slice(printed.indexOf('Act as the demo owner'));
  const commands = block
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^(set -a|curl |npx )/.test(line));
  const [source, ...rest] = commands;
  assert.match(source ?? '', /^set -a; \. \S+owner\.env; set \+a$/);
  const listenLine = rest.find((line) => line.startsWith('npx vaultkeeper listen'));
  assert.ok(listenLine, 'a listen line is printed');
  assert.ok(rest.length >= 4, commands.join('\n'));

  const webhookId = /webhook subscription (\S+)/.exec(printed)?.[1] ?? '';
  for (const command of rest.filter((line) => line !== listenLine)) {
    assert.doesNotMatch(command, /</, `no placeholder left in: ${command}`);
    const { code, output } = await runShell(`${source}\n${command}`);
    assert.equal(code, 0, `${command}\n${output}`);
    if (!command.includes('webhooks test')) assert.match(output, new RegExp(webhookId), command);
  }
  const snippet = await runShell(contributingSnippet());
  assert.equal(snippet.code, 0, snippet.output);
  assert.match(snippet.output, new RegExp(webhookId));

  // listen forwards the owner's events to the demo's receiver, which accepts them (200) and says so.
  const listen: TestChild = spawnForTest('/bin/sh', ['-c', `${source}\n${listenLine}`], {
    cwd: ROOT,
    env: SHELL_ENV,
    t,
  });
  await waitFor(() => / → 200/.test(listen.output), {
    timeoutMs: 240_000,
    message: `listen forwarded an event that the receiver accepted (listen: ${listen.output.slice(-1000)})`,
  });
  assert.doesNotMatch(listen.output, / → 401/);
  await waitFor(() => /\[webhook\] listen .* signatures ok/.test(demo.output), {
    timeoutMs: 30_000,
    message: 'the demo log shows the forwarded event verified',
  });
  assert.doesNotMatch(demo.output, /REJECTED/);
  await listen.stop('SIGKILL');

  assert.equal(await listening(port), true);
  assert.equal(await listening(rpcPort), true);
  demo.child.kill('SIGTERM');
  await demo.exited;
  await waitFor(async () => !(await listening(port)) && !(await listening(rpcPort)), {
    timeoutMs: 30_000,
    message: 'the service and the validator stopped listening',
  });
});
