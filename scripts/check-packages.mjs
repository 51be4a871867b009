// CI: the three packages as a user gets them. Packs each (`npm pack`; the service's prepack builds it),
// checks what each tarball holds, that its CHANGELOG's top entry is its version, and passes it through
// `npm publish --dry-run`, publint and Are the Types Wrong (ESM-only profile: the packages are ES modules).
// Installs the client tarballs in an empty project, then with each Node given (--node <path to node>,
// repeatable): imports them as ES modules and runs them (a webhook verified, a client call answered),
// checks what require() does, and type-checks a strict consumer with skipLibCheck: false, for Node
// (@types/node) and for browsers (DOM). Installs the service's tarball in another empty project and, with
// each Node, runs `npx vaultkeeper --version` and `npx vaultkeeper start` on the embedded default against
// the test validator on 127.0.0.1: /livez answers, /api/health reports the chain connected and the
// package's version, then SIGTERM stops it.
// Prints one line per check and the tarball sizes; exits 1 on the first failure.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const nodes = process.argv.flatMap((arg, i) => (process.argv[i - 1] === '--node' ? [arg] : []));
if (nodes.length === 0) nodes.push(process.execPath);
/** Each package: its directory, and what its tarball must hold. */
const PACKAGES = {
  '@vaultkeeper/webhooks': { dir: 'packages/webhooks', needs: ['dist/index.js', 'dist/index.d.ts'] },
  '@vaultkeeper/client': { dir: 'packages/client', needs: ['dist/index.js', 'dist/index.d.ts'] },
  vaultkeeper: {
    dir: '.',
    needs: [
      'bin/vaultkeeper.mjs',
      'bin/npm-shell-watch.mjs',
      'dist/main.js',
      'dist/cli/main.js',
      'public/pages/home.html',
      'public/assets/vault.js',
      'src/storage/migrations/meta/_journal.json',
      'CHANGELOG.md',
    ],
  },
};
/** What no tarball ships: tests, the development tools, benchmarks, sources (migrations aside), maps. */
const STRAY =
  /^package\/(test|dev|bench|scripts|web|packages|program)\/|^package\/src\/(?!storage\/migrations\/)|\.map$|(?<!\.d)\.ts$/;

const run = (command, args, options = {}) =>
  execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
const step = (text) => console.log(`ok   ${text}`);
const bin = (name) => join(root, 'node_modules', '.bin', name);
const size = (dir) => run('du', ['-sh', dir]).split('\t')[0];

const work = mkdtempSync(join(tmpdir(), 'vk-packages-'));
try {
  const tarballs = Object.fromEntries(
    Object.entries(PACKAGES).map(([name, spec]) => [name, packAndLint(name, spec, work)]),
  );

  const project = join(work, 'consumer');
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  const typescript = run('node', ['-p', "require('typescript/package.json').version"], { cwd: root }).trim();
  const typesNode = run('node', ['-p', "require('@types/node/package.json').version"], { cwd: root }).trim();
  // The versions the repository already holds: npm takes them from its cache when it can.
  run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      tarballs['@vaultkeeper/webhooks'],
      tarballs['@vaultkeeper/client'],
      `typescript@${typescript}`,
      `@types/node@${typesNode}`,
    ],
    { cwd: project },
  );
  const installed = readdirSync(join(project, 'node_modules'));
  const stray = installed.filter(
    (name) =>
      !['@vaultkeeper', '@types', 'typescript', 'undici-types', '.bin', '.package-lock.json'].includes(name),
  );
  if (stray.length > 0) throw new Error(`the packages pulled in dependencies: ${stray.join(', ')}`);
  step('installed in an empty project: no dependency beyond the two packages');

  writeConsumer(project);
  for (const node of nodes) checkWithNode(node, project);
  const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc');
  run(process.execPath, [tsc, '-p', 'tsconfig.node.json'], { cwd: project });
  step('a strict consumer type-checks with skipLibCheck: false (Node: @types/node, NodeNext)');
  run(process.execPath, [tsc, '-p', 'tsconfig.browser.json'], { cwd: project });
  step('a strict consumer type-checks with skipLibCheck: false (browser: DOM lib, bundler resolution)');

  const service = join(work, 'service');
  mkdirSync(service);
  writeFileSync(join(service, 'package.json'), JSON.stringify({ name: 'service', private: true }));
  // The client packages are not on the registry yet: their tarballs stand in for them.
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...Object.values(tarballs)], {
    cwd: service,
  });
  step(`the service installed in an empty project: node_modules ${size(join(service, 'node_modules'))}`);
  const validator = await startValidator();
  try {
    for (const node of nodes) await checkService(node, service, validator);
  } finally {
    validator.child.kill('SIGTERM');
  }
} catch (error) {
  console.error(
    `FAIL ${error.message}${error.stdout ? `\n${error.stdout}` : ''}${error.stderr ? `\n${error.stderr}` : ''}`,
  );
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** Packs one package, checks its contents and changelog, and lints the tarball; returns its path. */
function packAndLint(name, { dir, needs }, work) {
  const args = dir === '.' ? [] : ['-w', name];
  const file = run('npm', ['pack', '--silent', ...args, '--pack-destination', work], { cwd: root })
    .trim()
    .split('\n')
    .at(-1);
  const path = join(work, file);
  const listing = run('tar', ['-tzf', path]).split('\n').filter(Boolean);
  for (const needed of ['package.json', 'README.md', 'LICENSE', ...needs]) {
    if (!listing.includes(`package/${needed}`)) throw new Error(`${file} lacks ${needed}`);
  }
  const stray = listing.filter((entry) => STRAY.test(entry));
  if (stray.length > 0) throw new Error(`${file} ships ${stray.slice(0, 5).join(', ')}`);
  const { version } = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
  const top = /^## (.+)$/m.exec(readFileSync(join(root, dir, 'CHANGELOG.md'), 'utf8'))?.[1];
  if (top !== version) throw new Error(`${dir}/CHANGELOG.md: top entry ${top}, package.json ${version}`);
  step(`${name}: ${file}, ${(statSync(path).size / 1024).toFixed(1)} KiB packed, ${listing.length} files`);
  run('npm', ['publish', '--dry-run', path], { cwd: work });
  run(bin('publint'), ['run', path, '--strict'], { cwd: work });
  run(bin('attw'), [path, '--profile', 'esm-only', '--format', 'ascii'], { cwd: work });
  step(`${name}: npm publish --dry-run, publint --strict, attw --profile esm-only`);
  return path;
}

/** The test validator (dev/validator, run from this checkout) on a free port; resolves with its URLs. */
function startValidator() {
  const child = spawn(process.execPath, ['--import', 'tsx', 'dev/validator/main.ts', '--port', '0'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the test validator did not start in 120 s')), 120_000);
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const line = output.split('\n').find((l) => l.startsWith('{'));
      if (line === undefined) return;
      clearTimeout(timer);
      const { rpcUrl, wsUrl } = JSON.parse(line);
      resolve({ child, rpcUrl, wsUrl });
    });
    child.on('exit', (code) => reject(new Error(`the test validator exited (${code})`)));
  });
}

/** `npx vaultkeeper` with this Node first on PATH (the bin's `#!/usr/bin/env node` takes it). */
function npxEnv(node, service, validator) {
  return {
    ...process.env,
    PATH: `${dirname(node)}:${process.env.PATH}`,
    NODE_OPTIONS: '',
    DATA_DIR: join(service, `data-${run(node, ['--version']).trim()}`),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    SOLANA_RPC_URL: validator.rpcUrl,
    SOLANA_WS_URL: validator.wsUrl,
  };
}

async function checkService(node, service, validator) {
  const version = run(node, ['--version']).trim();
  const env = npxEnv(node, service, validator);
  const { version: expected } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const printed = run('npx', ['--no-install', 'vaultkeeper', '--version'], { cwd: service, env }).trim();
  if (printed !== `vaultkeeper ${expected}`) throw new Error(`${version}: --version printed "${printed}"`);
  const child = spawn('npx', ['--no-install', 'vaultkeeper', 'start'], { cwd: service, env, detached: true });
  let output = '';
  const listening = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${version}: no "Server listening" in 120 s`)), 120_000);
    const collect = (chunk) => {
      output += chunk;
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve(match[1]);
      if (match) clearTimeout(timer);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('exit', (code) => reject(new Error(`${version}: the service exited (${code})`)));
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    const base = await listening;
    const live = await fetch(`${base}/livez`).then((r) => r.json());
    // Against the test validator: the chain feed connects, and health says so.
    let health;
    for (const deadline = Date.now() + 90_000; ; ) {
      health = await fetch(`${base}/api/health`).then((r) => r.json());
      if (health.chain?.status === 'connected' || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    if (health.chain?.status !== 'connected')
      throw new Error(`${version}: /api/health ${JSON.stringify(health)}`);
    if (live.status !== 'alive') throw new Error(`${version}: /livez ${JSON.stringify(live)}`);
    if (health.database !== 'connected' || health.version !== expected)
      throw new Error(`${version}: /api/health ${JSON.stringify(health)}`);
    step(
      `${version}: npx vaultkeeper start: /livez ${live.status}, /api/health ${health.status} (database ${health.database}, chain ${health.chain.status}, version ${health.version})`,
    );
  } catch (error) {
    error.stderr = output.slice(-4000);
    throw error;
  } finally {
    await stopGroup(child.pid, exited);
  }
}

/** SIGTERM to the process group (npm, its shell, the service), SIGKILL after 15 s; gone already is fine. */
async function stopGroup(pid, exited) {
  const signal = (name) => {
    try {
      process.kill(-pid, name);
    } catch (error) {
      if (error.code !== 'ESRCH') throw error;
    }
  };
  signal('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000).unref())]);
  signal('SIGKILL');
}

function checkWithNode(node, project) {
  const version = run(node, ['--version']).trim();
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const env = { ...process.env, SECRET: secret, NODE_OPTIONS: '' };
  const out = run(node, ['smoke.mjs'], { cwd: project, env }).trim();
  if (out !== 'verified webhook.test; client GET /api/health answered healthy')
    throw new Error(`${version}: ${out}`);
  step(`${version}: import (ESM) runs: ${out}`);
  const required = run(node, ['require.cjs'], { cwd: project, env }).trim();
  const [major = 0, minor = 0] = version.slice(1).split('.').map(Number);
  // require() of an ES module works from Node 20.19 and 22.12 on; older releases refuse it (CONTRIBUTING.md, The client packages).
  const loads = major > 22 || (major === 22 && minor >= 12) || (major === 20 && minor >= 19);
  const expected = loads ? 'require: loaded' : 'require: ERR_REQUIRE_ESM; import(): loaded';
  if (required !== expected)
    throw new Error(`${version}: CommonJS gave "${required}", expected "${expected}"`);
  step(`${version}: CommonJS: ${required}`);
}

function writeConsumer(project) {
  const body = JSON.stringify({
    id: 'msg_1',
    event: 'webhook.test',
    timestamp: new Date().toISOString(),
    data: { webhook: 'w', vault: null, message: 'hi' },
  });
  writeFileSync(
    join(project, 'smoke.mjs'),
    `import { createServer } from 'node:http';
import { createHmac } from 'node:crypto';
import { createVaultkeeperClient } from '@vaultkeeper/client';
import { verifyWebhook } from '@vaultkeeper/webhooks';
const secret = process.env.SECRET;
const body = ${JSON.stringify(body)};
const timestamp = String(Math.floor(Date.now() / 1000));
const mac = createHmac('sha256', Buffer.from(secret.slice(6), 'base64')).update('msg_1.' + timestamp + '.' + body).digest('base64');
const event = await verifyWebhook({ secret, rawBody: body, headers: { 'webhook-id': 'msg_1', 'webhook-timestamp': timestamp, 'webhook-signature': 'v1,' + mac } });
let keySent = false;
const server = createServer((req, res) => {
  if (req.url === '/api/webhooks') keySent = req.headers.authorization === 'Bearer vk_${'A'.repeat(43)}';
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(req.url === '/api/health' ? { status: keySent ? 'healthy' : 'unhealthy' } : { webhooks: [] }));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const client = createVaultkeeperClient({ baseUrl: 'http://127.0.0.1:' + server.address().port, signer: 'vk_${'A'.repeat(43)}' });
const answer = await client.webhooks.list().then(() => client.health());
server.close();
console.log('verified ' + event.event + '; client GET /api/health answered ' + answer.status);
`,
  );
  writeFileSync(
    join(project, 'require.cjs'),
    `try {
  require('@vaultkeeper/client');
  require('@vaultkeeper/webhooks');
  console.log('require: loaded');
} catch (error) {
  import('@vaultkeeper/client').then(() => import('@vaultkeeper/webhooks')).then(() => console.log('require: ' + error.code + '; import(): loaded'));
}
`,
  );
  writeFileSync(
    join(project, 'consumer.ts'),
    `import { createVaultkeeperClient, type Vault, VaultkeeperError } from '@vaultkeeper/client';
import { verifyWebhook, type VaultkeeperWebhookEvent, WEBHOOK_EVENTS, WebhookVerificationError } from '@vaultkeeper/webhooks';

export async function report(apiKey: string): Promise<string[]> {
  const client = createVaultkeeperClient({ baseUrl: 'https://vaultkeeper.example.com', signer: apiKey });
  const lines: string[] = [];
  try {
    for await (const item of client.vaults.all({ owner: 'So11111111111111111111111111111111111111112' })) {
      const vault: Vault = await client.vaults.get(item.address);
      lines.push(\`\${vault.name}: \${vault.spentToday} of \${vault.dailyLimit}\`);
    }
    const { apiKeys } = await client.apiKeys.list();
    lines.push(...apiKeys.map((k) => \`\${k.prefix} \${k.lastUsedAt ?? 'never used'}\`));
  } catch (error) {
    if (error instanceof VaultkeeperError) lines.push(\`\${error.status} \${error.code}\`);
  }
  return lines;
}

export async function receive(rawBody: string, headers: Record<string, string>, secret: string): Promise<string> {
  try {
    const event: VaultkeeperWebhookEvent = await verifyWebhook({ secret, rawBody, headers });
    if (event.event === 'transaction.blocked') return event.data.approvalUrl ?? 'no approval';
    if (event.event === 'override.created') return event.data.blinkUrl;
    return \`\${event.event} of \${WEBHOOK_EVENTS.length} kinds\`;
  } catch (error) {
    return error instanceof WebhookVerificationError ? error.code : 'unknown';
  }
}
`,
  );
  const strict = {
    strict: true,
    skipLibCheck: false,
    noEmit: true,
    target: 'ES2022',
    noUncheckedIndexedAccess: true,
  };
  writeFileSync(
    join(project, 'tsconfig.node.json'),
    JSON.stringify({
      compilerOptions: {
        ...strict,
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2022'],
        types: ['node'],
      },
      files: ['consumer.ts'],
    }),
  );
  writeFileSync(
    join(project, 'tsconfig.browser.json'),
    JSON.stringify({
      compilerOptions: {
        ...strict,
        module: 'ESNext',
        moduleResolution: 'Bundler',
        lib: ['ES2022', 'DOM', 'DOM.Iterable'],
        types: [],
      },
      files: ['consumer.ts'],
    }),
  );
}
