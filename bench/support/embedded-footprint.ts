// Footprint of the embedded default (the read benchmark's last part; alone:
//   npx tsx bench/read.bench.ts --embedded-only [--backfill 50000], or
//   npx tsx bench/support/embedded-footprint.ts [--transactions 50000] [--idle-seconds 10]):
// `npm start` as shipped (every role, PGlite in DATA_DIR, no DATABASE_URL or REDIS_URL), its chain
// being the fake validator in this process. Measures the service's resident memory idle after its
// first start, then during and after a backfill of TRANSACTIONS program transactions that landed while it was down (the ingestion benchmark's setup).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from '../../dev/support/processes.js';
import { startFakeValidator } from '../../dev/validator/index.js';
import { createFundedVaults, residentMb, startLoggedService } from './logged-service.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const IDLE_SECONDS = 10;
const VAULTS = 10;
/** The targets: idle after the first start, and the peak through the backfill. */
export const EMBEDDED_TARGETS_MB = { idle: 250, backfill: 500 } as const;

const log = (line: string) => process.stdout.write(`${line}\n`);

/** `npm start` without the build step (dist/ is built once before), its log lines parsed. */
async function startService(env: Record<string, string>) {
  const port = await freePort();
  const service = startLoggedService([join(root, 'dist/main.js')], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', ...env },
  });
  const { child } = service;
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  };
  return { ...service, pid: child.pid ?? 0, baseUrl: `http://127.0.0.1:${port}`, stop };
}

/** Peak resident memory sampled every 100 ms. */
function samplePeak(pid: number) {
  let peak = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, residentMb(pid));
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

export interface EmbeddedFootprint {
  idleMb: number;
  backfillPeakMb: number;
  afterBackfillMb: number;
  backfilled: number;
  backfillSeconds: number;
}

export async function measureEmbeddedFootprint(
  transactions: number,
  idleSeconds = IDLE_SECONDS,
): Promise<EmbeddedFootprint> {
  const build = spawnSync(
    process.execPath,
    [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    { cwd: root, encoding: 'utf8' },
  );
  if (build.status !== 0) log('  (tsc reported type errors; running what it emitted)');
  const fake = await startFakeValidator();
  const dataDir = mkdtempSync(join(tmpdir(), 'vk-bench-embedded-'));
  const env = { DATA_DIR: dataDir, SOLANA_RPC_URL: fake.rpcUrl, SOLANA_WS_URL: fake.wsUrl };
  try {
    const vaults = await createFundedVaults(fake, VAULTS, 'Footprint vault');
    // 1. First start on an empty data directory, as a new user does; idle once the chain is read.
    let service = startService(env);
    let running = await service;
    await running.waitForLine((l) => l.msg === 'backfill done', 180_000);
    await new Promise((r) => setTimeout(r, idleSeconds * 1000));
    await fetch(`${running.baseUrl}/api/health`).then((r) => r.arrayBuffer());
    const idleMb = residentMb(running.pid);
    log(`  idle after the first start: ${idleMb} MB RSS`);
    await running.stop();

    // 2. TRANSACTIONS program transactions land while it is down; it backfills them at start.
    for (const vault of vaults) {
      await fake.burst(Math.ceil(transactions / VAULTS), { vault, blockEvery: 10, perSlot: 4 });
    }
    service = startService(env);
    running = await service;
    const peak = samplePeak(running.pid);
    const started = Date.now();
    let applied = 0;
    await running.waitForLine((l) => {
      if (l.msg !== 'backfill done' || (l.applied ?? 0) === 0) return false;
      applied = l.applied ?? 0;
      return true;
    }, 1_800_000);
    const backfillSeconds = (Date.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 2_000));
    const afterBackfillMb = residentMb(running.pid);
    const backfillPeakMb = Math.max(peak.stop(), afterBackfillMb);
    await running.stop();
    return { idleMb, backfillPeakMb, afterBackfillMb, backfilled: applied, backfillSeconds };
  } finally {
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The two target lines, each with its verdict. */
export function reportEmbeddedFootprint(f: EmbeddedFootprint, write: (line: string) => void = log): void {
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  write(
    `  embedded default idle RSS ${f.idleMb} MB (target < ${EMBEDDED_TARGETS_MB.idle}) → ${verdict(f.idleMb < EMBEDDED_TARGETS_MB.idle)}`,
  );
  write(
    `  embedded default through a ${f.backfilled}-transaction backfill (${f.backfillSeconds.toFixed(0)} s): peak ${f.backfillPeakMb} MB, ${f.afterBackfillMb} MB after` +
      ` (target < ${EMBEDDED_TARGETS_MB.backfill}) → ${verdict(f.backfillPeakMb < EMBEDDED_TARGETS_MB.backfill)}`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values: args } = parseArgs({
    options: {
      transactions: { type: 'string', default: '50000' },
      'idle-seconds': { type: 'string', default: String(IDLE_SECONDS) },
    },
  });
  const transactions = Number(args.transactions);
  log(`embedded footprint: npm start on PGlite, then a ${transactions}-transaction backfill`);
  const f = await measureEmbeddedFootprint(transactions, Number(args['idle-seconds']));
  reportEmbeddedFootprint(f);
  log(`  (load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores)`);
  process.exit(0);
}
