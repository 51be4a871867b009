// The rooms' fences (npm run check:rooms): the service, the browser app and the team's tools import
// across no fence, and the check names each crossing it finds, with its file and line.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { problemsOf } from '../../scripts/check-rooms.mjs';

test('the repository crosses no fence', () => {
  assert.deepEqual(problemsOf(), []);
});

test('names every crossing (static, re-export and dynamic imports) and only those; unit tests beside their code may use the harness', async () => {
  const repository = await mkdtemp(join(tmpdir(), 'rooms-'));
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
  try {
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(repository, path)), { recursive: true });
      await writeFile(join(repository, path), text);
    }
    const problems = problemsOf(repository);
    assert.deepEqual(
      problems.map((p) => p.split(' (')[0]),
      [
        'src/chain/codec.ts:2 imports ../../dev/validator/index.js',
        'web/app.ts:1 imports ../src/chain/codec.js',
        'dev/demo/demo.ts:1 imports ../../test/support/wait.js',
      ],
    );
    assert.match(problems[0]!, /src\/ must not import dev\//);
  } finally {
    await rm(repository, { recursive: true, force: true });
  }
});
