// npm test: every *.test.ts under src/, dev/ and test/, each file in its own process under node's test
// runner, three at a time. A file's process runs in its own process group and hands a marker
// (VK_TEST_FILE_TOKEN) to everything it starts: when it ends, whatever is left of it is named, killed and
// fails the run; a file that runs longer than its timeout is killed and fails too. A hang never lasts.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { endLeftovers, findLeftovers, killAll } from './test-leftovers.mjs';

// Browser tests need Chromium, which a fresh machine lacks: only `--browser` (npm run test:browser) runs
// them. The upgrade test builds and runs the previous release, minutes of its own: only `--upgrade`
// (npm run test:upgrade, its own CI step) runs it.
const browser = process.argv.includes('--browser');
const upgrade = process.argv.includes('--upgrade');
const BROWSER_DIR = join('test', 'browser');
const UPGRADE_DIR = join('test', 'upgrade');
const only = browser ? BROWSER_DIR : upgrade ? UPGRADE_DIR : null;
// Generous: the slowest file takes about two minutes on a loaded machine.
const FILE_TIMEOUT_S = Number(process.env.VK_TEST_FILE_TIMEOUT_S ?? 600);
/** The load average per core when above one, at most 8: the factor test/support/child-process.ts uses. */
const loadFactor = () => Math.min(8, Math.max(1, loadavg()[0] / availableParallelism()));
const find = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'node_modules' || ([BROWSER_DIR, UPGRADE_DIR].includes(path) && path !== only)
        ? []
        : find(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });

// A filter naming an existing .ts file runs that file, test name or not (the runner's own tests use it).
const filters = process.argv.slice(2).filter((arg) => arg !== '--browser' && arg !== '--upgrade');
const named = filters.filter((f) => f.endsWith('.ts') && existsSync(f));
const files =
  named.length > 0
    ? named
    : (only === null ? ['src', 'dev', 'test'] : [only])
        .flatMap(find)
        .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
        .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// The run's directory: the TAP reports, and the migrated database that memory databases start from.
const runDir = mkdtempSync(join(tmpdir(), 'vk-test-'));
const runToken = randomBytes(6).toString('hex');
const running = new Map();

/** Runs one file; resolves with its counts, its failure reasons (if any) and its output. */
function runFile(file, index) {
  const token = `${runToken}-${index}`;
  const tap = join(runDir, `${index}.tap`);
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${tap}`,
      file,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      // `vaultkeeper/client` and `vaultkeeper/webhooks` resolve to their TypeScript sources (no build needed).
      env: {
        ...process.env,
        NODE_ENV: 'test',
        VK_TEST_RUN_DIR: runDir,
        VK_TEST_FILE_TOKEN: token,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --conditions=vaultkeeper-source`.trim(),
      },
    },
  );
  running.set(token, child.pid);
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const started = Date.now();
  const problems = [];
  // The clock runs slower on a loaded machine, as the tests' start-up deadlines do (startupDeadlineMs),
  // but at most three times slower: a hang must still end well inside CI's time limit.
  const timer = setInterval(() => {
    const seconds = (Date.now() - started) / 1000;
    if (seconds < FILE_TIMEOUT_S * Math.min(3, loadFactor())) return;
    clearInterval(timer);
    const left = findLeftovers(token, child.pid).filter((p) => p.pid !== child.pid);
    problems.push(
      `timed out after ${Math.round(seconds)} s (VK_TEST_FILE_TIMEOUT_S=${FILE_TIMEOUT_S}): killed`,
    );
    for (const p of left) problems.push(`running at the timeout (killed): pid ${p.pid}: ${p.command}`);
    killAll([{ pid: child.pid }, ...left]);
  }, 1_000);
  return new Promise((resolve) => {
    child.once('exit', async (code, signal) => {
      clearInterval(timer);
      for (const left of await endLeftovers(token, child.pid))
        problems.push(`left running after the file ended (killed): pid ${left.pid}: ${left.command}`);
      running.delete(token);
      if (code !== 0 && problems.length === 0) problems.push(`exited with ${code ?? signal}`);
      // A leftover that dropped the marker could still hold the pipes: never wait on them for long.
      await Promise.race([
        Promise.all([child.stdout, child.stderr].map((s) => (s.closed ? null : once(s, 'close')))),
        new Promise((r) => setTimeout(r, 2_000)),
      ]);
      child.stdout.destroy();
      child.stderr.destroy();
      const report = existsSync(tap) ? readFileSync(tap, 'utf8') : '';
      resolve({
        file,
        output,
        problems,
        seconds: (Date.now() - started) / 1000,
        counts: counts(report),
        failures: failures(report),
      });
    });
  });
}

const once = (emitter, event) => new Promise((resolve) => emitter.once(event, resolve));

function counts(report) {
  const count = (name) => Number(report.match(new RegExp(`^# ${name} (\\d+)$`, 'm'))?.[1] ?? 0);
  return { pass: count('pass'), fail: count('fail') + count('cancelled'), skipped: count('skipped') };
}

/**
 * Each failed test of a TAP report: its name, where it failed and the first lines of its error, so the
 * run's closing block says why without the reader scrolling back to the file's own block.
 */
function failures(report) {
  const lines = report.split('\n');
  const found = [];
  for (let i = 0; i < lines.length; i++) {
    const head = /^(\s*)not ok \d+ - (.*)$/.exec(lines[i]);
    if (!head) continue;
    const indent = head[1].length + 2;
    const block = [];
    for (let j = i + 1; j < lines.length; j++) {
      const line = lines[j];
      if (line.trim() === '---') continue;
      if (line.trim() === '...' || (line.trim() !== '' && line.length - line.trimStart().length < indent))
        break;
      block.push(line.slice(indent));
    }
    const field = (name) => block.findIndex((line) => line.startsWith(`${name}:`));
    const type = block[field('failureType')]?.slice('failureType:'.length).trim();
    if (type === "'subtestsFailed'") continue;
    const at = field('error');
    let error = at === -1 ? '' : block[at].slice('error:'.length).trim();
    if (error === '|-' || error === '|' || error === '>-') {
      const more = [];
      for (let k = at + 1; k < block.length && /^\s/.test(block[k]); k++) more.push(block[k].trim());
      error = more.join('\n');
    }
    const location = block[field('location')]?.slice('location:'.length).trim().replace(/^'|'$/g, '');
    found.push({ name: head[2], location, error: error.replace(/^'|'$/g, '') });
  }
  return found;
}

/** A file's spec output as one block, without its own summary (the run prints one for all files). */
function printFile(result) {
  const summary = result.output.search(/^ℹ tests \d+$/m);
  const body = (summary === -1 ? result.output : result.output.slice(0, summary)).trimEnd();
  const mark = result.problems.length > 0 || result.counts.fail > 0 ? '✖' : '✔';
  console.log(`${mark} ${result.file} (${result.seconds.toFixed(1)} s)`);
  if (body !== '') console.log(body.replace(/^/gm, '  '));
  for (const problem of result.problems) console.log(`  ✖ ${result.file}: ${problem}`);
}

// Ctrl-C or a CI timeout: nothing a file started outlives the run.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const [token, pid] of running) killAll([{ pid }, ...findLeftovers(token, pid)]);
    process.exit(1);
  });
}

const concurrency = browser ? 1 : 3;
const results = [];
let next = 0;
await Promise.all(
  Array.from({ length: Math.min(concurrency, files.length) }, async () => {
    while (next < files.length) {
      const index = next++;
      const result = await runFile(files[index], index);
      printFile(result);
      results.push(result);
    }
  }),
);
rmSync(runDir, { recursive: true, force: true });

// One plain closing block that any CI reader understands.
const total = (key) => results.reduce((sum, r) => sum + r.counts[key], 0);
const broken = results.filter((r) => r.problems.length > 0 || r.counts.fail > 0);
console.log(
  `\ntests: ${total('pass')} passed, ${total('fail')} failed, ${total('skipped')} skipped; files: ${results.length}, ${broken.length} failed`,
);
for (const result of broken) {
  console.log(`  ✖ ${result.file}${result.counts.fail > 0 ? ` (${result.counts.fail} failed)` : ''}`);
  for (const problem of result.problems) console.log(`      ${problem}`);
  for (const failure of result.failures) {
    console.log(`      ✖ ${failure.name}${failure.location ? ` (${failure.location})` : ''}`);
    for (const line of failure.error.split('\n').slice(0, 8)) console.log(`          ${line}`);
  }
}
process.exit(broken.length > 0 ? 1 : 0);
