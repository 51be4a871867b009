// npm run docs:config: writes the configuration table of docs/CONFIGURATION.md from src/config.ts (see
// config-table.ts); `--check` exits 1 when the committed table differs or a variable has no meaning (CI).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tableProblems, withTable } from './config-table.js';

const target = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'docs/CONFIGURATION.md');
const fail = (message: string) => {
  process.stderr.write(`${message}\n`);
  process.exit(1);
};

const problems = tableProblems();
if (problems.length > 0) fail(problems.join('\n'));
const committed = readFileSync(target, 'utf8');
const generated = withTable(committed);
if (generated === null) fail('docs/CONFIGURATION.md has no config-table markers');
else if (process.argv.includes('--check')) {
  if (generated !== committed) {
    fail('docs/CONFIGURATION.md is out of date with src/config.ts; run `npm run docs:config` and commit it');
  }
  process.stdout.write('docs/CONFIGURATION.md matches src/config.ts\n');
} else {
  writeFileSync(target, generated);
  process.stdout.write(`wrote ${target}\n`);
}
