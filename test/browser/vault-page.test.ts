import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { randomAddress } from '../../dev/validator/scenarios.js';
import { waitFor } from '../support/wait.js';
import {
  ARTIFACTS,
  blockWithOverride,
  createFundedVault,
  errorsOf,
  openPage,
  SOL,
} from './support/harness.js';
import { usePageWorld } from './support/page-world.js';

const world = usePageWorld({ ownerFunds: 0n });

describe('vault page', () => {
  test('shows the vault and updates live, without reloading, when the chain moves', async () => {
    const vault = await createFundedVault(world.stack, world.owner, {
      name: 'Marketing agent',
      dailyLimit: 5n * SOL,
    });
    const first = await world.stack.fake.execute(vault, {
      amount: 1_250_000_000n,
      destination: randomAddress() as Address,
    });
    await waitForTransactions(vault, 1);
    const nonce = await blockWithOverride(world.stack, vault, 9n * SOL);

    const page = await openPage(world.stack, null);
    await page.goto(`${world.stack.baseUrl}/vaults/${vault}`);
    await page.getByTestId('vault-name').getByText('Marketing agent').waitFor();
    await page.getByTestId('live-status').getByText('Live').waitFor();
    await page.getByTestId('transactions').locator('tbody tr').nth(1).waitFor();
    assert.equal(await page.getByTestId('transactions').locator('tbody tr').count(), 2);
    await page.getByTestId('spent-today').getByText('1.25 SOL').waitFor();
    await page.getByTestId('balance').getByText('SOL').first().waitFor();
    // The pending override links to its approval page.
    const review = page.getByTestId('pending-overrides').getByRole('link', { name: 'Review' });
    assert.equal(await review.getAttribute('href'), `/overrides/${vault}/${nonce}`);
    await page.evaluate('window.__loadedOnce = true');

    await world.stack.fake.execute(vault, { amount: 400_000_000n, destination: randomAddress() as Address });
    await page.getByTestId('activity').getByText('Sent 0.4 SOL').waitFor({ timeout: 15_000 });
    await page.getByTestId('transactions').locator('tbody tr').nth(2).waitFor({ timeout: 15_000 });
    await page.getByTestId('spent-today').getByText('1.65 SOL').waitFor({ timeout: 15_000 });

    await world.stack.fake.pause(vault);
    await page.getByTestId('vault-state').getByText('Paused').waitFor({ timeout: 15_000 });
    assert.equal(await page.evaluate('window.__loadedOnce'), true, 'the page was not reloaded');
    assert.ok(first.signature);
    await page.screenshot({ path: join(ARTIFACTS, 'vault-page.png'), fullPage: true });

    // On a phone every row shows its amount and destination inside the screen, and its time's zone.
    await page.setViewportSize({ width: 390, height: 844 });
    const rows = page.getByTestId('transactions').locator('tbody tr');
    for (let i = 0; i < (await rows.count()); i += 1) {
      for (const cell of [rows.nth(i).locator('td.num'), rows.nth(i).locator('td code')]) {
        assert.equal(await cell.isVisible(), true);
        const box = (await cell.boundingBox())!;
        assert.ok(box.x >= 0 && box.x + box.width <= 390, `row ${i} cell at ${box.x}+${box.width}`);
      }
      assert.match((await rows.nth(i).locator('td').first().textContent()) ?? '', /(UTC|GMT)/);
    }
    await page.screenshot({ path: join(ARTIFACTS, 'vault-page-phone.png'), fullPage: true });
    assert.deepEqual(errorsOf(page), []);
    await page.context().close();
  });

  test('renders names from the chain as text, never as markup', async () => {
    const name = '<img src=x onerror="window.__pwned=1">';
    const vault = await createFundedVault(world.stack, world.owner, { name });
    const page = await openPage(world.stack, null);
    await page.goto(`${world.stack.baseUrl}/vaults/${vault}`);
    await page.getByTestId('vault-name').waitFor();
    assert.equal(await page.getByTestId('vault-name').textContent(), name);
    assert.equal(await page.locator('main img').count(), 0);
    assert.equal(await page.evaluate('window.__pwned'), undefined);
    await page.context().close();
  });

  test('an unknown vault says so', async () => {
    const page = await openPage(world.stack, null);
    const response = await page.goto(`${world.stack.baseUrl}/vaults/${randomAddress()}`);
    assert.equal(response?.status(), 404);
    await page.getByText('No vault has this address').waitFor();
    assert.deepEqual(errorsOf(page), []);
    await page.context().close();
  });
});

async function waitForTransactions(vault: string, count: number): Promise<void> {
  await waitFor(
    async () =>
      (await world.stack.getJson<{ transactions: unknown[] }>(`/api/transactions?vault=${vault}`)).body
        .transactions.length >= count,
    { timeoutMs: 20_000, message: `${count} transactions ingested` },
  );
}
