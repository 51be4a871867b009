// npm run docs:config: writes the configuration table of docs/CONFIGURATION.md from src/config.ts (see
// config-table.ts); `--check` exits 1 when the committed table differs or a variable has no meaning (CI).
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tableProblems, withTable } from './config-table.js';
import { runDocsTable } from './docs-table.js';

const target = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'docs/CONFIGURATION.md');

const problems = tableProblems();
if (problems.length > 0) {
  process.stderr.write(`${problems.join('\n')}\n`);
  process.exit(1);
}
await runDocsTable(target, withTable, {
  name: 'docs/CONFIGURATION.md',
  source: 'src/config.ts',
  command: 'npm run docs:config',
});
