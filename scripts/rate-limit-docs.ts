// npm run docs:limits: writes the rate-limit table of docs/API.md from the routes (see rate-limit-table.ts);
// `--check` exits 1 when the committed table differs (CI).
import { resolve } from 'node:path';
import { root } from './docs-app.js';
import { runDocsTable } from './docs-table.js';
import { withTable } from './rate-limit-table.js';

await runDocsTable(resolve(root, 'docs/API.md'), withTable, {
  name: 'docs/API.md',
  source: 'the routes',
  command: 'npm run docs:limits',
});
