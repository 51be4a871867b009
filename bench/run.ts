// npm run bench: runs every bench/*.bench.ts in turn (or those named: npm run bench -- read auth).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => wanted.length === 0 || wanted.some((w) => name.startsWith(w)))
  .sort();
let failed = 0;
for (const file of files) {
  console.log(`\n##### ${file}`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(here, file)], { stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
}
console.log(`\n${files.length - failed} benchmarks finished, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
