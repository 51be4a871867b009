// The documentation's own checks: the configuration table is generated from config.ts and complete,
// every relative link, #anchor and repository path in the docs resolves, and the README stays a front door.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { documents, problemsOf } from '../../scripts/check-links.mjs';
import { readVariables, renderTable, tableProblems, withTable } from '../../scripts/config-table.js';
import { CONFIG_VARIABLES } from '../../src/config-variables.js';

const read = (path: string) => readFile(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('the configuration table', () => {
  test('describes every variable config.ts reads, and nothing else', () => {
    assert.deepEqual(tableProblems(), []);
    const { names } = readVariables();
    assert.ok(names.includes('REQUEST_BODY_TIMEOUT_MS') && names.includes('VAULTKEEPER_API_KEY'));
    assert.deepEqual([...names].sort(), Object.keys(CONFIG_VARIABLES).sort());
  });

  test('renders the defaults and ranges config.ts declares', () => {
    const table = renderTable();
    assert.match(table, /\| `PORT` \| `3000` \| a whole number from 0 to 65535 \|/);
    assert.match(table, /\| `REQUEST_BODY_TIMEOUT_MS` \| `30000` \| a whole number from 50 to 600000 \|/);
    assert.match(
      table,
      /\| `SOLANA_CLUSTER` \| `devnet` \| `devnet`, `mainnet-beta`, `testnet`, `localnet` \|/,
    );
    assert.match(table, /\| `WEBHOOK_RETRY_SCHEDULE` \| `5,300,1800,7200,18000,36000,36000` \|/);
    assert.match(table, /\| `REDIS_URL` \| unset \| `redis:\/\/` or `rediss:\/\/` URL \|/);
  });

  test('docs/CONFIGURATION.md holds the table as generated (npm run docs:config)', async () => {
    const committed = await read('docs/CONFIGURATION.md');
    assert.equal(withTable(committed), committed);
    assert.equal(withTable('no markers here'), null);
  });
});

describe('the link check', () => {
  test('every link, anchor and repository path of the docs resolves', () => {
    const files = documents();
    assert.ok(files.some((f) => f.endsWith('docs/OPERATIONS.md')));
    assert.deepEqual(files.flatMap(problemsOf), []);
  });

  test('reports a missing file, a missing heading and a missing repository path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vk-links-'));
    try {
      const file = join(dir, 'page.md');
      await writeFile(
        file,
        [
          '# Page',
          '',
          '## A `heading`: here',
          '',
          '[ok](#a-heading-here) [ok](#page) `src/config.ts` [web](https://example.com/x.md)',
          '[gone](elsewhere.md) [anchor](#nowhere) `src/no-such-file.ts` see docs/NOPE.md',
          '```',
          '[in code](ignored.md) `src/ignored.ts`',
          '```',
        ].join('\n'),
      );
      const name = relative(fileURLToPath(new URL('../../', import.meta.url)), file);
      assert.deepEqual(problemsOf(file), [
        `${name}:6: elsewhere.md: no such file`,
        `${name}:6: #nowhere: no heading #nowhere in ${name}`,
        `${name}:6: \`src/no-such-file.ts\`: no such path in the repository`,
        `${name}:6: \`docs/NOPE.md\`: no such path in the repository`,
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the README', () => {
  test('is a front door: at most 15 000 bytes, with the two fresh-machine commands', async () => {
    const readme = await read('README.md');
    assert.ok(Buffer.byteLength(readme) <= 15_000, `README.md is ${Buffer.byteLength(readme)} bytes`);
    assert.match(readme, /```sh\nnpm install && npm start\n```/);
    assert.match(readme, /```sh\nnpm install && npm test\n```/);
  });
});
