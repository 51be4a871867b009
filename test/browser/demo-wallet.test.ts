// The demo wallet (DEMO_MODE, as npm run demo runs the service): a visitor with no wallet extension
// approves or rejects a blocked transfer on the approval page with the demo owner's key, end to end.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  ARTIFACTS,
  blockWithOverride,
  createFundedVault,
  errorsOf,
  openPage,
  overrideStatus,
  SOL,
} from './support/harness.js';
import { usePageWorld } from './support/page-world.js';

let dir: string;

// The service signs as the demo owner with the key it reads from a file (DEMO_OWNER_KEYPAIR).
const world = usePageWorld({
  env: (owner) => {
    dir = mkdtempSync(join(tmpdir(), 'vk-demo-wallet-'));
    const keypairFile = join(dir, 'owner-keypair.json');
    writeFileSync(keypairFile, JSON.stringify([...owner.secretKey]), { mode: 0o600 });
    return { DEMO_MODE: 'true', DEMO_OWNER_KEYPAIR: keypairFile };
  },
});
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function screenshots(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(ARTIFACTS, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** The page's requests that left for another origin than the service's (the demo's RPC). */
function crossOriginPosts(page: Page): string[] {
  const posts: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && !request.url().startsWith(world.stack.baseUrl))
      posts.push(request.url());
  });
  return posts;
}

describe('demo wallet on the approval page', () => {
  test('approves a blocked transfer: the Action transaction is signed in the page, sent to the RPC, confirmed through links.next', async () => {
    const vault = await createFundedVault(world.stack, world.owner);
    const nonce = await blockWithOverride(world.stack, vault, 2n * SOL);
    const page = await openPage(world.stack, null);
    const posts = crossOriginPosts(page);
    await page.goto(`${world.stack.baseUrl}/overrides/${vault}/${nonce}`);
    await page.locator('[data-state="pending"]').waitFor();
    // Clearly labelled, beside the way on for real wallets.
    const offer = page.getByTestId('demo-wallet');
    await offer.getByText('Use the demo wallet').waitFor();
    assert.match(
      (await offer.textContent()) ?? '',
      /Demo wallet — for this local demo only; it signs with the demo owner's key saved by npm run demo/,
    );
    await page.getByTestId('blink-offer').waitFor();
    await screenshots(page, 'demo-wallet-pending');

    await page.getByTestId('use-demo-wallet').click();
    const connected = page.getByTestId('connected-account');
    await connected.getByText(world.owner.address).waitFor();
    assert.match((await connected.textContent()) ?? '', /Demo wallet \(local demo only\)/);
    await page.getByTestId('approve').click();

    await page.locator('[data-state="executed"]').waitFor({ timeout: 30_000 });
    await page.getByTestId('notice').getByText('Approved and executed').waitFor();
    const steps = (await page.getByTestId('steps').textContent()) ?? '';
    assert.match(steps, /Sent to the demo's RPC/);
    assert.match(steps, /links\.next/);
    await screenshots(page, 'demo-wallet-executed');

    // The page itself sent one transaction to the demo's RPC, which applied approve + execute.
    assert.equal(posts.length, 1, posts.join(', '));
    assert.equal(new URL(posts[0]!).origin, new URL(world.stack.fake.rpcUrl).origin);
    const applied = world.stack.fake
      .ledger()
      .filter((t) => t.err === null && t.events.some((e) => e.name === 'OverrideApproved'));
    assert.equal(applied.length, 1);
    assert.deepEqual(
      applied[0]!.events.map((e) => e.name).filter((n) => n !== 'OverrideCreated'),
      ['OverrideApproved', 'TransactionExecuted'],
    );
    assert.equal(await overrideStatus(world.stack, vault, nonce), 'executed');
    assert.deepEqual(errorsOf(page), []);
    await page.context().close();
  });

  test('rejects by signing the Actions message in the page: rejected, nothing sent to the chain', async () => {
    const vault = await createFundedVault(world.stack, world.owner);
    const nonce = await blockWithOverride(world.stack, vault);
    const ledgerBefore = world.stack.fake.ledger().length;
    const page = await openPage(world.stack, null);
    const posts = crossOriginPosts(page);
    await page.goto(`${world.stack.baseUrl}/overrides/${vault}/${nonce}`);
    await page.getByTestId('use-demo-wallet').click();
    await page.getByTestId('connected-account').getByText(world.owner.address).waitFor();
    await page.getByTestId('reject').click();
    await page.locator('[data-state="rejected"]').waitFor({ timeout: 20_000 });
    await page.getByTestId('notice').getByText('Rejected').waitFor();
    await screenshots(page, 'demo-wallet-rejected');

    assert.equal(await overrideStatus(world.stack, vault, nonce), 'rejected');
    assert.equal(world.stack.fake.ledger().length, ledgerBefore, 'no transaction sent');
    assert.deepEqual(posts, []);
    assert.deepEqual(errorsOf(page), []);
    await page.context().close();
  });
});
