// Browser tests: the fake validator, the real service (src/main.ts as a child process with every role),
// Debian's Chromium through playwright-core, and a Wallet Standard test wallet injected into pages.
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Address } from '@solana/kit';
import { type Browser, chromium, type Page } from 'playwright-core';
import type { TestWallet } from '../../../dev/support/wallet.js';
import { type FakeValidator, startFakeValidator } from '../../../dev/validator/index.js';
import { LOCAL_GENESIS_HASH } from '../../../dev/validator/rpc.js';
import { createTestStorage, type TestStorage } from '../../support/database.js';
import { type ServiceProcess, startService } from '../../support/service-process.js';
import { waitFor } from '../../support/wait.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const ARTIFACTS = join(ROOT, 'test-artifacts');
const WALLET_SCRIPT = readFileSync(new URL('./test-wallet.js', import.meta.url), 'utf8');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SOL = 1_000_000_000n;

export interface Stack {
  readonly fake: FakeValidator;
  readonly service: ServiceProcess;
  readonly baseUrl: string;
  readonly browser: Browser;
  /** GET a JSON API path of the service. */
  getJson<T>(path: string): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Everything a page test needs, on the database CI asks for (fresh PostgreSQL or in-memory PGlite);
 * `env` adds to the service's environment (DEMO_MODE, …).
 */
export async function startStack(options: { env?: Record<string, string> } = {}): Promise<Stack> {
  const usePostgres = /^postgres(ql)?:/.test(process.env.DATABASE_URL ?? '');
  const [fake, storage, port] = await Promise.all([
    // A local ledger, as SOLANA_CLUSTER=localnet says (demo mode refuses any public cluster's genesis).
    startFakeValidator({ genesisHash: LOCAL_GENESIS_HASH }),
    usePostgres ? createTestStorage() : Promise.resolve<TestStorage | null>(null),
    freePort(),
  ]);
  const baseUrl = `http://127.0.0.1:${port}`;
  // A service that fails to start must not leave the validator and the database holding the test open.
  const service = await startService(
    {
      PORT: String(port),
      PUBLIC_BASE_URL: baseUrl,
      DATABASE_URL: storage?.config.kind === 'postgres' ? storage.config.url : 'memory://',
      SOLANA_CLUSTER: 'localnet',
      SOLANA_RPC_URL: fake.rpcUrl,
      SOLANA_WS_URL: fake.wsUrl,
      ROLES: 'api,ingestor,worker',
      ...options.env,
    },
    { timeoutMs: 60_000 },
  ).catch(async (error: unknown) => {
    await fake.close();
    await storage?.close();
    throw error;
  });
  const getJson = async <T>(path: string) => {
    const response = await fetch(`${baseUrl}${path}`);
    return { status: response.status, body: (await response.json()) as T };
  };
  // A stack that fails after the service started (no Chromium, an ingestor that never subscribes) stops
  // what it started: left running, they would hold the test file open until its timeout.
  const browser = await (async () => {
    // Live updates need the ingestor's log subscription up before the chain moves.
    await waitFor(
      async () =>
        (await getJson<{ chain?: { status?: string } }>('/api/health')).body.chain?.status === 'connected',
      { timeoutMs: 30_000, intervalMs: 100, message: 'ingestor subscribed' },
    );
    return await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  })().catch(async (error: unknown) => {
    await service.stop();
    await fake.close();
    await storage?.close();
    throw error;
  });
  mkdirSync(ARTIFACTS, { recursive: true });
  return {
    fake,
    service,
    baseUrl,
    browser,
    getJson,
    async close() {
      await browser.close();
      await service.stop();
      await fake.close();
      await storage?.close();
    },
  };
}

const pageErrors = new WeakMap<Page, string[]>();

/** Uncaught errors of a page's scripts: a page that threw fails its test, whatever it shows. */
/** The status the API reports for an override. */
export async function overrideStatus(stack: Stack, vault: string, nonce: string): Promise<string> {
  return (await stack.getJson<{ status: string }>(`/api/overrides/${vault}/${nonce}`)).body.status;
}

export function errorsOf(page: Page): string[] {
  return pageErrors.get(page) ?? [];
}

const consoleErrors = new WeakMap<Page, string[]>();

/** What the page logged as an error in its console (a failed request shows there too). */
export function consoleErrorsOf(page: Page): string[] {
  return consoleErrors.get(page) ?? [];
}

/**
 * A page whose browser has the test wallet installed for `wallet` (or none). `clientAddress` makes the
 * browser its own client of the service's per-address budgets (sent as X-Forwarded-For; the stack must
 * run with TRUST_PROXY), as separate owners on separate machines are.
 */
export async function openPage(
  stack: Stack,
  wallet: TestWallet | null,
  options: { decline?: boolean; clientAddress?: string } = {},
): Promise<Page> {
  const context = await stack.browser.newContext({
    viewport: { width: 1100, height: 900 },
    ...(options.clientAddress === undefined
      ? {}
      : { extraHTTPHeaders: { 'x-forwarded-for': options.clientAddress } }),
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  pageErrors.set(page, errors);
  const logged: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') logged.push(`${message.text()} (${message.location().url})`);
  });
  consoleErrors.set(page, logged);
  if (wallet !== null) {
    await page.exposeFunction('vaultkeeperTestWalletSend', (wire: string) => sendRaw(stack.fake, wire));
    const publicKey = Buffer.from(wallet.secretKey.slice(32)).toString('base64');
    const pkcs8 = wallet.privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
    const config = {
      name: 'Vaultkeeper Test Wallet',
      address: wallet.address,
      publicKey,
      pkcs8,
      chains: ['solana:localnet', 'solana:devnet'],
      decline: options.decline === true,
      sendBinding: 'vaultkeeperTestWalletSend',
    };
    await page.addInitScript({
      content: `${WALLET_SCRIPT}\ninstallVaultkeeperTestWallet(${JSON.stringify(config)});`,
    });
  }
  return page;
}

/** The wallet's send: the signed wire transaction to the validator's sendTransaction, as a wallet does. */
async function sendRaw(fake: FakeValidator, wire: string): Promise<string> {
  const response = await fetch(fake.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'sendTransaction',
      params: [wire, { encoding: 'base64' }],
    }),
  });
  const reply = (await response.json()) as { result?: string; error?: { message: string } };
  if (reply.result === undefined) throw new Error(`sendTransaction: ${reply.error?.message ?? 'no result'}`);
  return reply.result;
}

/** The calls the page made to the test wallet. */
export async function walletCalls(page: Page): Promise<{ feature: string; text?: string; chain?: string }[]> {
  return page.evaluate('window.__vaultkeeperTestWallet.calls');
}

/** A vault of `owner` on the fake chain, funded, ingested by the service. */
export async function createFundedVault(
  stack: Stack,
  owner: TestWallet,
  input: { name?: string; dailyLimit?: bigint } = {},
): Promise<Address> {
  const created = await stack.fake.createVault({
    authority: owner.address as Address,
    dailyLimit: input.dailyLimit ?? SOL,
    name: input.name ?? 'Ops budget',
  });
  await stack.fake.deposit(created.vault, 10n * SOL);
  await waitFor(async () => (await stack.getJson(`/api/vaults/${created.vault}`)).status === 200, {
    timeoutMs: 20_000,
    message: 'vault ingested',
  });
  return created.vault;
}

/** An agent transfer over the daily limit: blocked on-chain, with a pending override the service ingested. */
export async function blockWithOverride(stack: Stack, vault: Address, amount = 2n * SOL): Promise<string> {
  const blocked = await stack.fake.block(vault, { amount, reason: 'exceeded_daily_limit' });
  const nonce = String(blocked.overrideNonce);
  await waitFor(async () => (await stack.getJson(`/api/overrides/${vault}/${nonce}`)).status === 200, {
    timeoutMs: 20_000,
    message: 'override ingested',
  });
  return nonce;
}
