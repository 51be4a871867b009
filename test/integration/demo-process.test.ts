// `npm run demo` as a first-time user runs it: the commands it prints work as printed against it, and
// SIGTERM to npm stops everything it started (the service and the simulated validator stop listening).
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '../support/ports.js';
import { waitFor } from '../support/wait.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

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

/** `set -a; . owner.env; set +a`: the variables the file sets. */
const readEnvFile = (path: string): Record<string, string> =>
  Object.fromEntries(
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );

test('the demo: printed commands work as printed, and SIGTERM to npm stops everything it started', async () => {
  const port = await freePort();
  const demo = spawn('npm', ['run', 'demo', '--', '--port', String(port), '--history-days', '0'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  demo.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  demo.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => demo.once('exit', resolve));
  try {
    await waitFor(() => output.includes('Act as the demo owner'), {
      timeoutMs: 180_000,
      message: `the demo printed its owner commands (output: ${output.slice(-2000)})`,
    });
    const rpcPort = Number(/simulated validator at http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1]);
    const envFile = /API key and URL\s+(\S+)/.exec(output)?.[1] ?? '';
    assert.equal(envFile, join(ROOT, 'data/demo/owner.env'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: '',
      REDIS_URL: '',
      ...readEnvFile(envFile),
    };
    assert.equal(env.VAULTKEEPER_URL, `http://127.0.0.1:${port}`);

    // curl -s -H "Authorization: Bearer $VAULTKEEPER_API_KEY" $VAULTKEEPER_URL/api/webhooks
    await waitFor(() => output.includes('webhook subscription'), {
      timeoutMs: 60_000,
      message: 'subscribed',
    });
    const listed = await fetch(`${env.VAULTKEEPER_URL}/api/webhooks`, {
      headers: { authorization: `Bearer ${env.VAULTKEEPER_API_KEY}` },
    });
    assert.equal(listed.status, 200);
    const [webhook] = ((await listed.json()) as { webhooks: { id: string }[] }).webhooks;
    assert.ok(webhook, 'the demo subscribed its receiver');
    // npx vaultkeeper webhooks list / webhooks test --webhook <id>: through the demo's service, saying so.
    const cli = (args: string[]) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
        cwd: ROOT,
        env,
      });
    const list = await cli(['webhooks', 'list']);
    assert.match(list.stdout, new RegExp(webhook.id));
    assert.match(list.stderr, new RegExp(`acting through the service at http://127\\.0\\.0\\.1:${port}`));
    const sent = await cli(['webhooks', 'test', '--webhook', webhook.id]);
    assert.match(sent.stderr, /acting through the service/);
    // The printed listen line carries --forward-to (it is required).
    assert.match(output, /npx vaultkeeper listen --forward-to http:\/\/127\.0\.0\.1:\d+\S*/);

    assert.equal(await listening(port), true);
    assert.equal(await listening(rpcPort), true);
    demo.kill('SIGTERM');
    await exited;
    await waitFor(async () => !(await listening(port)) && !(await listening(rpcPort)), {
      timeoutMs: 30_000,
      message: 'the service and the validator stopped listening',
    });
  } finally {
    if (demo.exitCode === null && demo.signalCode === null) demo.kill('SIGKILL');
  }
});
