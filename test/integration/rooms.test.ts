// The rooms' fences (npm run check:rooms): the service, the browser app and the team's tools import
// across no fence, and the check names each crossing it finds, with its file and line.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { problemsOf } from '../../scripts/check-rooms.mjs';

/** The check's problems for a repository holding `files` (path → text), written to a temporary directory. */
async function withRepository(files: Record<string, string>, check: (problems: string[]) => void) {
  const repository = await mkdtemp(join(tmpdir(), 'rooms-'));
  try {
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(repository, path)), { recursive: true });
      await writeFile(join(repository, path), text);
    }
    check(problemsOf(repository));
  } finally {
    await rm(repository, { recursive: true, force: true });
  }
}

test('the repository crosses no fence', () => {
  assert.deepEqual(problemsOf(), []);
});

test('names every crossing (static, re-export and dynamic imports) and only those; unit tests beside their code may use the harness', async () => {
  const files: Record<string, string> = {
    'src/chain/codec.ts': "export const x = 1;\nimport { y } from '../../dev/validator/index.js';\n",
    'src/lib/fine.ts': "import { x } from '../chain/codec.js';\nimport { z } from '@solana/kit';\n",
    'web/app.ts': "export { x } from '../src/chain/codec.js';\n",
    'dev/demo/demo.ts':
      "const m = await import('../../test/support/wait.js');\nimport '../support/wallet.js';\n",
    'dev/support/wallet.ts': 'export {};\n',
    'test/support/wait.ts': "import { x } from '../../src/chain/codec.js';\n",
    'src/chain/codec.test.ts': "import { w } from '../../test/support/wait.js';\n",
  };
  await withRepository(files, (problems) => {
    assert.deepEqual(
      problems.map((p) => p.split(' (')[0]),
      [
        'src/chain/codec.ts:2 imports ../../dev/validator/index.js',
        'web/app.ts:1 imports ../src/chain/codec.js',
        'dev/demo/demo.ts:1 imports ../../test/support/wait.js',
      ],
    );
    assert.match(problems[0]!, /src\/ must not import dev\//);
  });
});

test('test files take their world from useTestApps: an import of a set-up primitive is a crossing, except in the listed files', async () => {
  const files: Record<string, string> = {
    'test/support/app.ts': 'export {};\n',
    'test/support/database.ts': 'export {};\n',
    'test/support/ingestor.ts': 'export {};\n',
    // The world itself is built from them.
    'test/support/test-apps.ts':
      "import { createTestApp, createTestDeps } from './app.js';\nimport { createTestStorage } from './database.js';\n",
    'test/integration/app.test.ts':
      "import assert from 'node:assert/strict';\nimport {\n  createLogCapture,\n  createTestApp,\n  type LogCapture,\n} from '../support/app.js';\n",
    'src/domain/queries.test.ts':
      "import { createTestStorage, type TestStorage } from '../../test/support/database.js';\n",
    // Split, so that the check does not read this file's own text as a dynamic import.
    'test/integration/ingest.test.ts': `const { startTestIngestor } = await import${"('../support/ingestor.js')"};\n`,
    'test/integration/deps.test.ts': "export { createTestDeps as deps } from '../support/app.js';\n",
    // Helpers and types of the same modules are no set-up.
    'test/integration/logs.test.ts':
      "import { createLogCapture, createTestCache, type LogCapture } from '../support/app.js';\nimport type { TestStorage } from '../support/database.js';\nimport { useTestApps } from '../support/test-apps.js';\n",
    // Listed in SETUP_EXCEPTIONS: its CLI processes share a database by URL or data directory.
    'test/integration/cli.test.ts': "import { createTestStorage } from '../support/database.js';\n",
  };
  await withRepository(files, (problems) => {
    assert.deepEqual(problems.map((p) => p.split(' (')[0]).sort(), [
      'src/domain/queries.test.ts:1 imports createTestStorage from ../../test/support/database.js',
      'test/integration/app.test.ts:2 imports createTestApp from ../support/app.js',
      'test/integration/deps.test.ts:1 imports createTestDeps from ../support/app.js',
      'test/integration/ingest.test.ts:1 imports the module from ../support/ingestor.js',
    ]);
    assert.match(problems[0]!, /take their world from useTestApps/);
  });
});
