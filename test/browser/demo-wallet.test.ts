// The demo wallet (DEMO_MODE, as npm run demo runs the service): a visitor with no wallet extension
// approves or rejects a blocked transfer on the approval page with the demo owner's key, end to end.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import type { Page } from 'playwright-core';
import { randomAddress } from '../../dev/validator/scenarios.js';
import {
  ARTIFACTS,
  blockWithOverride,
  consoleErrorsOf,
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

/** Desktop (1280×800) and phone (390×844) screenshots; `check` runs at each size before its shot. */
async function screenshots(
  page: Page,
  name: string,
  check: (width: number) => Promise<void> = async () => {},
): Promise<void> {
  for (const [width, height, suffix] of [
    [1280, 800, ''],
    [390, 844, '-phone'],
  ] as const) {
    await page.setViewportSize({ width, height });
    const scrollWidth = Number(await page.evaluate('document.documentElement.scrollWidth'));
    assert.ok(scrollWidth <= width, `${name}: the page is ${scrollWidth} px wide at ${width} px`);
    await check(width);
    await page.screenshot({ path: join(ARTIFACTS, `${name}${suffix}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

/**
 * Elements inside a policy preview cell that reach past the cell's own edge (drawn over the next column), and
 * cells past the table's visible width (cut off).
 */
const overflowingCells = (page: Page) =>
  page.evaluate(`[...document.querySelectorAll('[data-testid="preview-changes"] td')].flatMap((td) => {
    const cell = td.getBoundingClientRect();
    const visible = td.closest('.table-wrap').getBoundingClientRect();
    if (cell.right > visible.right + 1) return [td.textContent];
    return [...td.querySelectorAll('*')]
      .filter((el) => { const r = el.getBoundingClientRect(); return r.width > 0 && (r.right > cell.right + 1 || r.left < cell.left - 1); })
      .map((el) => el.textContent);
  })`) as Promise<string[]>;

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
    await page.locator('dt', { hasText: 'Time left' }).waitFor();
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
    // Decided: no deadline is shown any more (the chain's approval moves the stored expiry).
    assert.equal(await page.locator('dt', { hasText: /Expiry|Time left/ }).count(), 0);
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
    assert.deepEqual(consoleErrorsOf(page), []);
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

describe('demo wallet on the vault page and the pending approvals', () => {
  test('without a wallet extension the vault page offers the console and the demo wallet; the policy preview reads at 1280 and 390 px', async () => {
    const vault = await createFundedVault(world.stack, world.owner, {
      name: 'Research agent',
      dailyLimit: 5n * SOL,
    });
    for (let i = 0n; i < 10n; i += 1n)
      await world.stack.fake.execute(vault, {
        amount: 300_000_000n + i * 20_000_000n,
        destination: randomAddress() as Address,
      });
    const page = await openPage(world.stack, null);
    await page.goto(`${world.stack.baseUrl}/vaults/${vault}`);
    const ownerConsole = page.getByTestId('owner-console');
    await ownerConsole
      .getByTestId('console-entry')
      .getByText('Connect a wallet to manage this vault')
      .waitFor();
    await ownerConsole.getByTestId('use-demo-wallet').waitFor();
    await page.locator('.chart-axis').waitFor();
    await screenshots(page, 'demo-vault-page', async (width) => {
      // The chart's day labels keep their size on a phone (they were ~5 px inside the stretched SVG).
      const size = await page.evaluate(
        `getComputedStyle(document.querySelector('.chart-axis span')).fontSize`,
      );
      assert.ok(Number.parseFloat(String(size)) >= 11, `chart labels at ${width} px: ${size}`);
    });

    await ownerConsole.getByTestId('use-demo-wallet').click();
    await page.getByTestId('connected-account').getByText(world.owner.address).waitFor();
    assert.match((await page.getByTestId('connected-account').textContent()) ?? '', /Demo wallet/);
    await page.getByTestId('limit-input').fill('1');
    await page.getByTestId('review-limit').click();
    const rows = page.getByTestId('preview-changes').locator('tbody tr');
    await rows.first().waitFor();
    assert.ok((await rows.count()) >= 5, 'transfers over the new limit would be blocked');
    await page.getByTestId('change-review').scrollIntoViewIfNeeded();
    await screenshots(page, 'demo-what-if', async (width) => {
      assert.deepEqual(await overflowingCells(page), [], `nothing drawn over the next column at ${width} px`);
      // The time stays on one line, the reason wraps within its column.
      const timeLines = await page.evaluate(`(() => {
        const range = document.createRange();
        range.selectNodeContents(document.querySelector('[data-testid="preview-changes"] td.time'));
        return range.getClientRects().length;
      })()`);
      assert.ok(
        Number(timeLines) <= (width < 560 ? 2 : 1),
        `the time is on ${timeLines} lines at ${width} px`,
      );
    });

    // The demo wallet signs the request and the transaction, as a wallet would.
    await page.getByTestId('confirm-change').click();
    await page
      .getByTestId('console-notice')
      .getByText('Done: Daily limit 5 → 1 SOL')
      .waitFor({ timeout: 30_000 });

    await blockWithOverride(world.stack, vault, 2n * SOL);
    await page.goto(`${world.stack.baseUrl}/owners/${world.owner.address}/approvals`);
    await page.getByTestId('approvals').locator('li').first().waitFor();
    await screenshots(page, 'demo-pending-approvals');
    assert.deepEqual(errorsOf(page), []);
    assert.deepEqual(consoleErrorsOf(page), []);
    await page.context().close();
  });
});
