import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import type { Page } from 'playwright-core';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import { randomAddress } from '../../dev/validator/scenarios.js';
import { waitFor } from '../support/wait.js';
import {
  ARTIFACTS,
  blockWithOverride,
  consoleErrorsOf,
  createFundedVault,
  errorsOf,
  openPage,
  SOL,
  walletCalls,
} from './support/harness.js';
import { usePageWorld } from './support/page-world.js';

// Each page is a browser of its own (its own read budget), as separate owners are: this file opens many.
let clients = 0;
const ownBrowser = () => ({ clientAddress: `198.51.100.${++clients}` });

// The owner pays the fees of the policy transactions they sign.
const world = usePageWorld({ env: { TRUST_PROXY: '127.0.0.1' } });

interface VaultBody {
  dailyLimit: string;
  paused: boolean;
  whitelist: string[];
  agentSigner: string;
}

const vaultOf = async (vault: string) => (await world.stack.getJson<VaultBody>(`/api/vaults/${vault}`)).body;

/** Opens the vault page with the owner's wallet and connects it. */
async function openConsole(vault: string, wallet: TestWallet = world.owner): Promise<Page> {
  const page = await openPage(world.stack, wallet, ownBrowser());
  await page.goto(`${world.stack.baseUrl}/vaults/${vault}`);
  await page.getByTestId('owner-console').getByTestId('connect-wallet').click();
  await page.getByTestId('connected-account').getByText(wallet.address).waitFor();
  return page;
}

/** Signs the reviewed change and waits until the page shows the chain applied it. */
async function signAndWait(page: Page, done: string): Promise<void> {
  await page.getByTestId('confirm-change').click();
  await page.getByTestId('console-notice').getByText(`Done: ${done}`).waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('[data-testid="owner-console"] .step-failed').count(), 0);
}

/** Desktop (1280×800) and phone (390×844) screenshots; on the phone nothing runs off the screen. */
async function screenshots(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  const width = await page.evaluate('document.documentElement.scrollWidth');
  assert.ok(Number(width) <= 390, `${name}: the page is ${width} px wide on a phone`);
  await page.screenshot({ path: join(ARTIFACTS, `${name}-phone.png`), fullPage: true });
}

describe("owner's console on the vault page", () => {
  test('the owner lowers the daily limit: reviewed, signed with the wallet (request, then transaction), applied on-chain', async () => {
    const vault = await createFundedVault(world.stack, world.owner, {
      name: 'Research agent',
      dailyLimit: 5n * SOL,
    });
    await world.stack.fake.execute(vault, {
      amount: 1_250_000_000n,
      destination: randomAddress() as Address,
    });
    const page = await openConsole(vault);

    assert.equal(await page.getByTestId('limit-input').inputValue(), '5');
    await page.getByTestId('limit-input').fill('1.5');
    await page.getByTestId('review-limit').click();
    await page.getByTestId('change-title').getByText('Daily limit 5 → 1.5 SOL').waitFor();
    // The policy preview is asked for before anything is signed; nothing was signed yet.
    await page.locator('[data-testid="policy-preview"]:not([data-status="loading"])').waitFor();
    assert.deepEqual(await walletCalls(page), [{ feature: 'standard:connect' }]);
    await signAndWait(page, 'Daily limit 5 → 1.5 SOL');

    assert.equal((await vaultOf(vault)).dailyLimit, String(1_500_000_000n));
    await page.getByTestId('spent-today').getByText('of 1.5 SOL daily limit').waitFor({ timeout: 15_000 });
    // One signed request (the PATCH, bound to its method and path), then one transaction on this cluster.
    const calls = await walletCalls(page);
    assert.deepEqual(
      calls.map((c) => c.feature),
      ['standard:connect', 'solana:signMessage', 'solana:signAndSendTransaction'],
    );
    assert.match(
      calls[1]!.text!,
      /^Sign this message to authenticate with Vaultkeeper\.\n\nTimestamp: \d+\n/,
    );
    assert.match(calls[1]!.text!, new RegExp(`PATCH /api/vaults/${vault}`));
    assert.equal(calls[2]!.chain, 'solana:localnet');
    // The input starts again from the new limit.
    assert.equal(await page.getByTestId('limit-input').inputValue(), '1.5');
    assert.deepEqual(errorsOf(page), []);
    assert.deepEqual(consoleErrorsOf(page), []);
    await page.context().close();
  });

  test('bad input is refused on the page, before any signature', async () => {
    const vault = await createFundedVault(world.stack, world.owner);
    const page = await openConsole(vault);
    for (const [value, message] of [
      ['abc', 'Daily limit: an amount in SOL above 0'],
      ['0', 'Daily limit: an amount in SOL above 0'],
      ['1', 'Daily limit: that is the current limit'],
    ]) {
      await page.getByTestId('limit-input').fill(value!);
      await page.getByTestId('review-limit').click();
      await page.getByTestId('console-notice').getByText(message!).waitFor();
    }
    await page.getByTestId('whitelist-add').fill('not-an-address');
    await page.getByTestId('review-whitelist').click();
    await page.getByTestId('console-notice').getByText('not-an-address is not a Solana address').waitFor();
    await page.getByTestId('agent-input').fill(world.owner.address.slice(0, 10));
    await page.getByTestId('change-agent').click();
    await page.getByTestId('console-notice').getByText('Agent: a Solana address').waitFor();
    assert.equal(await page.getByTestId('change-review').count(), 0);
    assert.deepEqual(await walletCalls(page), [{ feature: 'standard:connect' }]);
    await page.context().close();
  });

  test('the owner adds to the whitelist, changes the agent, pauses and resumes', async () => {
    const vault = await createFundedVault(world.stack, world.owner);
    const page = await openConsole(vault);
    const destination = randomAddress();
    await page.getByTestId('whitelist-add').fill(destination);
    await page.getByTestId('review-whitelist').click();
    await page.getByTestId('change-title').getByText('Whitelist: add 1').waitFor();
    await page.locator('[data-testid="policy-preview"]:not([data-status="loading"])').waitFor();
    await signAndWait(page, 'Whitelist: add 1');
    assert.deepEqual((await vaultOf(vault)).whitelist, [destination]);
    await page.getByTestId('whitelist').getByText(destination).waitFor({ timeout: 15_000 });

    const agent = randomAddress();
    await page.getByTestId('agent-input').fill(agent);
    await page.getByTestId('change-agent').click();
    // No policy preview for the agent: the review goes straight to signing.
    assert.equal(await page.getByTestId('policy-preview').count(), 0);
    await signAndWait(page, `Agent`);
    assert.equal((await vaultOf(vault)).agentSigner, agent);

    await page.getByTestId('pause').click();
    await signAndWait(page, 'Pause the vault');
    assert.equal((await vaultOf(vault)).paused, true);
    await page.getByTestId('vault-state').getByText('Paused').waitFor({ timeout: 15_000 });
    await page.getByTestId('resume').click();
    await signAndWait(page, 'Resume the vault');
    assert.equal((await vaultOf(vault)).paused, false);
    await page.getByTestId('vault-state').getByText('Active').waitFor({ timeout: 15_000 });
    assert.deepEqual(errorsOf(page), []);
    assert.deepEqual(consoleErrorsOf(page), []);
    await page.context().close();
  });

  test('declining in the wallet changes nothing and says so', async () => {
    const vault = await createFundedVault(world.stack, world.owner);
    const page = await openConsole(vault);
    await page.evaluate('window.__vaultkeeperTestWallet.state.decline = true');
    await page.getByTestId('pause').click();
    await page.getByTestId('confirm-change').click();
    await page.getByTestId('console-notice').getByText('You declined in your wallet').waitFor();
    assert.equal((await vaultOf(vault)).paused, false);
    await page.context().close();
  });

  test('a blocked transfer links to its approval page; the console and its screenshots on desktop and phone', async () => {
    const vault = await createFundedVault(world.stack, world.owner, {
      name: 'Ops agent',
      dailyLimit: 3n * SOL,
    });
    await world.stack.fake.execute(vault, { amount: 2n * SOL, destination: randomAddress() as Address });
    const nonce = await blockWithOverride(world.stack, vault, 4n * SOL);
    const page = await openConsole(vault);
    const link = page
      .getByTestId('transactions')
      .locator('tr[data-status="blocked"]')
      .getByTestId('approval-link');
    await link.waitFor();
    assert.equal(await link.getAttribute('href'), `/overrides/${vault}/${nonce}`);
    await page.getByTestId('limit-input').fill('2.5');
    await page.getByTestId('review-limit').click();
    await page.locator('[data-testid="policy-preview"]:not([data-status="loading"])').waitFor();
    await screenshots(page, 'owner-console');
    await link.click();
    await page.waitForURL(`${world.stack.baseUrl}/overrides/${vault}/${nonce}`);
    await page.locator('[data-state="pending"]').waitFor();
    await page.context().close();
  });

  test('anyone else sees the read-only page: a stranger is told, a browser without a wallet is told how to manage it', async () => {
    const vault = await createFundedVault(world.stack, world.owner);
    const stranger = createTestWallet();
    const page = await openConsole(vault, stranger);
    await page.getByRole('alert').getByText('does not own the vault').waitFor();
    assert.equal(await page.getByTestId('limit-input').count(), 0);
    assert.equal(await page.getByTestId('pause').count(), 0);
    await page.context().close();

    const anonymous = await openPage(world.stack, null, ownBrowser());
    await anonymous.goto(`${world.stack.baseUrl}/vaults/${vault}`);
    await anonymous.getByTestId('vault-name').waitFor();
    await anonymous.getByTestId('live-status').getByText('Live').waitFor();
    // No wallet in this browser: the console says what it is for and what it needs, with no controls.
    const entry = anonymous.getByTestId('owner-console');
    await entry.getByTestId('console-entry').getByText('Connect a wallet to manage this vault').waitFor();
    await entry.getByText('No Solana wallet found in this browser').waitFor();
    assert.equal(await entry.getByText('open the Blink').count(), 0, 'the vault page has no Blink to open');
    assert.equal(await entry.getByTestId('use-demo-wallet').count(), 0, 'no demo wallet outside demo mode');
    assert.equal(await anonymous.getByTestId('limit-input').count(), 0);
    assert.deepEqual(errorsOf(anonymous), []);
    assert.deepEqual(consoleErrorsOf(anonymous), []);
    await anonymous.context().close();
  });
});

describe("owner's pending approvals page", () => {
  test("lists every open approval across the owner's vaults, newest first, each linking to its approval page", async () => {
    const boss = createTestWallet();
    const first = await createFundedVault(world.stack, boss, { name: 'Ads' });
    const second = await createFundedVault(world.stack, boss, { name: 'Infra' });
    const someoneElse = await createFundedVault(world.stack, createTestWallet());
    const n1 = await blockWithOverride(world.stack, first, 2n * SOL);
    // Newest is by block time, in whole seconds (the fake's clock is the wall clock here): the second
    // request's block comes in a later second than the first's.
    const firstSecond = Math.floor(Date.now() / 1000);
    await waitFor(() => Math.floor(Date.now() / 1000) > firstSecond, { intervalMs: 20 });
    const n2 = await blockWithOverride(world.stack, second, 3n * SOL);
    await blockWithOverride(world.stack, someoneElse, 4n * SOL);

    const page = await openPage(world.stack, null, ownBrowser());
    const response = await page.goto(`${world.stack.baseUrl}/owners/${boss.address}/approvals`);
    assert.equal(response?.status(), 200);
    await page.getByTestId('approvals').waitFor();
    assert.equal(await page.getByTestId('pending-count').textContent(), '2');
    const items = page.getByTestId('approvals').locator('li');
    assert.equal(await items.count(), 2);
    const listed = [];
    for (const i of [0, 1])
      listed.push(
        `${await items.nth(i).getAttribute('data-vault')}/${await items.nth(i).getAttribute('data-nonce')}`,
      );
    assert.deepEqual(listed, [`${second}/${n2}`, `${first}/${n1}`]);
    assert.equal(await items.nth(0).getByTestId('review').getAttribute('href'), `/overrides/${second}/${n2}`);
    assert.match(
      (await items.nth(0).textContent()) ?? '',
      /3 SOL.*Over the daily spending limit.*\d+ min left/s,
    );
    await screenshots(page, 'pending-approvals');

    await items.nth(1).getByTestId('review').click();
    await page.waitForURL(`${world.stack.baseUrl}/overrides/${first}/${n1}`);
    await page.locator('[data-state="pending"]').waitFor();
    assert.deepEqual(errorsOf(page), []);
    assert.deepEqual(consoleErrorsOf(page), []);
    await page.context().close();
  });

  test('an owner with nothing pending is told so; a link without an address is a 404', async () => {
    const page = await openPage(world.stack, null, ownBrowser());
    await page.goto(`${world.stack.baseUrl}/owners/${randomAddress()}/approvals`);
    await page.getByTestId('no-approvals').waitFor();
    assert.equal(await page.getByTestId('pending-count').textContent(), '0');
    const missing = await page.goto(`${world.stack.baseUrl}/owners/not-a-wallet/approvals`);
    assert.equal(missing?.status(), 404);
    await page.getByText('This is not a wallet address').waitFor();
    assert.deepEqual(errorsOf(page), []);
    await page.context().close();
  });

  test('the vault page links to its owner’s pending approvals', async () => {
    const vault = await createFundedVault(world.stack, world.owner);
    const page = await openConsole(vault);
    const link = page.getByTestId('owner-console').getByRole('link', { name: "Owner's pending approvals" });
    assert.equal(await link.getAttribute('href'), `/owners/${world.owner.address}/approvals`);
    await page.context().close();
  });
});
