// The browser bundles of @vaultkeeper/client and @vaultkeeper/webhooks: they build for the browser (no
// Node-only import resolves there), hold no module from outside packages/, and stay within 40 KiB gzipped.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';

test('both packages bundle for the browser from packages/ alone, under 40 KiB gzipped', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['scripts/sdk-size.mjs', '--json']);
  const sizes = JSON.parse(stdout) as Record<string, { minified: number; gzipped: number; budget: number }>;
  assert.deepEqual(Object.keys(sizes).sort(), ['client', 'webhooks']);
  for (const [name, size] of Object.entries(sizes)) {
    assert.equal(size.budget, 40 * 1024);
    assert.ok(size.gzipped > 0 && size.gzipped <= size.budget, `${name}: ${size.gzipped} bytes gzipped`);
  }
});

test('vaultkeeper/client and vaultkeeper/webhooks of the server package are the two packages', async () => {
  const [served, client, reexportedHooks, hooks] = await Promise.all([
    import('vaultkeeper/client'),
    import('@vaultkeeper/client'),
    import('vaultkeeper/webhooks'),
    import('@vaultkeeper/webhooks'),
  ]);
  assert.equal(served.createVaultkeeperClient, client.createVaultkeeperClient);
  assert.equal(served.VaultkeeperError, client.VaultkeeperError);
  assert.equal(reexportedHooks.verifyWebhook, hooks.verifyWebhook);
  assert.deepEqual(Object.keys(served).sort(), Object.keys(client).sort());
  assert.deepEqual(Object.keys(reexportedHooks).sort(), Object.keys(hooks).sort());
});
