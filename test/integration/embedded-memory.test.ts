// The embedded default's memory settings, each checked in a fresh process (V8 flags and loaded
// packages are per process): the young generation stays small, and unconfigured backends never load.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runForTest } from '../support/child-process.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs an ES module script under tsx in a new process, from the repository root; returns its stdout. */
async function runScript(script: string, nodeOptions: string[] = []): Promise<string> {
  const run = await runForTest(
    process.execPath,
    [...nodeOptions, '--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: root },
  );
  assert.equal(run.code, 0, run.stderr);
  return run.stdout.trim();
}

/**
 * new_space's capacity in MB after allocating about 200 MB of short-lived objects. Read after a
 * scavenge: between two, V8 13 (Node 24) may hold a few pages beyond the semi-space's capacity
 * (4 MB read as 5.25 MB), which the next scavenge gives back, so a reading at an arbitrary moment is
 * not the capacity the settings keep.
 */
const youngGenerationScript = (apply: boolean) => `
  import { getHeapSpaceStatistics } from 'node:v8';
  import { useEmbeddedMemorySettings } from './src/lib/embedded-memory.ts';
  if (${apply}) useEmbeddedMemorySettings();
  let kept = [];
  for (let i = 0; i < 3_000_000; i++) {
    kept.push({ i, text: 'x' + i });
    if (kept.length > 1000) kept = [];
  }
  globalThis.gc({ type: 'minor' });
  const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  process.stdout.write(String(space.space_size / 1048576));`;

describe('embedded memory settings', () => {
  test('keep the young generation at its initial size under allocation (it grows without them)', async () => {
    const grown = Number(await runScript(youngGenerationScript(false), ['--expose-gc']));
    const kept = Number(await runScript(youngGenerationScript(true), ['--expose-gc']));
    assert.ok(grown >= 8, `without the settings new space grew to ${grown} MB`);
    assert.ok(kept <= 4, `with the settings new space is ${kept} MB`);
  });

  test('where the runtime can replace its image, the process starts again in place with the flags on its command line', {
    skip: !('execve' in process) && 'this Node has no process.execve: the flags are set at run time',
  }, async () => {
    const script = `
        import { useEmbeddedMemorySettings } from './src/lib/embedded-memory.ts';
        const pid = process.pid;
        useEmbeddedMemorySettings();
        useEmbeddedMemorySettings();
        process.stdout.write(JSON.stringify({ pid, execArgv: process.execArgv }) + '\\n');`;
    const lines = (await runScript(script)).split('\n');
    // One line: the image that ran first wrote nothing, and the second did not start a third.
    assert.equal(lines.length, 1, lines.join('\n'));
    const { execArgv } = JSON.parse(lines[0]!) as { execArgv: string[] };
    assert.deepEqual(execArgv.slice(0, 2), ['--max-semi-space-size=1', '--liftoff-only']);
    assert.ok(execArgv.includes('--import'), 'the original options are kept');
  });

  test('the service modules load no Redis, SMTP, PostgreSQL or pretty-log package until one is configured', async () => {
    // Every module the service entry imports, read from its source so the list follows it.
    const imports = [...readFileSync(`${root}src/main.ts`, 'utf8').matchAll(/from '\.\/(.+)\.js';/g)].map(
      (m) => `./src/${m[1]}.ts`,
    );
    assert.ok(imports.length > 10, 'the imports of src/main.ts were found');
    const packagesLoaded = `
      const { createRequire } = await import('node:module');
      const loaded = Object.keys(createRequire(import.meta.url).cache);
      return ['ioredis', 'nodemailer', 'pg', 'pino-pretty'].filter((name) =>
        loaded.some((file) => file.includes(\`/node_modules/\${name}/\`)));`;
    const script = `
      ${imports.map((path) => `await import(${JSON.stringify(path)});`).join('\n')}
      const { createCache } = await import('./src/cache/index.ts');
      const { createLogger } = await import('./src/lib/logger.ts');
      createLogger({ level: 'info' });
      await createCache(null).close();
      const loaded = async () => { ${packagesLoaded} };
      const before = await loaded();
      createLogger({ level: 'info', pretty: true });
      const redis = createCache('redis://127.0.0.1:1');
      await redis.close();
      process.stdout.write(JSON.stringify({ before, after: await loaded() }));`;
    const { before, after } = JSON.parse(await runScript(script)) as { before: string[]; after: string[] };
    assert.deepEqual(before, []);
    // The same check sees them once a configuration asks for them.
    assert.deepEqual(after, ['ioredis', 'pino-pretty']);
  });
});
