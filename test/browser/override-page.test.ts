import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createTestWallet } from '../../dev/support/wallet.js';
import { waitFor } from '../support/wait.js';
import {
  ARTIFACTS,
  blockWithOverride,
  createFundedVault,
  errorsOf,
  openPage,
  overrideStatus,
  SOL,
  walletCalls,
} from './support/harness.js';
import { usePageWorld } from './support/page-world.js';

const world = usePageWorld();

describe('override approval page', () => {
  test('approves through a Wallet Standard wallet: the transaction reaches the chain and the page shows it executed', async () => {
    const vault = await createFundedVault(world.stack, world.owner);
    const nonce = await blockWithOverride(world.stack, vault, 2n * SOL);
    const page = await openPage(world.stack, world.owner);
    await page.goto(`${world.stack.baseUrl}/overrides/${vault}/${nonce}`);

    await page.locator('[data-state="pending"]').waitFor();
    assert.equal(await page.getByTestId('amount').textContent(), '2 SOL');
    assert.equal(await page.getByTestId('reason').textContent(), 'Over the daily spending limit');
    assert.match((await page.getByTestId('time-left').textContent()) ?? '', /^\d+ min left$/);
    await page.screenshot({ path: join(ARTIFACTS, 'override-page-pending.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(ARTIFACTS, 'override-page-pending-phone.png'), fullPage: true });
    await page.setViewportSize({ width: 1100, height: 900 });

    await page.getByTestId('connect-wallet').click();
    await page.getByTestId('connected-account').getByText(world.owner.address).waitFor();
    await page.getByTestId('approve').click();

    await page.locator('[data-state="executed"]').waitFor({ timeout: 30_000 });
    await page.getByTestId('notice').getByText('Approved and executed').waitFor();
    // A decided request says when it was decided, and no longer shows an expiry.
    await page.getByTestId('decided-at').waitFor();
    assert.equal(await page.getByText('Time left').count(), 0);
    assert.equal(await page.getByText('Expiry').count(), 0);
    await page.screenshot({ path: join(ARTIFACTS, 'override-page-executed.png'), fullPage: true });

    // The wallet signed and sent one transaction on the service's cluster...
    const sends = (await walletCalls(page)).filter((c) => c.feature === 'solana:signAndSendTransaction');
    assert.deepEqual(
      sends.map((c) => c.chain),
      ['solana:localnet'],
    );
    // ...which the chain applied (approve + execute), and the service ingested.
    const applied = world.stack.fake
      .ledger()
      .filter((t) => t.err === null && t.events.some((e) => e.name === 'OverrideApproved'));
    assert.equal(applied.length, 1);
    const names = applied[0]!.events.map((e) => e.name).filter((n) => n !== 'OverrideCreated');
    assert.deepEqual(names, ['OverrideApproved', 'TransactionExecuted']);
    assert.equal(await overrideStatus(world.stack, vault, nonce), 'executed');
    assert.deepEqual(errorsOf(page), []);
    await page.context().close();
  });

  test('rejects by signing the Actions message: the override is rejected and nothing is sent', async () => {
    const vault = await createFundedVault(world.stack, world.owner);
    const nonce = await blockWithOverride(world.stack, vault);
    const ledgerBefore = world.stack.fake.ledger().length;
    const page = await openPage(world.stack, world.owner);
    await page.goto(`${world.stack.baseUrl}/overrides/${vault}/${nonce}`);

    await page.getByTestId('connect-wallet').click();
    await page.getByTestId('reject').click();
    await page.locator('[data-state="rejected"]').waitFor({ timeout: 20_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'override-page-rejected.png'), fullPage: true });

    const signed = (await walletCalls(page)).filter((c) => c.feature === 'solana:signMessage');
    assert.equal(signed.length, 1);
    const host = new URL(world.stack.baseUrl).host;
    assert.ok(
      signed[0]!.text!.startsWith(
        `${host} wants you to sign a message with your account:\n${world.owner.address}\n\n`,
      ),
    );
    assert.equal(await overrideStatus(world.stack, vault, nonce), 'rejected');
    assert.equal(world.stack.fake.ledger().length, ledgerBefore, 'no transaction sent');
    assert.deepEqual(errorsOf(page), []);
    await page.context().close();
  });

  test('declining in the wallet sends nothing and leaves the override pending', async () => {
    const vault = await createFundedVault(world.stack, world.owner);
    const nonce = await blockWithOverride(world.stack, vault);
    const page = await openPage(world.stack, world.owner);
    await page.goto(`${world.stack.baseUrl}/overrides/${vault}/${nonce}`);
    await page.getByTestId('connect-wallet').click();
    await page.evaluate('window.__vaultkeeperTestWallet.state.decline = true');

    await page.getByTestId('approve').click();
    await page.getByTestId('notice').getByText('You declined in your wallet').waitFor();
    await waitFor(async () => page.getByTestId('approve').isEnabled(), { message: 'approve enabled again' });
    assert.equal(await overrideStatus(world.stack, vault, nonce), 'pending');
    assert.equal(await page.locator('[data-state="pending"]').count(), 1);
    await page.context().close();
  });

  test('a wallet that does not own the vault is told so and cannot decide', async () => {
    const vault = await createFundedVault(world.stack, world.owner);
    const nonce = await blockWithOverride(world.stack, vault);
    const stranger = createTestWallet();
    const page = await openPage(world.stack, stranger);
    await page.goto(`${world.stack.baseUrl}/overrides/${vault}/${nonce}`);
    await page.getByTestId('connect-wallet').click();

    await page.getByRole('alert').getByText('does not own the vault').waitFor();
    assert.equal(await page.getByTestId('approve').isDisabled(), true);
    assert.equal(await page.getByTestId('reject').isDisabled(), true);
    await page.context().close();
  });

  test('without a wallet the page still shows the override and says how to decide', async () => {
    const vault = await createFundedVault(world.stack, world.owner);
    const nonce = await blockWithOverride(world.stack, vault);
    const page = await openPage(world.stack, null);
    await page.goto(`${world.stack.baseUrl}/overrides/${vault}/${nonce}`);
    await page.getByText('No Solana wallet found in this browser').waitFor();
    assert.equal(await page.getByTestId('approve').isDisabled(), true);
    // Outside demo mode there is no demo wallet.
    assert.equal(await page.getByTestId('use-demo-wallet').count(), 0);
    // The way on: the override's Blink, as a QR code, a solana-action: link, dial.to and a copy button.
    const blink = `${world.stack.baseUrl}/api/actions/${vault}/${nonce}`;
    await page.getByTestId('blink-qr').waitFor();
    assert.equal(await page.getByTestId('blink-url').textContent(), blink);
    assert.equal(await page.getByTestId('solana-action-link').getAttribute('href'), `solana-action:${blink}`);
    const dial = new URL((await page.getByTestId('dial-to-link').getAttribute('href'))!);
    assert.equal(dial.origin, 'https://dial.to');
    assert.equal(dial.searchParams.get('action'), `solana-action:${blink}`);
    assert.ok(((await page.getByTestId('blink-qr').locator('path').getAttribute('d')) ?? '').length > 500);
    // The Blink it offers is the real one: a GET of it is the Action of this override.
    assert.equal(
      (await world.stack.getJson<{ label: string }>(new URL(blink).pathname)).body.label,
      'Approve',
    );
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByTestId('copy-blink').click();
    await page.getByTestId('copy-blink').getByText('Copied').waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), blink);
    // Every time on the page names its time zone.
    assert.match(
      (await page.locator('main').textContent()) ?? '',
      /Requested[^T]*\d{1,2}:\d{2}( [AP]M)? (UTC|GMT)/,
    );
    await page.screenshot({ path: join(ARTIFACTS, 'override-page-no-wallet.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(ARTIFACTS, 'override-page-no-wallet-phone.png'), fullPage: true });
    await page.setViewportSize({ width: 1100, height: 900 });
    const missing = await page.goto(`${world.stack.baseUrl}/overrides/${vault}/987654`);
    assert.equal(missing?.status(), 404);
    await page.getByText('This override does not exist').waitFor();
    assert.deepEqual(errorsOf(page), []);
    await page.context().close();
  });
});
