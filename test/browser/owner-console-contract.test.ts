// The console's parts that stand on routes of the same release: the policy preview
// (POST /api/vaults/:address/policy-preview) and the alert settings (GET/PUT /api/vaults/:address/alerts).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import type { Page } from 'playwright-core';
import { randomAddress } from '../../dev/validator/scenarios.js';
import { waitFor } from '../support/wait.js';
import {
  ARTIFACTS,
  blockWithOverride,
  createFundedVault,
  errorsOf,
  openPage,
  SOL,
  walletCalls,
} from './support/harness.js';
import { usePageWorld } from './support/page-world.js';

let clients = 100;

const world = usePageWorld({ env: { TRUST_PROXY: '127.0.0.1' } });

async function openConsole(vault: string): Promise<Page> {
  const page = await openPage(world.stack, world.owner, { clientAddress: `198.51.100.${++clients}` });
  await page.goto(`${world.stack.baseUrl}/vaults/${vault}`);
  await page.getByTestId('owner-console').getByTestId('connect-wallet').click();
  await page.getByTestId('connected-account').getByText(world.owner.address).waitFor();
  return page;
}

describe("owner's console: policy preview and alerts", () => {
  test('lowering the limit shows, before signing, the transfer it would have blocked (hand-computed replay)', async () => {
    const vault = await createFundedVault(world.stack, world.owner, {
      name: 'What-if',
      dailyLimit: 5n * SOL,
    });
    const late = randomAddress() as Address;
    await world.stack.fake.execute(vault, {
      amount: 1_250_000_000n,
      destination: randomAddress() as Address,
    });
    await world.stack.fake.execute(vault, { amount: 400_000_000n, destination: randomAddress() as Address });
    const third = await world.stack.fake.execute(vault, { amount: 2n * SOL, destination: late });
    await blockWithOverride(world.stack, vault, 9n * SOL);
    await waitFor(
      async () =>
        (await world.stack.getJson<{ transactions: unknown[] }>(`/api/transactions?vault=${vault}`)).body
          .transactions.length === 4,
      { timeoutMs: 20_000, message: 'four attempts ingested' },
    );
    const page = await openConsole(vault);
    await page.getByTestId('limit-input').fill('2');
    await page.getByTestId('review-limit').click();
    await page.locator('[data-testid="policy-preview"][data-status="ready"]').waitFor({ timeout: 15_000 });

    // Replayed from the first attempt under 2 SOL a day: 1.25 and 0.4 still go (1.65), the 2 SOL one
    // would cross the limit (3.65), the 9 SOL one was and stays blocked.
    const rows = page.getByTestId('preview-changes').locator('tbody tr');
    assert.equal(await rows.count(), 1);
    assert.equal(await rows.first().getAttribute('data-signature'), third.signature);
    assert.equal(await rows.first().getAttribute('data-would'), 'blocked');
    const row = (await rows.first().textContent()) ?? '';
    assert.match(row, /Sent.*Blocked.*Over the daily spending limit.*2 SOL/s);
    const summary = (await page.getByTestId('preview-summary').textContent()) ?? '';
    assert.match(summary, /^4 transfer attempts replayed/);
    assert.match(summary, /1 would now be blocked \(2 SOL\)/);
    assert.match(summary, /0 would now go through \(0 SOL\)/);
    assert.match(summary, /Under the new policy: 2 sent, 2 blocked\./);
    assert.equal(await page.getByTestId('preview-truncated').count(), 0);
    // Nothing was signed to see it.
    assert.deepEqual(await walletCalls(page), [{ feature: 'standard:connect' }]);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: join(ARTIFACTS, 'owner-console-what-if.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(ARTIFACTS, 'owner-console-what-if-phone.png'), fullPage: true });
    await page.getByTestId('cancel-change').click();
    assert.equal(await page.getByTestId('change-review').count(), 0);
    assert.deepEqual(errorsOf(page), []);
    await page.context().close();
  });

  test('the owner reads and saves the alert settings, each a signed request', async () => {
    const vault = await createFundedVault(world.stack, world.owner);
    const page = await openConsole(vault);
    await page.getByTestId('alert-settings').waitFor();
    await page.getByTestId('load-alerts').click();
    await page.getByTestId('save-alerts').waitFor();
    assert.equal(await page.getByTestId('alert-thresholds').inputValue(), '80, 100');
    assert.equal(await page.getByTestId('alert-velocity-on').isChecked(), false);
    assert.equal(await page.getByTestId('alert-expiry-minutes').inputValue(), '15');

    await page.getByTestId('alert-thresholds').fill('50, 90');
    await page.getByTestId('alert-velocity-on').check();
    await page.getByTestId('alert-window').fill('120');
    await page.getByTestId('alert-max-transfers').fill('20');
    await page.getByTestId('alert-expiry-minutes').fill('10');
    await page.getByTestId('save-alerts').click();
    await page.getByText('Alert settings saved.').waitFor();
    const signed = (await walletCalls(page)).filter((c) => c.feature === 'solana:signMessage');
    assert.equal(signed.length, 2);
    assert.match(signed[1]!.text!, new RegExp(`PUT /api/vaults/${vault}/alerts`));
    await page.context().close();

    // Another visit reads what was saved.
    const again = await openConsole(vault);
    await again.getByTestId('load-alerts').click();
    await again.getByTestId('save-alerts').waitFor();
    assert.equal(await again.getByTestId('alert-thresholds').inputValue(), '50, 90');
    assert.equal(await again.getByTestId('alert-velocity-on').isChecked(), true);
    assert.equal(await again.getByTestId('alert-window').inputValue(), '120');
    assert.equal(await again.getByTestId('alert-max-transfers').inputValue(), '20');
    assert.equal(await again.getByTestId('alert-expiry-minutes').inputValue(), '10');
    assert.deepEqual(errorsOf(again), []);
    await again.context().close();
  });
});
