// npm test: every *.test.ts under src/, dev/ and test/ through node's test runner (Node 20 has no --test globs).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Browser tests need Chromium, which a fresh machine lacks: only `--browser` (npm run test:browser) runs them.
const browser = process.argv.includes('--browser');
const BROWSER_DIR = join('test', 'browser');
const find = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'node_modules' || (path === BROWSER_DIR && !browser) ? [] : find(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });

const filters = process.argv.slice(2).filter((arg) => arg !== '--browser');
const files = (browser ? [BROWSER_DIR] : ['src', 'dev', 'test'])
  .flatMap(find)
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// The run's directory: the TAP report, and the migrated database that memory databases start from.
const runDir = mkdtempSync(join(tmpdir(), 'vk-test-'));
const tap = join(runDir, 'report.tap');
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${browser ? 1 : 3}`,
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=tap',
    `--test-reporter-destination=${tap}`,
    ...files,
  ],
  {
    stdio: 'inherit',
    // `vaultkeeper/client` and `vaultkeeper/webhooks` resolve to their TypeScript sources (no build needed).
    env: {
      ...process.env,
      NODE_ENV: 'test',
      VK_TEST_RUN_DIR: runDir,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --conditions=vaultkeeper-source`.trim(),
    },
  },
);
// One plain closing line that any CI reader understands.
const report = readFileSync(tap, 'utf8');
rmSync(runDir, { recursive: true, force: true });
const count = (name) => Number(report.match(new RegExp(`^# ${name} (\\d+)$`, 'm'))?.[1] ?? 0);
console.log(
  `\ntests: ${count('pass')} passed, ${count('fail') + count('cancelled')} failed, ${count('skipped')} skipped`,
);
process.exit(result.status ?? 1);
