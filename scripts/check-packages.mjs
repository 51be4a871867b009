// CI: the client packages as a user gets them. Packs each with `npm pack -w`, installs the tarballs in an
// empty project, then with each Node given (--node <path to node>, repeatable): imports them as ES
// modules and runs them (a webhook verified, a client call answered), checks what require() does, and
// type-checks a strict consumer with skipLibCheck: false, for Node (@types/node) and for browsers (DOM).
// Prints one line per check and the tarball sizes; exits 1 on the first failure.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const nodes = process.argv.flatMap((arg, i) => (process.argv[i - 1] === '--node' ? [arg] : []));
if (nodes.length === 0) nodes.push(process.execPath);
const PACKAGES = ['@vaultkeeper/webhooks', '@vaultkeeper/client'];

const run = (command, args, options = {}) =>
  execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
const step = (text) => console.log(`ok   ${text}`);

const work = mkdtempSync(join(tmpdir(), 'vk-packages-'));
try {
  const tarballs = PACKAGES.map((name) => {
    const file = run('npm', ['pack', '--silent', '-w', name, '--pack-destination', work], { cwd: root })
      .trim()
      .split('\n')
      .at(-1);
    const path = join(work, file);
    const listing = run('tar', ['-tzf', path]).split('\n').filter(Boolean);
    for (const needed of [
      'package/package.json',
      'package/README.md',
      'package/dist/index.js',
      'package/dist/index.d.ts',
    ]) {
      if (!listing.includes(needed)) throw new Error(`${file} lacks ${needed}`);
    }
    if (listing.some((entry) => entry.startsWith('package/src/')))
      throw new Error(`${file} ships its sources`);
    step(`${name}: ${file}, ${(statSync(path).size / 1024).toFixed(1)} KiB packed, ${listing.length} files`);
    return path;
  });

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
      ...tarballs,
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
} catch (error) {
  console.error(
    `FAIL ${error.message}${error.stdout ? `\n${error.stdout}` : ''}${error.stderr ? `\n${error.stderr}` : ''}`,
  );
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
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
