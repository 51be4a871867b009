// npm run build:web: bundles the owner pages (web/) into public/assets, which is committed so a fresh
// clone serves the pages without building. `--check` builds in memory and fails when the files drifted.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BROWSER_BUNDLE } from './browser-bundle.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = join(root, 'public', 'assets');
const check = process.argv.includes('--check');

const result = await build({
  absWorkingDir: root,
  entryPoints: {
    override: 'web/override-page.ts',
    vault: 'web/vault-page.ts',
    approvals: 'web/approvals-page.ts',
    pages: 'web/pages.css',
  },
  outdir,
  ...BROWSER_BUNDLE,
  charset: 'utf8',
  logLevel: 'warning',
});

const built = new Map(result.outputFiles.map((file) => [basename(file.path), file.contents]));
const existing = readdirSync(outdir, { withFileTypes: true })
  .filter((entry) => entry.isFile())
  .map((entry) => entry.name);

if (check) {
  const drifted = [
    ...[...built].filter(([name, bytes]) => !safeRead(join(outdir, name))?.equals(Buffer.from(bytes))),
    ...existing.filter((name) => !built.has(name)).map((name) => [name]),
  ].map(([name]) => relative(root, join(outdir, name)));
  if (drifted.length > 0) {
    console.error(
      `The built owner pages are out of date (run npm run build:web):\n  ${drifted.join('\n  ')}`,
    );
    process.exit(1);
  }
  console.log(`public/assets is up to date (${built.size} files)`);
} else {
  mkdirSync(outdir, { recursive: true });
  for (const name of existing) if (!built.has(name)) rmSync(join(outdir, name));
  for (const [name, bytes] of built) writeFileSync(join(outdir, name), bytes);
  const sizes = [...built].map(([name, bytes]) => `${name} ${(bytes.length / 1024).toFixed(1)} KiB`);
  console.log(`built public/assets: ${sizes.join(', ')}`);
}

function safeRead(path) {
  try {
    return readFileSync(path);
  } catch {
    return null;
  }
}
