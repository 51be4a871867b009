// npm run demo: the whole service on one machine with no network. A simulated Solana validator plays a
// week of three vaults, the real service (src/main.ts, embedded database) ingests it, a local receiver
// checks the signed webhooks, and the owner pages show it all live.

import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { WEBHOOK_EVENTS } from '@vaultkeeper/webhooks';
import { startFakeGrpc } from '../grpc/server.js';
import { startFakeValidator } from '../validator/index.js';
import { LOCAL_GENESIS_HASH } from '../validator/rpc.js';
import { createOwner } from './owner.js';
import { ownerAccessLines, saveOwnerAccess, saveOwnerKeypair } from './owner-access.js';
import {
  createVaults,
  type DemoVault,
  playHistory,
  playToday,
  playTraffic,
  SOL,
  type StoryContext,
} from './story.js';
import { startWebhookReceiver } from './webhook-receiver.js';

const { values: args } = parseArgs({
  options: {
    port: { type: 'string', default: '3000' },
    host: { type: 'string', default: '127.0.0.1' },
    'rpc-port': { type: 'string', default: '0' },
    'history-days': { type: 'string', default: '6' },
    'log-level': { type: 'string', default: 'info' },
    /** The service reads the chain from a Yellowstone gRPC stream (the fake's) instead of the WebSocket. */
    grpc: { type: 'boolean', default: false },
  },
});
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DATA_DIR = resolve(ROOT, 'data/demo');
const SERVICE_LOG = resolve(DATA_DIR, 'service.log');

const print = (tag: string, line: string) => process.stdout.write(`[${tag}] ${line}\n`);
const controller = new AbortController();
let service: ChildProcess | null = null;
const pause = (ms: number) => sleep(ms, undefined, { signal: controller.signal }).catch(() => undefined);

function startService(env: Record<string, string>): ChildProcess {
  const inherited = { ...process.env };
  // The demo runs on the embedded defaults whatever this shell points at.
  delete inherited.DATABASE_URL;
  delete inherited.REDIS_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'src/main.ts')], {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Every line goes to the log file; warnings and errors also to this terminal.
  const log = createWriteStream(SERVICE_LOG, { flags: 'a' });
  const relay = (chunk: Buffer) => {
    log.write(chunk);
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      try {
        const entry = JSON.parse(line) as { level?: number | string; msg?: string; err?: unknown };
        const level = String(entry.level ?? 'info').toUpperCase();
        if (!['WARN', 'ERROR', 'FATAL', '40', '50', '60'].includes(level)) continue;
        print('service', `${level} ${entry.msg ?? ''}${entry.err ? ` (${JSON.stringify(entry.err)})` : ''}`);
      } catch {
        print('service', line);
      }
    }
  };
  child.stdout?.on('data', relay);
  child.stderr?.on('data', relay);
  return child;
}

/**
 * Waits for the service to say healthy while its process lives, saying every 30 s what health reports:
 * a first start on a busy machine can take minutes. Ten minutes is a hang, not a slow start.
 */
async function waitForHealth(baseUrl: string, child: ChildProcess): Promise<void> {
  const started = Date.now();
  let nextNote = started + 30_000;
  let last = 'no answer yet';
  while (Date.now() - started < 600_000) {
    if (child.exitCode !== null) throw new Error(`the service exited with code ${child.exitCode}`);
    const health = await fetch(`${baseUrl}/api/health`)
      .then((r) => r.json() as Promise<{ status?: string; chain?: { status?: string } }>)
      .catch(() => null);
    if (health?.status === 'healthy') return;
    if (health !== null) last = `${health.status ?? 'unknown'}, chain ${health.chain?.status ?? 'unknown'}`;
    if (Date.now() >= nextNote) {
      print('demo', `still starting (${Math.round((Date.now() - started) / 1000)} s; health: ${last})…`);
      nextNote += 30_000;
    }
    await sleep(500);
  }
  throw new Error(`the service did not become healthy within 10 minutes (health: ${last})`);
}

function printUrls(
  baseUrl: string,
  owner: string,
  vaults: readonly DemoVault[],
  pendingOverride: string | null,
  extra: Record<string, string>,
) {
  const lines = [
    '',
    '  Open these in a browser:',
    ...vaults.map((v) => `    ${v.name.padEnd(22)} ${baseUrl}/vaults/${v.address}`),
    ...(pendingOverride ? [`    ${'Pending override'.padEnd(22)} ${pendingOverride}`] : []),
    `    ${'Pending approvals'.padEnd(22)} ${baseUrl}/owners/${owner}/approvals`,
    `    ${'API reference'.padEnd(22)} ${baseUrl}/docs`,
    `    ${'Health'.padEnd(22)} ${baseUrl}/api/health`,
    `    ${'Live event stream'.padEnd(22)} ${baseUrl}/api/events/stream`,
    ...Object.entries(extra).map(([label, url]) => `    ${label.padEnd(22)} ${url}`),
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

// Signals are handled from the first moment: one that arrives while starting stops what started.
let stopDemo: ((code: number) => Promise<void>) | null = null;
let pendingSignal = false;
const onSignal = () => {
  if (stopDemo !== null) void stopDemo(0);
  else pendingSignal = true;
};
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);

async function main(): Promise<void> {
  const port = Number(args.port);
  const baseUrl = `http://${args.host === '0.0.0.0' ? '127.0.0.1' : args.host}:${port}`;
  // A ledger of its own (not devnet's genesis): demo mode starts only on a local validator.
  const fake = await startFakeValidator({ port: Number(args['rpc-port']), genesisHash: LOCAL_GENESIS_HASH });
  const grpc = args.grpc ? await startFakeGrpc(fake) : null;
  const receiver = await startWebhookReceiver((line) => print('webhook', line));
  rmSync(DATA_DIR, { recursive: true, force: true });
  mkdirSync(DATA_DIR, { recursive: true });
  print(
    'demo',
    `simulated validator at ${fake.rpcUrl}${grpc === null ? '' : `, its gRPC stream at ${grpc.url}`}; ` +
      'starting the service (database and log in data/demo)…',
  );
  // The owner exists before the service: in demo mode its approval page signs with this key.
  const owner = createOwner(baseUrl, fake.rpcUrl);
  const ownerKeypairFile = saveOwnerKeypair(owner, DATA_DIR);
  service = startService({
    DEMO_MODE: 'true',
    DEMO_OWNER_KEYPAIR: ownerKeypairFile,
    PORT: String(port),
    HOST: args.host,
    PUBLIC_BASE_URL: baseUrl,
    SOLANA_CLUSTER: 'localnet',
    SOLANA_RPC_URL: fake.rpcUrl,
    SOLANA_WS_URL: fake.wsUrl,
    ...(grpc === null ? {} : { SOLANA_GRPC_URL: grpc.url }),
    DATA_DIR,
    ROLES: 'api,ingestor,worker',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    LOG_LEVEL: args['log-level'],
  });

  const child = service;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    controller.abort();
    print('demo', 'stopping…');
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      // The service closes within 10 s on SIGTERM; past that it is stuck and is killed.
      const killer = setTimeout(() => child.kill('SIGKILL'), 12_000);
      await new Promise((done) => child.once('exit', done));
      clearTimeout(killer);
    }
    await Promise.allSettled([receiver.close(), grpc?.close(), fake.close()]);
    process.exit(code);
  };
  // `npm run demo` execs this process (package.json), so npm's SIGTERM and a terminal's Ctrl+C reach it.
  stopDemo = stop;
  if (pendingSignal) void stop(0);
  child.once('exit', (code) => {
    if (!stopping) {
      print('demo', `the service exited (code ${code}); stopping the demo`);
      void stop(1);
    }
  });

  await waitForHealth(baseUrl, child);
  print('demo', `service ready at ${baseUrl}`);
  await fake.airdrop(owner.address, 50n * SOL);
  print('demo', `demo owner wallet ${owner.address}`);
  const access = await saveOwnerAccess(owner, baseUrl, DATA_DIR, receiver.listenSecret);
  let webhookId: string | null = null;
  try {
    const webhook = await owner.call<{ id: string; secret: string }>('POST', '/api/webhooks', {
      url: receiver.url,
      events: [...WEBHOOK_EVENTS],
    });
    receiver.setSecret(webhook.secret);
    webhookId = webhook.id;
    print('demo', `webhook subscription ${webhook.id} → ${receiver.url}`);
  } catch (error) {
    print('demo', `no webhook subscription (${(error as Error).message}); the rest of the demo goes on`);
  }
  const accessLines = ownerAccessLines(owner, access, baseUrl, { listenUrl: receiver.listenUrl, webhookId });
  process.stdout.write(`${accessLines.join('\n')}\n`);

  const ctx: StoryContext = {
    fake,
    owner,
    baseUrl,
    signal: controller.signal,
    say: (l) => print('chain', l),
    pause,
  };
  const days = Number(args['history-days']);
  const today = Math.floor(Date.now() / 86_400_000) * 86_400;
  receiver.setVerbose(false);
  const vaults = await createVaults(ctx, today - (days + 1) * 86_400 + 9 * 3600);
  await playHistory(ctx, vaults, days);
  const { received, failed } = receiver.counts();
  print(
    'demo',
    `played ${days} days of history (${received} webhook deliveries so far, ${failed} failed checks)`,
  );
  const extra = {
    'Webhook receiver': receiver.url,
    'Validator controls': `${fake.rpcUrl}/_control/<method>`,
  };
  printUrls(baseUrl, owner.address, vaults, null, extra);
  receiver.setVerbose(true);
  print('demo', 'now playing today in real time…');
  const { pendingOverride } = await playToday(ctx, vaults);
  if (!controller.signal.aborted) {
    printUrls(baseUrl, owner.address, vaults, pendingOverride, extra);
    process.stdout.write(`${accessLines.join('\n')}\n`);
    print('demo', 'the day is played; light traffic continues. Press Ctrl+C to stop.');
    await playTraffic(ctx, vaults);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `demo failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  controller.abort();
  service?.kill('SIGTERM');
  process.exit(1);
});
