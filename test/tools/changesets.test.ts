// The release script's check of the pending changesets: what CI runs before a release can need them.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runForTest } from '../support/child-process.js';

const RELEASE = fileURLToPath(new URL('../../scripts/release.mjs', import.meta.url));

async function check(files: Record<string, string> | null) {
  if (files === null) return runForTest(process.execPath, [RELEASE, '--check']);
  const dir = mkdtempSync(join(tmpdir(), 'vk-changesets-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return await runForTest(process.execPath, [RELEASE, '--check', dir]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('release --check', () => {
  test("the repository's pending changesets read", async () => {
    const run = await check(null);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /\d+ pending changesets read/);
  });

  test('front matter in either quoting, with or without a blank line, reads', async () => {
    const run = await check({
      'a.md': '---\n"vaultkeeper": patch\n---\n\nA fix.\n',
      'b.md': "---\n\n'@vaultkeeper/client': minor\n'vaultkeeper': minor\n---\n\nA feature.\n",
      'README.md': '# not a changeset\n',
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /2 pending changesets read/);
  });

  test('front matter a formatter turned into a heading fails, naming the file', async () => {
    const run = await check({ 'heading.md': "---\n\n## 'vaultkeeper': patch\n\nThe fix.\n" });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /heading\.md: (no front matter|cannot read)/);
  });

  test('a package none of the three, and a changeset naming none, are each named', async () => {
    const run = await check({
      'unknown.md': '---\n"vaultkeeper-cli": minor\n---\n\nText.\n',
      'empty.md': '---\n---\n\nText.\n',
    });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /unknown\.md: "vaultkeeper-cli" is none of vaultkeeper/);
    assert.match(run.stderr, /empty\.md: names no package/);
  });
});
