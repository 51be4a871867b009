// The browser bundles of @vaultkeeper/client and @vaultkeeper/webhooks: they build for the browser (no
// Node-only import resolves there), hold no module from outside packages/, and stay within 40 KiB gzipped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runForTest } from '../support/child-process.js';

test('both packages bundle for the browser from packages/ alone, under 40 KiB gzipped', async () => {
  const { code, stdout, stderr } = await runForTest(process.execPath, ['scripts/sdk-size.mjs', '--json']);
  assert.equal(code, 0, stderr);
  const sizes = JSON.parse(stdout) as Record<string, { minified: number; gzipped: number; budget: number }>;
  assert.deepEqual(Object.keys(sizes).sort(), ['client', 'webhooks']);
  for (const [name, size] of Object.entries(sizes)) {
    assert.equal(size.budget, 40 * 1024);
    assert.ok(size.gzipped > 0 && size.gzipped <= size.budget, `${name}: ${size.gzipped} bytes gzipped`);
  }
});

test('the server package exports no client: code imports @vaultkeeper/client and @vaultkeeper/webhooks', async () => {
  for (const specifier of ['vaultkeeper/client', 'vaultkeeper/webhooks']) {
    await assert.rejects(import(specifier), { code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' }, specifier);
  }
});
