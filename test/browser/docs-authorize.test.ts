// The API reference page (Swagger UI at /docs) with an API key: "Authorize" takes it, and "Try it out"
// then calls a protected route as the key's wallet.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { createTestWallet } from '../../dev/support/wallet.js';
import { ARTIFACTS, errorsOf, openPage } from './support/harness.js';
import { usePageWorld } from './support/page-world.js';

const world = usePageWorld({ ownerFunds: 0n });

test('Authorize on /docs takes an API key, and Try it out lists the keys of its wallet', async () => {
  const owner = createTestWallet();
  const body = { name: 'swagger' };
  const path = '/api/api-keys';
  const domain = new URL(world.stack.baseUrl).host;
  const created = await fetch(`${world.stack.baseUrl}${path}`, {
    method: 'POST',
    headers: {
      ...owner.authHeaders({ request: { method: 'POST', path, body, domain } }),
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
  assert.equal(created.status, 201);
  const { key, prefix } = (await created.json()) as { key: string; prefix: string };

  const page = await openPage(world.stack, null);
  await page.goto(`${world.stack.baseUrl}/docs`);
  await page.locator('button.authorize').first().click();
  const dialog = page.locator('.auth-container').filter({ hasText: 'Bearer' });
  await dialog.locator('input').first().fill(key);
  // Swagger UI labels its submit button "Apply credentials" (its text reads Authorize).
  await dialog.locator('button.authorize').click();
  await page.locator('button.close-modal').first().click();

  const operation = page.locator('[id^="operations-"][id$="-listApiKeys"]');
  await operation.locator('.opblock-summary').click();
  await operation.getByRole('button', { name: 'Try it out' }).click();
  await operation.getByRole('button', { name: 'Execute' }).click();
  const status = operation.locator('.live-responses-table tr.response .response-col_status').first();
  await status.waitFor({ timeout: 30_000 });
  await page.screenshot({ path: join(ARTIFACTS, 'docs-authorize-api-key.png'), fullPage: false });
  assert.equal(((await status.textContent()) ?? '').trim(), '200');
  const answer =
    (await operation.locator('.live-responses-table .response-col_description pre').first().textContent()) ??
    '';
  assert.ok(answer.includes(prefix), answer);
  assert.ok(!answer.includes(key), 'the list never shows the key');
  assert.deepEqual(errorsOf(page), []);
});
