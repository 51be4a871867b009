import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import type { Page } from 'playwright-core';
import { findPendingOverrideAddress } from '../../src/chain/pdas.js';
import { formatSol } from '../../src/lib/lamports.js';
import {
  ARTIFACTS,
  blockWithOverride,
  createFundedVault,
  errorsOf,
  openPage,
  SOL,
} from './support/harness.js';
import { usePageWorld } from './support/page-world.js';

/** The approval page's "What you sign" section: the simulated approve before the owner signs. */

const SHOTS = join(ARTIFACTS, 'landing');

const world = usePageWorld();
before(() => {
  mkdirSync(SHOTS, { recursive: true });
});

async function screenshots(page: Page, name: string) {
  await page.screenshot({ path: join(SHOTS, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(SHOTS, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize({ width: 1100, height: 900 });
}

/** The lamports of "0.0018 SOL (1,808,100 lamports)". */
const lamportsOf = (text: string | null) =>
  BigInt(/\(([0-9,]+) lamports\)/.exec(text ?? '')![1]!.replaceAll(',', ''));

async function connectOnPage(vault: Address, nonce: string) {
  const page = await openPage(world.stack, world.owner);
  await page.goto(`${world.stack.baseUrl}/overrides/${vault}/${nonce}`);
  await page.locator('[data-state="pending"]').waitFor();
  await page.getByTestId('connect-wallet').click();
  await page.getByTestId('connected-account').getByText(world.owner.address).waitFor();
  return page;
}

describe('approval page: what you sign', () => {
  test('shows instructions, compute units, fees and balance changes; approving then does exactly that', async () => {
    const vault = await createFundedVault(world.stack, world.owner);
    const nonce = await blockWithOverride(world.stack, vault, 2n * SOL);
    const page = await connectOnPage(vault, nonce);
    await page.locator('[data-testid="preview"][data-state="ready"]').waitFor();
    const instructions = await page.getByTestId('preview-instructions').locator('code').allTextContents();
    assert.deepEqual(instructions, [
      'SetComputeUnitLimit',
      'SetComputeUnitPrice',
      'create_override',
      'approve_override',
      'execute_approved_override',
    ]);
    assert.match((await page.getByTestId('preview-units').textContent()) ?? '', /^\d{2},\d{3}$/);
    assert.equal(await page.getByTestId('preview-network-fee').textContent(), '0.000005 SOL');
    assert.equal(await page.getByTestId('delta-destination').textContent(), '+2 SOL');
    assert.equal(await page.getByTestId('delta-vault').textContent(), '−2.001 SOL');
    assert.equal(await page.getByTestId('delta-treasury').textContent(), '+0.001 SOL');
    // The wallet pays more than the fees: the page says the difference is the override account's rent,
    // and that it stays there.
    const fees = lamportsOf(await page.getByTestId('preview-total-fee').textContent());
    assert.equal(await page.getByTestId('preview-rent').textContent(), '0.00180264 SOL (1,802,640 lamports)');
    const total = lamportsOf(await page.getByTestId('preview-total').textContent());
    assert.equal(total, fees + 1_802_640n);
    assert.equal(await page.getByTestId('delta-payer').textContent(), `−${formatSol(total)} SOL`);
    assert.match(
      (await page.getByTestId('preview-rent-note').textContent()) ?? '',
      /rent for the override account .*\(PendingOverride, 131 bytes.*\. The rent does not come back/,
    );
    await screenshots(page, 'approval-preview');

    const before = world.stack.fake.balance(world.owner.address as Address);
    await page.getByTestId('approve').click();
    await page.locator('[data-state="executed"]').waitFor({ timeout: 30_000 });
    const executed = world.stack.fake.ledger().at(-1)!;
    const paid = executed.events.find((e) => e.name === 'TransactionExecuted');
    assert.equal(paid && 'data' in paid ? String(paid.data.amount) : '', String(2n * SOL));
    // What the page said: the wallet paid fees and rent, and the rent stayed in the override account.
    assert.equal(before - world.stack.fake.balance(world.owner.address as Address), total);
    const [pending] = await findPendingOverrideAddress(world.stack.fake.programId, vault, BigInt(nonce));
    assert.equal(world.stack.fake.balance(pending), 1_802_640n);
    assert.deepEqual(errorsOf(page), []);
    await page.context().close();
  });

  test('a transfer that would fail is explained before anything is signed', async () => {
    const vault = await createFundedVault(world.stack, world.owner);
    const nonce = await blockWithOverride(world.stack, vault, 12n * SOL);
    const page = await connectOnPage(vault, nonce);
    const error = page.getByTestId('preview-error');
    await error.waitFor();
    assert.match(
      (await error.textContent()) ?? '',
      /^Approving now would fail, so nothing will be sent for you to sign\. The vault holds 10 SOL and this transfer needs 12\.006 SOL .*\(InsufficientFunds: Insufficient funds in vault\)\.$/,
    );
    await screenshots(page, 'approval-preview-error');
    await page.context().close();
  });
});
