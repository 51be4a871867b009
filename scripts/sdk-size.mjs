// npm run sdk:size: bundles @vaultkeeper/client and @vaultkeeper/webhooks for the browser (minified, with
// everything they import) and reports their gzipped size; fails when one is over its budget or bundles
// a module from outside packages/. `--json` prints the figures for scripts and tests.

import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { BROWSER_BUNDLE } from './browser-bundle.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Gzipped bytes each entry may take. */
const BUDGET = 40 * 1024;
const ENTRIES = { client: 'packages/client/src/index.ts', webhooks: 'packages/webhooks/src/index.ts' };

const sizes = {};
const strays = [];
for (const [name, entry] of Object.entries(ENTRIES)) {
  // For the browser: a Node-only import fails to resolve, so the bundle proves there is none.
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    ...BROWSER_BUNDLE,
    metafile: true,
    logLevel: 'error',
  });
  // Library code only: nothing of the server, nothing from node_modules.
  strays.push(...Object.keys(result.metafile.inputs).filter((input) => !input.startsWith('packages/')));
  const bytes = result.outputFiles[0].contents;
  sizes[name] = { minified: bytes.length, gzipped: gzipSync(bytes, { level: 9 }).length, budget: BUDGET };
}

const over = Object.entries(sizes).filter(([, size]) => size.gzipped > size.budget);
if (process.argv.includes('--json')) {
  console.log(JSON.stringify(sizes));
} else {
  for (const [name, size] of Object.entries(sizes)) {
    const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
    console.log(
      `@vaultkeeper/${name}: ${kib(size.minified)} minified, ${kib(size.gzipped)} gzipped (budget ${kib(size.budget)})`,
    );
  }
}
if (strays.length > 0) {
  console.error(`the packages bundle modules outside packages/: ${[...new Set(strays)].join(', ')}`);
  process.exit(1);
}
if (over.length > 0) {
  console.error(`over budget: ${over.map(([name]) => `@vaultkeeper/${name}`).join(', ')}`);
  process.exit(1);
}
